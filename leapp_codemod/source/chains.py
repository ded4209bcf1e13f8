"""Attribute chains in `ast` expressions: `a.b.c` as its root name and attributes."""
from __future__ import annotations

import ast


def attribute_chain(expr: ast.AST) -> tuple[str, tuple[str, ...]] | None:
    """('self', ('robot', 'q')) for `self.robot.q`, ('x', ()) for a bare name `x`, None for anything else
    (a call, a subscript or a literal at the root)."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    return expr.id, tuple(reversed(parts))
