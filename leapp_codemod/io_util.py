"""Small file-system helpers shared by the commands."""
from __future__ import annotations

import os
import secrets
import stat


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8) to `path` the way a shell redirection would, without ever replacing a special file.

    * A regular file (or a new one) is replaced atomically: the data goes to a temporary file in the
      same directory, is flushed to disk and then renamed over `path`, so readers see the old file or
      the new one, never a part. On any error the temporary file is removed and `path` is left as it
      was. An existing file keeps its permission bits; a new one gets the usual mode for new files
      (0o666 less the umask).
    * A symbolic link is followed: the atomic replace happens at the file it resolves to, and the link
      itself stays.
    * A character or block device, a FIFO or a socket (`/dev/null`, `/dev/stdout`, a named pipe) is
      opened and written directly, never replaced.
    """
    target = os.fspath(path)
    if _is_special(target):
        _write_through(target, text)
        return
    _replace_atomically(_resolve_links(target), text)


def _is_special(path: str) -> bool:
    """True for an existing target (after following links) that is neither a regular file nor a folder."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _resolve_links(path: str) -> str:
    """The file a chain of symbolic links ends at (it may not exist yet); `path` itself otherwise."""
    if not os.path.islink(path):
        return path
    try:
        return os.path.realpath(path, strict=True)
    except FileNotFoundError:
        return os.path.realpath(path)  # a dangling link: write the file it names


def _write_through(path: str, text: str) -> None:
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
    with os.fdopen(os.open(path, flags), "w", encoding="utf-8", newline="") as handle:
        handle.write(text)


def _replace_atomically(target: str, text: str) -> None:
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
