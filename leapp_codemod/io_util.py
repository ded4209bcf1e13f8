"""The one way leapp-codemod writes a file: reports, generated modules, recordings, `run` artifacts,
logs, configuration snapshots and cache entries all go through `atomic_file` (or `write_atomic`).

The rules, checked before anything is written:

* The target must be a regular file or not exist. A directory, a character or block device, a FIFO
  or a socket is refused (nothing is written, nothing is replaced).
* A symbolic link is written through only when the file it resolves to lies inside the output folder
  (the folder the path names, or the `folder` given); the file it resolves to is then replaced and
  the link stays. A link leading out of that folder is refused.
* A read-only file (no write permission for the user, or no write bit at all: refused even for
  root) is refused, as a shell redirection refuses it.
* A file named in `protected` (the application sources a scan read, the driver `generate` records)
  is never written.
* The data goes to a temporary file created with O_CREAT|O_EXCL|O_NOFOLLOW under a short random
  name in the target's folder; it is flushed to disk and renamed over the target. Readers see the
  old file or the new one, never a part; on any error the temporary file is removed and the target
  is left as it was. An existing file keeps its permission bits; a new one gets 0o666 less the umask.

`open_stream` is the variant for a log read while it grows (same checks, created fresh, not atomic).
`prepare_out_dir` checks an output folder (`run --out`): created fresh, or an existing folder owned
by the user that holds only regular files and folders (no symbolic links, FIFOs or devices).
"""
from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))
_FOLDER_ENTRIES = 20000     # how many entries of an existing output folder are checked


class UnsafeOutput(OSError):
    """A target the writer refuses; `str()` is one line naming the file and the reason."""

    def __init__(self, path: str, reason: str):
        super().__init__(errno.EPERM, reason, path)

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _kind(mode: int) -> str | None:
    return next((name for test, name in _KINDS if test(mode)), None)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def check_target(path: str | os.PathLike[str], folder: str | os.PathLike[str] | None = None,
                 protected: Iterable[str | os.PathLike[str]] = ()) -> str:
    """The file to replace for a write to `path` (a symbolic link's target inside the output folder,
    else `path`); raises UnsafeOutput for any target the rules above refuse."""
    shown = os.fspath(path)
    target = os.path.abspath(shown)
    base = os.path.realpath(os.fspath(folder) if folder is not None else os.path.dirname(target))
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        resolved = os.path.realpath(target)
        if not _inside(resolved, base):
            raise UnsafeOutput(shown, f"is a symbolic link to {resolved}, outside {base}; not written")
        target = resolved
        try:
            st = os.lstat(target)
        except FileNotFoundError:
            st = None
    if st is not None:
        kind = _kind(st.st_mode)
        if kind is not None:
            raise UnsafeOutput(shown, f"is {kind}, not a regular file; not written")
        if not st.st_mode & 0o222 or not os.access(target, os.W_OK):
            raise UnsafeOutput(shown, "is read-only; not overwritten")
    mine = _identity(target)
    for other in protected:
        if os.path.realpath(os.fspath(other)) == os.path.realpath(target) or (
                mine is not None and _identity(os.fspath(other)) == mine):
            raise UnsafeOutput(shown, "is a source file of the application; never overwritten")
    return target


@contextmanager
def atomic_file(path: str | os.PathLike[str], mode: str = "w", *, folder: str | os.PathLike[str] | None = None,
                protected: Iterable[str | os.PathLike[str]] = ()) -> Iterator[IO]:
    """A file handle whose contents replace `path` when the block ends without an error (see the
    module's rules). `mode` is "w" (UTF-8 text, newlines kept) or "wb"/"w+b"."""
    target = check_target(path, folder, protected)
    directory = os.path.dirname(target)
    kept = _existing_mode(target)
    fd, tmp = _create_temp(directory)
    try:
        text = "b" not in mode
        with os.fdopen(fd, mode, **({"encoding": "utf-8", "newline": ""} if text else {})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if kept is not None:
            os.chmod(tmp, kept)
        check_target(path, folder, protected)      # still acceptable after the (possibly long) write
        os.replace(tmp, target)
    except BaseException:
        _remove_quietly(tmp)
        raise
    _fsync_directory(directory)


def open_stream(path: str | os.PathLike[str], *, folder: str | os.PathLike[str] | None = None) -> IO[bytes]:
    """A log that must be readable while it grows (`run.log`): the same checks as `atomic_file`,
    then an existing regular file is removed and a new one is created in its place with
    O_CREAT|O_EXCL|O_NOFOLLOW (never through a link, never onto a special file), keeping its mode."""
    target = check_target(path, folder)
    kept = _existing_mode(target)
    if kept is not None:
        os.unlink(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(target, flags, 0o666)
    if kept is not None:
        os.chmod(fd, kept)
    return os.fdopen(fd, "wb", buffering=0)


def write_atomic(path: str | os.PathLike[str], text: str, *, folder: str | os.PathLike[str] | None = None,
                 protected: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Write `text` (UTF-8) to `path` through `atomic_file`."""
    with atomic_file(path, "w", folder=folder, protected=protected) as handle:
        handle.write(text)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, folder: str | os.PathLike[str] | None = None,
                       protected: Iterable[str | os.PathLike[str]] = ()) -> None:
    with atomic_file(path, "wb", folder=folder, protected=protected) as handle:
        handle.write(data)


def prepare_out_dir(path: str | os.PathLike[str]) -> Path:
    """`path` as an output folder: created (with its parents) when missing, else checked to be a
    folder the user owns holding only regular files and folders. Raises UnsafeOutput otherwise."""
    shown = os.fspath(path)
    try:
        st = os.lstat(shown)
    except FileNotFoundError:
        os.makedirs(shown, exist_ok=True)
        st = os.lstat(shown)
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeOutput(shown, "is a symbolic link; an output folder must be a real folder")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeOutput(shown, f"is {_kind(st.st_mode) or 'a file'}, not a folder")
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise UnsafeOutput(shown, f"belongs to another user (uid {st.st_uid}); choose a folder of your own")
    seen = 0
    for current, dirs, files in os.walk(shown):
        for name in dirs + files:
            seen += 1
            if seen > _FOLDER_ENTRIES:
                return Path(shown)
            entry = os.path.join(current, name)
            mode = os.lstat(entry).st_mode
            if stat.S_ISLNK(mode):
                raise UnsafeOutput(entry, "is a symbolic link inside the output folder; remove it or choose "
                                          "another --out")
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise UnsafeOutput(entry, f"is {_kind(mode)} inside the output folder; remove it or choose another "
                                          "--out")
    return Path(shown)


def _existing_mode(path: str) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def _create_temp(directory: str) -> tuple[int, str]:
    """A new file with a short random name (13 characters: fits beside any valid name)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(directory, f".{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "could not create a temporary file", directory)


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _fsync_directory(directory: str) -> None:
    """Make the rename durable where the platform allows it (best effort)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
