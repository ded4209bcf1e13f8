"""Source in grammar newer than the running interpreter, re-emitted so stdlib `ast` can read it.

LibCST's parser does not depend on the running interpreter, so it reads PEP 695 syntax
(`def f[T](x: T)`, `class Box[T]:`, `type Alias = ...`) on any Python. The analysis needs
none of it: type parameter lists are dropped and `type X = v` becomes `X = v`. Every
statement keeps its line, so findings point at the original file.
"""
from __future__ import annotations

import re

import libcst as cst

# Only text that shows PEP 695 syntax goes to LibCST: its native parser can crash the process
# on pathologically nested input, which stdlib `ast` rejects with a clean error.
_NEWER_SYNTAX = re.compile(r"^[ \t]*(?:(?:async[ \t]+)?def[ \t]+\w+[ \t]*\[|class[ \t]+\w+[ \t]*\[|type[ \t]+\w+)",
                           re.MULTILINE)
_MAX_BRACKET_DEPTH = 100


class _DropTypeParameters(cst.CSTTransformer):
    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if updated.type_parameters is None:
            return updated
        return updated.with_changes(type_parameters=None,
                                    whitespace_after_type_parameters=cst.SimpleWhitespace(""))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        if updated.type_parameters is None:
            return updated
        return updated.with_changes(type_parameters=None,
                                    whitespace_after_type_parameters=cst.SimpleWhitespace(""))

    def leave_TypeAlias(self, original: cst.TypeAlias, updated: cst.TypeAlias) -> cst.Assign:
        return cst.Assign(targets=[cst.AssignTarget(updated.name)], value=updated.value,
                          semicolon=updated.semicolon)


def downlevel(text: str) -> str | None:
    """`text` rewritten without PEP 695 syntax, or None when it shows none or LibCST cannot parse it."""
    if not _NEWER_SYNTAX.search(text) or _bracket_depth(text) > _MAX_BRACKET_DEPTH:
        return None
    try:
        module = cst.parse_module(text)
        return module.visit(_DropTypeParameters()).code
    except Exception:  # noqa: BLE001 - LibCST's parser errors have no common base worth naming
        return None


def _bracket_depth(text: str) -> int:
    """Deepest bracket nesting, counting brackets inside strings too (an overestimate is safe)."""
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest
