"""Small file-system helpers shared by the commands."""
from __future__ import annotations

import os
import secrets
import stat


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8) to `path` so that readers see the old file or the new one, never a part.

    The data goes to a temporary file in the same directory, is flushed to disk, and then
    replaces `path` with `os.replace`. On any error the temporary file is removed and `path`
    is left as it was. An existing file keeps its permission bits; a new one gets the usual
    mode for new files (0o666 less the umask).
    """
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    mode = _existing_mode(target)
    fd, tmp = _create_temp(directory, os.path.basename(target))
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        _remove_quietly(tmp)
        raise
    _fsync_directory(directory)


def _existing_mode(path: str) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def _create_temp(directory: str, name: str) -> tuple[int, str]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(directory, f".{name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file next to {name!r} in {directory!r}")


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
