"""`--add-noqa`: suppress the remaining findings with `# noqa: CODE` comments, as ruff does.

Each finding's first line gets `  # noqa: CODE` appended; a line that already has `# noqa: A, B` keeps
those codes and gains the new ones; a bare `# noqa` (or `# leapp: ignore`) already covers every code and
is left alone. Only files inside `root` (the project) are written, never an installed library's or a
generated integration module; a line whose end is inside a multi-line string or continued with a
backslash cannot take a comment and is reported instead. Files are written through `io_util.write_atomic`,
with their line endings kept.
"""
from __future__ import annotations

import io
import os
import re
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from leapp_codemod.model import Finding
from leapp_codemod.scan.suppressions import NOQA

BARE_IGNORE = re.compile(r"#\s*leapp:\s*ignore(?!\[)", re.I)


@dataclass
class NoqaReport:
    added: int = 0                                   # codes added
    files: list[str] = field(default_factory=list)   # files written
    skipped: list[str] = field(default_factory=list)  # one line each: why a finding got no comment


def _comment_lines(text: str) -> tuple[dict[int, tuple[int, str]], set[int]]:
    """Line -> (column, text) of its comment; and the lines that cannot take one (inside a multi-line
    string, or continued by a backslash)."""
    comments: dict[int, tuple[int, str]] = {}
    blocked: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = (tok.start[1], tok.string)
        elif tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
            blocked.update(range(tok.start[0], tok.end[0]))
    for number, line in enumerate(text.splitlines(), 1):
        if line.rstrip().endswith("\\") and number not in comments:
            blocked.add(number)
    return comments, blocked


def with_codes(line: str, comment: tuple[int, str] | None, codes: set[str]) -> str | None:
    """`line` with `codes` in its noqa comment, or None when it already suppresses them all."""
    if comment is not None:
        column, text = comment
        if BARE_IGNORE.search(text):
            return None
        match = NOQA.search(text)
        if match and match["codes"] is None:
            return None                  # a bare noqa comment covers every code
        if match:
            present = [c.upper() for c in re.split(r"[,\s]+", match["codes"]) if c]
            wanted = present + sorted(codes - set(present))
            if wanted == present:
                return None
            start = column + match.start()
            return line[:start] + f"# noqa: {', '.join(wanted)}" + line[column + match.end():]
    return f"{line.rstrip()}  # noqa: {', '.join(sorted(codes))}"


def add_noqa(findings: list[Finding], root: Path) -> NoqaReport:
    """Write the comments; returns what was added and what was skipped."""
    from leapp_codemod.io_util import write_atomic
    from leapp_codemod.resolved import is_generated
    report = NoqaReport()
    wanted: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for f in findings:
        wanted[f.path][f.line].add(f.code)
    root = root.resolve()
    for path, lines in sorted(wanted.items()):
        real = Path(path).resolve()
        if not real.is_relative_to(root) or "site-packages" in real.parts or is_generated(real):
            report.skipped.append(f"{path}: outside the project (or generated); not written")
            continue
        try:
            raw = real.read_bytes()
            text = raw.decode("utf-8")
            comments, blocked = _comment_lines(text)
        except (OSError, UnicodeDecodeError, tokenize.TokenError, SyntaxError) as exc:
            report.skipped.append(f"{path}: cannot be read as Python ({exc.__class__.__name__}); not written")
            continue
        newline = "\r\n" if b"\r\n" in raw else "\n"
        source = text.splitlines()
        added = 0
        for number, codes in sorted(lines.items()):
            if not 1 <= number <= len(source) or number in blocked:
                report.skipped.append(f"{path}:{number}: the line cannot take a comment ({', '.join(sorted(codes))})")
                continue
            changed = with_codes(source[number - 1], comments.get(number), codes)
            if changed is not None:
                added += len(codes - set(re.findall(r"[A-Z]+[0-9]+", source[number - 1].partition("#")[2])))
                source[number - 1] = changed
        if added:
            ending = newline if text.endswith(("\n", "\r")) else ""
            write_atomic(real, newline.join(source) + ending)
            report.added += added
            report.files.append(Path(os.path.normpath(path)).as_posix())
    return report
