"""Read and parse one file defensively: bad input becomes a FileError, never a crash."""
from __future__ import annotations

import ast
import io
import tokenize
import warnings
from dataclasses import dataclass

from leapp_codemod.model import FileError
from leapp_codemod.source.files import SourceFile

# Generated multi-megabyte files are not hand-written pipeline code; parsing them costs
# memory and time that a pre-commit hook cannot spend.
MAX_FILE_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class ParsedFile:
    source: SourceFile
    text: str
    tree: ast.Module


def decode(raw: bytes) -> str:
    """Decode with the file's PEP 263 / BOM encoding (default UTF-8)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return raw.decode(encoding)


def parse_text(text: str, filename: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for invalid escapes is not ours to report
        return ast.parse(text, filename=filename, type_comments=False)


def parse_file(src: SourceFile, max_bytes: int = MAX_FILE_BYTES) -> ParsedFile | FileError:
    try:
        size = src.path.stat().st_size
        if size > max_bytes:
            return FileError(src.display, f"file is {size // 1024} KiB, above the {max_bytes // 1024} KiB limit; skipped")
        raw = src.path.read_bytes()
    except OSError as exc:
        return FileError(src.display, f"cannot read file: {exc.strerror or exc}")
    try:
        text = decode(raw)
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        return FileError(src.display, f"cannot decode file: {str(exc).splitlines()[0]}")
    try:
        tree = parse_text(text, src.display)
    except SyntaxError as exc:
        tree = _parse_newer_grammar(text, src.display)
        if tree is None:
            where = f"line {exc.lineno}: " if exc.lineno else ""
            return FileError(src.display, f"syntax error: {where}{exc.msg}")
    except (ValueError, RecursionError, MemoryError) as exc:
        return FileError(src.display, f"cannot parse file: {exc.__class__.__name__}: {str(exc)[:120]}")
    return ParsedFile(src, text, tree)


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
