"""Read and parse one file defensively: bad input becomes a FileError, never a crash."""
from __future__ import annotations

import ast
import io
import sys
import tokenize
import warnings
from dataclasses import dataclass

from leapp_codemod.config import DEFAULT_MAX_FILE_MB
from leapp_codemod.model import FileError
from leapp_codemod.source.files import SourceFile

# Files above MAX_FILE_BYTES (configurable: `[tool.leapp-codemod] max-file-mb`) are skipped with one
# line. Files above WHOLE_FILE_BYTES are parsed and analyzed in segments of about SEGMENT_BYTES of
# whole top-level statements, so peak memory stays near what one segment's tree costs (`ast` needs
# about 200 bytes per byte of source) plus the text itself, whatever the file's size.
MAX_FILE_BYTES = DEFAULT_MAX_FILE_MB * 2**20
WHOLE_FILE_BYTES = 2 * 1024 * 1024
SEGMENT_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ParsedFile:
    source: SourceFile
    text: str
    tree: ast.Module


def decode(raw: bytes) -> str:
    """Decode with the file's PEP 263 / BOM encoding (default UTF-8)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return raw.decode(encoding)


# The parser builds trees up to 3 x (recursion limit - current depth) levels deep. Parsing with
# PARSE_FRAMES frames to spare bounds every tree the tool analyzes to about 3,000 levels; analysis
# then runs with ANALYSIS_FRAMES, enough for its recursive walks (a few frames per level) over such
# a tree. Deeper code is a FileError at parse time, never a RecursionError later.
PARSE_FRAMES = 1000
ANALYSIS_FRAMES = 20_000


def parse_text(text: str, filename: str) -> ast.Module:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(_depth() + PARSE_FRAMES)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for invalid escapes is not ours to report
            return ast.parse(text, filename=filename, type_comments=False)
    finally:
        sys.setrecursionlimit(max(previous, ANALYSIS_FRAMES))


def _depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def parse_file(src: SourceFile, max_bytes: int = MAX_FILE_BYTES) -> ParsedFile | FileError:
    """The whole file parsed (files up to WHOLE_FILE_BYTES; see `parse_segments` for larger ones)."""
    text = read_source(src, max_bytes)
    return text if isinstance(text, FileError) else parse_source(src, text)


def parse_source(src: SourceFile, text: str) -> ParsedFile | FileError:
    try:
        tree = parse_text(text, src.display)
    except SyntaxError as exc:
        tree = _parse_newer_grammar(text, src.display)
        if tree is None:
            return _parse_error(src, exc)
    except (RecursionError, ValueError, MemoryError) as exc:
        return _parse_error(src, exc)
    return ParsedFile(src, text, tree)


def read_source(src: SourceFile, max_bytes: int = MAX_FILE_BYTES) -> str | FileError:
    try:
        raw = _read_regular(src.path, max_bytes)
    except _TooBig as exc:
        size, limit = _size(exc.size), _size(max_bytes)
        if size == limit:       # "1 KiB, above the 1 KiB limit": say it in bytes
            size, limit = f"{exc.size} bytes", f"{max_bytes} bytes"
        return FileError(src.display, f"file is {size}, above the {limit} limit (max-file-mb); skipped")
    except OSError as exc:
        return FileError(src.display, f"cannot read file: {exc.strerror or exc}")
    try:
        return decode(raw)
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        return FileError(src.display, f"cannot decode file: {str(exc).splitlines()[0]}")


class _TooBig(Exception):
    def __init__(self, size: int):
        self.size = size


def _read_regular(path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most `max_bytes`: opened without blocking (a FIFO named
    `x.py` does not hang), checked on the open descriptor, read no further than the limit."""
    import os
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(0, "not a regular file; skipped", str(path))
        if st.st_size > max_bytes:
            raise _TooBig(st.st_size)
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _TooBig(len(data))
    return data


def read_regular_text(path, max_bytes: int) -> str | None:
    """The text of a regular file of at most `max_bytes` (not a link, a FIFO or a device), or None."""
    import os

    if os.path.islink(path):
        return None
    try:
        return _read_regular(path, max_bytes).decode("utf-8", errors="replace")
    except (OSError, _TooBig):
        return None


def _size(size: int) -> str:
    if size >= 2**20:
        return f"{size / 2**20:.1f} MiB"
    return f"{size // 1024} KiB" if size >= 1024 else f"{size} bytes"


def _parse_error(src: SourceFile, exc: Exception, first_line: int = 1) -> FileError:
    if isinstance(exc, SyntaxError):
        where = f"line {exc.lineno + first_line - 1}: " if exc.lineno else ""
        return FileError(src.display, f"syntax error: {where}{exc.msg}")
    if isinstance(exc, RecursionError):
        return FileError(src.display, f"nested more than {3 * PARSE_FRAMES} levels deep; skipped")
    return FileError(src.display, f"cannot parse file: {exc.__class__.__name__}: {str(exc)[:120]}")


def parse_segments(src: SourceFile, text: str, segment_bytes: int = SEGMENT_BYTES):
    """The file as consecutive ParsedFiles of whole top-level statements, about `segment_bytes` of
    source each, with the file's true line numbers. Each segment's tree starts with the top-level
    imports of the segments before it, so names keep resolving; calls between segments are not
    followed. Yields a FileError (and stops) where the file does not parse."""
    lines = text.splitlines(keepends=True)
    imports: list[ast.stmt] = []
    start, size, cut_at = 0, 0, segment_bytes
    for number, line in enumerate(lines):
        size += len(line)
        at_end = number == len(lines) - 1
        if not at_end and (size < cut_at or not _may_start_statement(lines[number + 1])):
            continue
        chunk = "".join(lines[start:number + 1])
        try:
            tree = parse_text(chunk, src.display)
        except SyntaxError as exc:
            if not at_end:      # the cut falls inside a statement (a string, brackets): take more lines
                cut_at = size + segment_bytes // 4
                continue
            yield _parse_error(src, exc, start + 1)
            return
        except (RecursionError, ValueError, MemoryError) as exc:
            yield _parse_error(src, exc, start + 1)
            return
        ast.increment_lineno(tree, start)
        body = [*imports, *tree.body]
        imports += [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        yield ParsedFile(src, "\n" * start + chunk, ast.Module(body=body, type_ignores=[]))
        start, size, cut_at = number + 1, 0, segment_bytes


def _may_start_statement(line: str) -> bool:
    """A line at column 0 that may begin a new top-level statement (not `else:`, `except`, ...)."""
    head = line[:1]
    if not (head.isalpha() or head in "_@"):
        return False
    word = line.split(None, 1)[0].rstrip(":") if line.strip() else ""
    return word not in ("else", "elif", "except", "finally", "case")


def _parse_newer_grammar(text: str, filename: str) -> ast.Module | None:
    """Grammar newer than this interpreter's (PEP 695): read with LibCST, re-emitted line for line."""
    from leapp_codemod.source.newer_grammar import downlevel  # LibCST costs its import only here
    rewritten = downlevel(text)
    if rewritten is None or rewritten == text:
        return None
    try:
        return parse_text(rewritten, filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def is_literal(node: ast.expr) -> bool:
    """True when `node` is a Python literal (`ast.literal_eval` accepts it)."""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True
