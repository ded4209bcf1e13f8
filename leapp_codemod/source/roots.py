"""The import names Python gives a file: the one module-root logic of every command.

A file inside packages (folders with `__init__.py`) has its package name: `app/policy.py` is
`app.policy` whatever folder is scanned. A file in a folder without `__init__.py` (`scripts/`,
`deploy/`, a namespace package) is importable two ways: as a top-level module when its folder is on
`sys.path` (the script's own folder is, when it runs), and as a namespace-package module from the
project root (`deploy.deploy_mujoco.run`). The first is its name unless two files share it; every
name is an alias that `--entry` and imports may use.

    scripts/run.py          -> "run"           (alias "scripts.run")
    pkg/real/util.py        -> "util"          (alias "pkg.real.util")
    pkg/real/util.py and tools/util.py         -> "pkg.real.util", "tools.util"
    my-repo/__init__.py, my-repo/x.py          -> "x" (a folder name that is not an identifier is no package)
"""
from __future__ import annotations

import os
from pathlib import Path

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def _is_package_dir(folder: Path) -> bool:
    return folder.name.isidentifier() and (folder / "__init__.py").is_file()


def package_name(path: Path) -> tuple[str, bool]:
    """Dotted name from the nearest ancestor that is not a package, and whether the file is an __init__.py."""
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    folder = path.parent
    while _is_package_dir(folder) and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts) or path.stem, is_package


def project_root(start: Path) -> Path:
    """The scanned folder, or the nearest ancestor with a project marker when it is inside one
    (so `scan repo/deploy` and `scan repo` name modules alike)."""
    start = start if start.is_dir() else start.parent
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return start


def namespace_name(path: Path, root: Path) -> str | None:
    """The name with `root` on sys.path, or None when the file is outside it or a folder is no identifier."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return None
    parts = list(rel.parts[:-1]) + ([] if path.name == "__init__.py" else [path.stem])
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return ".".join(parts)


def import_names(path: Path, roots: tuple[Path, ...]) -> tuple[str, ...]:
    """Every name the file can be imported as, its package name first."""
    names = [package_name(path)[0]]
    for root in roots:
        name = namespace_name(path, root)
        if name and name not in names:
            names.append(name)
    return tuple(names)


def assign_names(files: list[tuple[Path, tuple[str, ...]]]) -> list[tuple[str, tuple[str, ...]]]:
    """(module name, aliases) per file: its first name (its package name) unless another file's package name is
    the same, then its first name no other file has, else the first name qualified by the file's position. A
    package name wins over another file's other name: Python's import system takes a regular package over a
    namespace portion (`pkg/pkg/__init__.py` is `pkg`, though `pkg.pkg` from the root; `pkg/pkg/pkg.py` is
    `pkg.pkg`)."""
    first_counts: dict[str, int] = {}
    all_counts: dict[str, int] = {}
    for _, names in files:
        first_counts[names[0]] = first_counts.get(names[0], 0) + 1
        for name in names:
            all_counts[name] = all_counts.get(name, 0) + 1
    out = []
    for path, names in files:
        if first_counts[names[0]] == 1:
            chosen = names[0]
        else:
            chosen = next((n for n in names[1:] if all_counts[n] == 1), f"{names[0]}@{_shown(path)}")
        out.append((chosen, tuple(n for n in names if n != chosen and all_counts[n] == 1)))
    return out


def _shown(path: Path) -> str:
    """A file's path as the user gave the scan: relative to the working directory when it is inside it."""
    try:
        return Path(os.path.abspath(path)).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def search_root(app: Path) -> Path:
    """The folder a driver of `app` is looked for in: the folder holding the application's import root."""
    folder = app if app.is_dir() else app.parent
    while (folder / "__init__.py").is_file() and folder.resolve().parent != folder.resolve():
        folder = folder.parent
    if folder.resolve().name == "src" and any((folder / ".." / name).is_file()
                                              for name in ("pyproject.toml", "setup.py", "setup.cfg")):
        folder = folder / ".."   # a src/ layout: the scripts live beside src/, in the project folder
    return Path(os.path.normpath(folder))
