"""Find the Python files to scan and give each one its module name."""
from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

from leapp_codemod.model import FileError
from leapp_codemod.source.roots import (
    assign_names,
    import_names,
    package_name,
    project_root,
)

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "node_modules",
    "build", "dist", ".eggs", "*.egg-info", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    ".leapp-codemod-cache", "site-packages",
)


@dataclass(frozen=True)
class SourceFile:
    path: Path          # absolute, resolved
    display: str        # as the user named it (POSIX separators)
    module: str         # dotted module name, e.g. "app.policy"
    is_package: bool    # the file is an __init__.py
    aliases: tuple[str, ...] = ()   # other names it can be imported as (see roots.py)


@dataclass(frozen=True)
class Discovery:
    files: tuple[SourceFile, ...]
    errors: tuple[FileError, ...]


def _display(path: str) -> str:
    return Path(os.path.normpath(path)).as_posix()


def _excluded(rel_posix: str, name: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(name, pat) or fnmatch.fnmatch(rel_posix, pat) for pat in patterns)


def module_name(path: Path) -> tuple[str, bool]:
    """The file's package name (see `roots.package_name`)."""
    return package_name(path)


def _source_file(real: Path, display: str, roots: tuple[Path, ...] = ()) -> SourceFile:
    module, is_package = package_name(real)
    return SourceFile(real, display, module, is_package, import_names(real, roots)[1:])


def _walk(root: str, excludes: tuple[str, ...], seen_dirs: set, out: list, errors: list) -> None:
    roots = _roots(root)
    for current, dirnames, filenames in os.walk(root, followlinks=True):
        real_current = Path(current).resolve()
        seen_dirs.add(real_current)
        rel_dir = os.path.relpath(current, root)
        kept = []
        for d in sorted(dirnames):
            rel = Path(rel_dir, d).as_posix() if rel_dir != "." else d
            if _excluded(rel, d, excludes):
                continue
            real = Path(current, d).resolve()
            if real == real_current or real in real_current.parents:
                errors.append(FileError(_display(os.path.join(current, d)), "symlink loop (points to an enclosing folder); skipped"))
            elif real not in seen_dirs:  # a folder reached twice through links is read once
                seen_dirs.add(real)
                kept.append(d)
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            full = os.path.join(current, name)
            rel = os.path.relpath(full, root)
            if _excluded(Path(rel).as_posix(), name, excludes):
                continue
            try:
                real = Path(full).resolve(strict=True)
            except (OSError, RuntimeError) as exc:
                errors.append(FileError(_display(full), f"cannot resolve path ({exc.__class__.__name__}: symlink loop?)"))
                continue
            out.append(_source_file(real, _display(full), roots))


def discover(paths: list[str], excludes: tuple[str, ...] = ()) -> Discovery:
    """All .py files under `paths`, each once, in a stable order; problems become FileErrors."""
    patterns = DEFAULT_EXCLUDES + tuple(excludes)
    found: list[SourceFile] = []
    errors: list[FileError] = []
    seen_dirs: set = set()
    for raw in paths:
        if not os.path.lexists(raw):
            errors.append(FileError(_display(raw), "no such file or directory"))
            continue
        if os.path.isdir(raw):
            if Path(raw).resolve() in seen_dirs:
                continue
            before = len(found)
            _walk(raw, patterns, seen_dirs, found, errors)
            if len(found) == before:
                errors.append(FileError(_display(raw), "no Python files found"))
            continue
        try:
            real = Path(raw).resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            errors.append(FileError(_display(raw), f"cannot resolve path ({exc.__class__.__name__}: symlink loop?)"))
            continue
        if not real.is_file():
            errors.append(FileError(_display(raw), "not a regular file"))
            continue
        found.append(_source_file(real, _display(raw), _roots(raw)))
    unique: dict[Path, SourceFile] = {}
    for src in found:
        unique.setdefault(src.path, src)
    return Discovery(tuple(_named(list(unique.values()))), tuple(errors))


def _roots(typed: str) -> tuple[Path, ...]:
    """Folders a file's import names are counted from: the project root, the scanned folder, and the
    project root's parent when the root is itself importable by name (`from sim2real.utils import x`
    in a project whose root folder is `sim2real/`)."""
    start = Path(typed).resolve()
    start = start if start.is_dir() else start.parent
    root = project_root(start)
    outer = (root.parent,) if root.name.isidentifier() and root.parent != root else ()
    return tuple(dict.fromkeys((root, start, *outer)))


def _named(files: list[SourceFile]) -> list[SourceFile]:
    """Each file with a module name no other file has, and its other import names as aliases."""
    names = assign_names([(src.path, (src.module, *src.aliases)) for src in files])
    return [SourceFile(src.path, src.display, module, src.is_package, aliases)
            for src, (module, aliases) in zip(files, names)]
