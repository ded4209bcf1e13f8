"""Where an input element the export does not use was read: the application lines that executed during
the recorded calls and read that element of an array (`q_w = q[3]` for `base_quat[3]`), the scan's
findings on them first, and the replacement that handled the function holding the line, if any. Such a
read turns the element into a NumPy scalar the trace does not follow. Pure: reads source files only."""
from __future__ import annotations

import ast
import functools
import os
import re

_ELEMENT = re.compile(r"^(?P<leaf>[\w.]+)\[(?P<index>\d+)\]$")
LIMIT = 3       # lines named per element


@functools.lru_cache(maxsize=64)
def _parsed(path: str) -> tuple[ast.Module | None, tuple[str, ...]]:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        return ast.parse(text), tuple(text.splitlines())
    except (OSError, SyntaxError, ValueError):
        return None, ()


def _reads(tree: ast.Module, index: int) -> dict[int, str]:
    """line -> the function holding it, for the lines that read `name[index]` (a plain name, a literal
    integer position, not a write)."""
    out: dict[int, str] = {}
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name)
                and isinstance(node.slice, ast.Constant) and node.slice.value == index
                and type(node.slice.value) is int):
            holder = min((f for f in functions if f.lineno <= node.lineno <= (f.end_lineno or f.lineno)),
                         key=lambda f: (f.end_lineno or f.lineno) - f.lineno, default=None)
            out.setdefault(node.lineno, holder.name if holder else "")
    return out


def _statement(tree: ast.Module, text: tuple[str, ...], line: int) -> str:
    """The first line of the statement starting on `line` (its source, without a trailing comment)."""
    stmt = next((n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno == line), None)
    segment = ast.get_source_segment("\n".join(text), stmt) if stmt is not None else None
    first = (segment or (text[line - 1] if line <= len(text) else "")).splitlines()
    return first[0].strip() if first else ""


def _shown(path: str, findings: tuple[str, ...], cwd: str) -> str:
    """The path as the scan's findings name it (relative to the application's parent), else relative to cwd."""
    posix = path.replace(os.sep, "/")
    for f in findings:
        name = f.split(":", 1)[0]
        if name and posix.endswith("/" + name.lstrip("./")):
            return name
    try:
        return os.path.relpath(path, cwd)
    except ValueError:
        return path


def element_reads(element: str, executed: dict[str, list[int]] | None, findings: tuple[str, ...],
                  replacements: dict[str, str], cwd: str = "") -> list[str]:
    """`path:line (`code`)` of the executed lines that read the element's position of an array, the lines
    a scan finding names first; `replacements`: function name -> the replacement that handled it (named
    after the line). Only for an element of a one-axis input (`quat[3]`)."""
    m = _ELEMENT.match(element)
    if not m or not executed:
        return []
    index = int(m.group("index"))
    flagged = {f.split(" ", 1)[0] for f in findings}
    found = []
    for path, lines in sorted(executed.items()):
        tree, text = _parsed(path)
        if tree is None:
            continue
        reads = _reads(tree, index)
        shown = _shown(path, findings, cwd or os.getcwd())
        for line in sorted(set(lines) & set(reads)):
            code = _statement(tree, text, line)
            by = replacements.get(reads[line])
            note = f", in {reads[line]}, which the replacement {by} handles" if by else ""
            found.append((f"{shown}:{line}" not in flagged, f"{shown}:{line} (`{code}`{note})"))
    return [row for _, row in sorted(found, key=lambda r: r[0])][:LIMIT]


def name_reads(report: dict, attempt: dict, findings: tuple[str, ...], executed: dict | None) -> None:
    """A validation failure on an input element the export ignores: the error names the lines that read
    it (`dropped_element_reads`)."""
    used = ((attempt.get("validation") or {}).get("across_run") or {}).get("inputs_used") or {}
    replacements = {p["patch"].rsplit(".", 1)[-1]: p["replacement"] for p in report.get("patch_parity", [])
                    if p.get("patch") and p.get("replacement")}
    rows = {}
    for f in used.get("findings", []):
        if f.get("kind") == "ignored":
            reads = element_reads(f["element"], executed, findings, replacements)
            if reads:
                rows[f["element"]] = reads
    if not rows:
        return
    report["dropped_element_reads"] = rows
    for element, reads in rows.items():
        phrase = f"input `{element}` is not used by the export"
        report["error"] = report.get("error", "").replace(
            phrase, f"{phrase} (read at {'; '.join(reads)}: a NumPy scalar the trace does not follow)", 1)
