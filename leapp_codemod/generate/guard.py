"""The edit guard of a generated module, and the carry-over of what the user wrote in it.

A generated module records a fingerprint of each top-level definition it wrote (and one of the
rest of the module). A fingerprint hashes the code's syntax tree and the text of its comments, so
reformatting (a formatter, another line length, quotes, trailing commas, moved comments) is not
an edit. On regeneration a definition whose fingerprint no longer matches was written by the
user and is carried over by name into the new module; if the generator's own version of it
changed too, that is a conflict: the user's version is kept and the conflict reported.
Edits outside the definitions (the module-level constants) stop the regeneration.
"""
from __future__ import annotations

import ast
import difflib
import hashlib
import io
import re
import tokenize
from dataclasses import dataclass, field

from leapp_codemod.knowledge.leapp import GENERATED_HEADER

HEADER_PREFIX = GENERATED_HEADER
HEADER_RE = re.compile("^" + re.escape(GENERATED_HEADER) + r"([0-9a-f]{64})[ \t]*$", re.M)


def is_generated_text(text: str) -> bool:
    """The text is a module leapp-codemod generated (its sealed header is there)."""
    return HEADER_RE.search(text) is not None
BLOCK_TITLE = "# leapp-codemod fingerprints (let `generate` keep the definitions you edit):"
ENTRY_RE = re.compile(r"^# (\S+) ([0-9a-f]{16})[ \t]*$")
REST = "<module>"
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
KEPT_TITLE = "# Kept from the previous version: no longer generated, edited by hand."


class OverwriteRefused(Exception):
    """The output file exists and regenerating it would lose what the user wrote."""


@dataclass(frozen=True)
class Definition:
    name: str
    first: int   # 1-based first line (decorators included)
    last: int    # 1-based last line


@dataclass
class Merge:
    """What regeneration keeps from the existing module."""

    text: str
    kept: list[str] = field(default_factory=list)        # edited definitions carried over
    conflicts: list[str] = field(default_factory=list)   # edited, and the generated version changed too
    orphans: list[str] = field(default_factory=list)     # edited, no longer generated: kept at the end
    conflict_diffs: list[str] = field(default_factory=list)


def _is_tool_comment(text: str) -> bool:
    return text.startswith(HEADER_PREFIX) or text in (BLOCK_TITLE, KEPT_TITLE) or bool(ENTRY_RE.match(text))


def _comments(text: str) -> list[tuple[int, str]]:
    """(line, normalized text) of every comment except the guard's own."""
    out = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT and not _is_tool_comment(token.string.rstrip()):
            out.append((token.start[0], token.string.lstrip("#").strip()))
    return out


def definitions(tree: ast.Module) -> list[Definition]:
    out = []
    for node in tree.body:
        if isinstance(node, DEFINITIONS):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.append(Definition(node.name, first, node.end_lineno or node.lineno))
    return out


def _normalized_docstrings(tree: ast.AST) -> ast.AST:
    """Docstrings compared without their indentation and trailing blanks (formatters rewrite those)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, *DEFINITIONS)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                lines = [line.strip() for line in first.value.value.strip().splitlines()]
                first.value.value = "\n".join(lines)
    return tree


def _digest(parts: list[str]) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def fingerprints(text: str) -> dict[str, str]:
    """Fingerprint of each top-level definition by name, and of the rest of the module (`REST`).

    Raises SyntaxError (or tokenize.TokenError) when `text` is not Python.
    """
    tree = _normalized_docstrings(ast.parse(text))
    comments = _comments(text)
    defs = {d.name: d for d in definitions(tree)}
    nodes = {node.name: node for node in tree.body if isinstance(node, DEFINITIONS)}
    out = {}
    for name, node in nodes.items():
        span = defs[name]
        inside = [c for line, c in comments if span.first <= line <= span.last]
        out[name] = _digest([ast.dump(node)] + inside)
    rest_nodes = [node for node in tree.body if not isinstance(node, DEFINITIONS)]
    outside = [c for line, c in comments if not any(d.first <= line <= d.last for d in defs.values())]
    out[REST] = _digest([ast.dump(ast.Module(body=rest_nodes, type_ignores=[]))] + outside)
    return out


def module_digest(prints: dict[str, str]) -> str:
    return hashlib.sha256("\n".join(f"{k} {v}" for k, v in sorted(prints.items())).encode()).hexdigest()


def sealed(body: str) -> str:
    """`body` with the header line and the fingerprint block that let `generate` recognize it later."""
    prints = fingerprints(body)
    block = "\n".join([BLOCK_TITLE] + [f"# {name} {value}" for name, value in sorted(prints.items())])
    return f"{HEADER_PREFIX}{module_digest(prints)}\n{body.rstrip()}\n\n\n{block}\n"


def recorded(text: str) -> dict[str, str] | None:
    """The fingerprints a generated module recorded, or None when it has none."""
    lines = text.splitlines()
    try:
        start = len(lines) - 1 - lines[::-1].index(BLOCK_TITLE)
    except ValueError:
        return None
    out = {}
    for line in lines[start + 1:]:
        match = ENTRY_RE.match(line.strip())
        if match:
            out[match.group(1)] = match.group(2)
    return out


def merge(path_name: str, existing: str, generated: str) -> Merge:
    """The regenerated module `generated` with the definitions the user edited in `existing` carried over.

    Raises OverwriteRefused when `existing` was not generated, or was edited outside its definitions.
    """
    if not is_generated_text(existing):
        raise OverwriteRefused(f"{path_name}: exists and was not generated by leapp-codemod; "
                               f"use --force to replace it")
    before = recorded(existing)
    try:
        current = fingerprints(existing)
    except (SyntaxError, ValueError, tokenize.TokenError) as exc:
        raise OverwriteRefused(f"{path_name}: is not valid Python any more ({exc.__class__.__name__}); fix it or "
                               f"use --force to replace it") from None
    if before is None:
        raise OverwriteRefused(f"{path_name}: was generated by an older leapp-codemod and cannot be merged; "
                               f"use --force to replace it")
    if current == before:
        return Merge(generated)
    if current.get(REST) != before.get(REST):
        raise OverwriteRefused(f"{path_name}: was edited outside its functions (module-level code); move the "
                               f"change into a function or use --force to replace it")
    fresh = recorded(generated) or {}
    edited = [name for name in current if name != REST and current[name] != before.get(name)]
    return _carry_over(existing, generated, edited, before, fresh)


def _segments(text: str) -> dict[str, str]:
    lines = text.splitlines()
    return {d.name: "\n".join(lines[d.first - 1:d.last]) for d in definitions(ast.parse(text))}


def _carry_over(existing: str, generated: str, edited: list[str], before: dict, fresh: dict) -> Merge:
    theirs = _segments(existing)
    ours = _segments(generated)
    outcome = Merge(generated)
    lines = generated.splitlines()
    spans = {d.name: d for d in definitions(ast.parse(generated))}
    for name in sorted(edited, key=lambda n: -spans[n].first if n in spans else 0):
        if name not in spans:
            continue
        span = spans[name]
        lines[span.first - 1:span.last] = theirs[name].splitlines()
        outcome.kept.append(name)
        if name in before and fresh.get(name) != before[name]:
            outcome.conflicts.append(name)
            outcome.conflict_diffs.append("".join(difflib.unified_diff(
                (theirs[name] + "\n").splitlines(keepends=True), (ours[name] + "\n").splitlines(keepends=True),
                f"{name} (yours, kept)", f"{name} (generated now)")))
    orphans = [name for name in edited if name not in spans]
    if orphans:
        block_at = lines.index(BLOCK_TITLE) if BLOCK_TITLE in lines else len(lines)
        extra = ["", "", KEPT_TITLE]
        for name in orphans:
            extra += ["", "", *theirs[name].splitlines()]
        lines[block_at:block_at] = extra + ["", ""]
        outcome.orphans = orphans
    outcome.kept.sort()
    outcome.text = "\n".join(lines) + "\n"
    return outcome


def unified_diff(path_name: str, old: str | None, new: str) -> str:
    return "".join(difflib.unified_diff((old or "").splitlines(keepends=True), new.splitlines(keepends=True),
                                        f"{path_name} (on disk)" if old is not None else "/dev/null",
                                        f"{path_name} (regenerated)"))


def same_content(old: str, new: str) -> bool:
    """Whether two versions of a module differ only in layout (what --check compares)."""
    try:
        return fingerprints(old) == fingerprints(new)
    except (SyntaxError, ValueError, tokenize.TokenError):
        return False
