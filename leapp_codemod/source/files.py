"""Find the Python files to scan and give each one its module name."""
from __future__ import annotations

import errno
import fnmatch
import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
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
# Files a ROS build tool leaves in the folders it generates (a colcon workspace's build/, install/ and log/, which
# repeat the sources under src/) or that a developer adds to keep a package out of the build: such a folder is
# not the project's source.
IGNORE_MARKERS = ("COLCON_IGNORE", "AMENT_IGNORE", "CATKIN_IGNORE")


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


@lru_cache(maxsize=64)
def _exclusion_regex(patterns: tuple[str, ...]) -> re.Pattern:
    """One regular expression matching what any of `patterns` matches (`fnmatch`'s own translation)."""
    return re.compile("|".join(fnmatch.translate(os.path.normcase(pat)) for pat in patterns) or r"(?!)")


def _excluded(rel_posix: str, name: str, patterns: tuple[str, ...]) -> bool:
    """`fnmatch.fnmatch(name or rel_posix, pattern)` for some pattern, in one match per name."""
    regex = _exclusion_regex(patterns)
    return regex.match(os.path.normcase(name)) is not None or regex.match(os.path.normcase(rel_posix)) is not None


def module_name(path: Path) -> tuple[str, bool]:
    """The file's package name (see `roots.package_name`)."""
    return package_name(path)


def _source_file(real: Path, display: str, roots: tuple[Path, ...] = ()) -> SourceFile:
    module, is_package = package_name(real)
    return SourceFile(real, display, module, is_package, import_names(real, roots)[1:])


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def _inside(real: Path, root: Path) -> bool:
    return real == root or root in real.parents


def _link_problem(path: str) -> str:
    """Why the symbolic link at `path` cannot be resolved: dangling or a loop."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return f"dangling symbolic link (to {os.readlink(path)}); skipped"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop; skipped"
        return f"cannot read: {exc.strerror or exc}; skipped"
    return "cannot resolve path; skipped"


def _source_problem(full: str, root: Path | None, follow: bool,
                    folder_real: Path | None = None) -> tuple[Path | None, str]:
    """(the resolved file, '') for a regular file that may be read, else (None, why it is skipped).
    `folder_real`: the resolved folder holding `full`; a file there that is no link resolves to
    `folder_real / name` without resolving each part of its path again."""
    real = None
    if folder_real is not None:
        try:
            if not stat.S_ISLNK(os.lstat(full).st_mode):
                real = folder_real / os.path.basename(full)
        except OSError:
            pass
    if real is None:
        try:
            real = Path(full).resolve(strict=True)
        except (OSError, RuntimeError):
            return None, _link_problem(full) if os.path.islink(full) else "cannot resolve path; skipped"
    if root is not None and not follow and os.path.islink(full) and not _inside(real, root):
        return None, f"symbolic link to {real}, outside {root}; skipped (--follow-symlinks reads it)"
    try:
        mode = os.stat(real).st_mode
    except OSError as exc:
        return None, f"cannot read file: {exc.strerror or exc}"
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        return None, f"is {kind}, not a regular file; skipped"
    if not os.access(real, os.R_OK):
        return None, "cannot read file: Permission denied"
    return real, ""


def _walk(root: str, excludes: tuple[str, ...], seen_dirs: set, out: list, errors: list,
          follow: bool = False, make=None, wanted=None) -> None:
    """Every readable .py file under `root`, as `make(real, display, roots)` (a named SourceFile by default).
    `wanted(path)`: a cheap test a file must pass before the exclusions and the file checks are applied
    (a search that keeps few files tests them first)."""
    make = make or _source_file
    roots = _roots(root)
    top = Path(root).resolve()

    def unreadable(exc: OSError) -> None:
        errors.append(FileError(_display(exc.filename or root), f"cannot read folder: {exc.strerror or exc}"))

    reals: dict[str, Path] = {}   # a kept folder that is no link -> its resolved path (resolved / name)
    for current, dirnames, filenames in os.walk(root, followlinks=True, onerror=unreadable):
        real_current = reals.pop(current, None) or Path(current).resolve()
        seen_dirs.add(real_current)
        rel_dir = os.path.relpath(current, root)
        kept = []
        for d in sorted(dirnames):
            rel = Path(rel_dir, d).as_posix() if rel_dir != "." else d
            full = os.path.join(current, d)
            if _excluded(rel, d, excludes) or any(os.path.lexists(os.path.join(full, m)) for m in IGNORE_MARKERS):
                continue
            try:
                link = stat.S_ISLNK(os.lstat(full).st_mode)
            except OSError:
                link = True
            real = Path(full).resolve() if link else real_current / d
            if real == real_current or real in real_current.parents:
                errors.append(FileError(_display(full), "symlink loop (points to an enclosing folder); skipped"))
            elif os.path.islink(full) and not follow and not _inside(real, top):
                errors.append(FileError(_display(full), f"symbolic link to {real}, outside {top}; skipped "
                                                        "(--follow-symlinks reads it)"))
            elif real not in seen_dirs:  # a folder reached twice through links is read once
                seen_dirs.add(real)
                kept.append(d)
                if not link:
                    reals[full] = real
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            full = os.path.join(current, name)
            if wanted is not None and not wanted(full):
                continue
            rel = os.path.relpath(full, root)
            if _excluded(Path(rel).as_posix(), name, excludes):
                continue
            real, problem = _source_problem(full, top, follow, real_current)
            if real is None:
                errors.append(FileError(_display(full), problem))
                continue
            out.append(make(real, _display(full), roots))


def python_paths(folder: str, wanted=None) -> set[Path]:
    """The resolved paths of the files `discover([folder])` finds (same exclusions, links and file checks),
    without naming their modules: for a search that only reads the files (see `resolved`). `wanted`: a
    test on the path a file must also pass, asked before the other checks (see `_walk`)."""
    found: list[Path] = []
    if os.path.isdir(folder) and os.access(folder, os.R_OK | os.X_OK):
        _walk(folder, DEFAULT_EXCLUDES, set(), found, [], make=lambda real, display, roots: real, wanted=wanted)
    return set(found)


def discover(paths: list[str], excludes: tuple[str, ...] = (), follow_symlinks: bool = False) -> Discovery:
    """All .py files under `paths`, each once, in a stable order; problems become FileErrors.

    Only regular files are read (a FIFO, device or socket is skipped whatever its name); a symbolic
    link leading out of the scanned folder is skipped with a note unless `follow_symlinks`."""
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
            if not os.access(raw, os.R_OK | os.X_OK):
                errors.append(FileError(_display(raw), "cannot read folder: Permission denied"))
                continue
            before = len(found)
            _walk(raw, patterns, seen_dirs, found, errors, follow_symlinks)
            if len(found) == before:
                errors.append(FileError(_display(raw), "no Python files found"))
            continue
        real, problem = _source_problem(raw, None, True)
        if real is None:
            errors.append(FileError(_display(raw), problem))
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
