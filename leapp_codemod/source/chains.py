"""Attribute chains in `ast` expressions: `a.b.c` as its root name and attributes."""
from __future__ import annotations

import ast

from leapp_codemod.knowledge.vocab import PROGRESS_RANGES, PROGRESS_WRAPPERS


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


def _called_name(expr: ast.AST) -> str | None:
    func = expr.func if isinstance(expr, ast.Call) else None
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def iterated_builtin(iterable: ast.AST) -> ast.Call | None:
    """The `range(...)` or `enumerate(...)` call a `for` loop iterates, seen through a progress bar around it
    (`tqdm(range(n))`, `tqdm.tqdm(enumerate(xs))`; `trange(n)` counts as `range(n)`); None otherwise."""
    for _ in range(3):
        name = _called_name(iterable)
        if name in ("range", "enumerate") and isinstance(iterable.func, ast.Name) or name in PROGRESS_RANGES:
            return iterable
        if name not in PROGRESS_WRAPPERS or not iterable.args:
            return None
        iterable = iterable.args[0]
    return None


def counter_kind(iterable: ast.AST) -> str | None:
    """'range' or 'enumerate' for what `iterated_builtin` finds (`trange` is a range)."""
    call = iterated_builtin(iterable)
    if call is None:
        return None
    name = _called_name(call)
    return "range" if name in PROGRESS_RANGES else name
