"""Tests on the keys of a function's own `**kwargs` (or of a dict parameter) that its pipeline callers decide.

`def forward(self, joints=None, **extra): if "pose" in extra: ...` where every pipeline call names only
`gain=...` (or spreads a dict literal without `pose`): the key is never there, so the block is not the
pipeline. A key spelled like one of the function's parameters never lands in `**kwargs` at all (Python binds
it to the parameter), whatever the callers pass. Keys come from the calls the analysis follows
(`flow.kwarg_keys.record_keyword_keys`, `flow.passed_keys` for a dict parameter: `model.held_keys`); a call
that spreads or passes a dict of unknown keys leaves every test open.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.held_keys import KWARG_KEYS, absent_key, kwargs_rebound
from leapp_codemod.analysis.model.unknown import UNKNOWN

__all__ = ["KWARG_KEYS", "kwarg_outcome", "kwargs_rebound"]


def kwarg_outcome(test: ast.expr, fn, constants: dict[str, set]) -> bool | None:
    """The truth value of `"k" in kwargs`, `"k" not in kwargs`, `kwargs.get("k") is None`, `kwargs` (its
    truthiness) or `any(k in kwargs for k in ("a", "b"))` on the function's own `**kwargs`, or on a dict
    parameter whose keys the reached calls name (`held_keys`), when the keys decide it; None when they leave
    it open."""
    own = fn.node.args.kwarg.arg if fn.node.args.kwarg is not None else None
    if isinstance(test, ast.Name) and test.id == own and not kwargs_rebound(fn, own):
        keys = constants.get(KWARG_KEYS)
        return False if keys is not None and UNKNOWN not in keys and not keys else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.In, ast.NotIn)) \
            and isinstance(test.comparators[0], ast.Name):
        key = test.left.value if isinstance(test.left, ast.Constant) and isinstance(test.left.value, str) else None
        absent = absent_key(fn, test.comparators[0].id, constants)
        if key is None or absent is None or not absent(key):
            return None
        return isinstance(test.ops[0], ast.NotIn)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        held = _get_key(test.left)
        absent = absent_key(fn, held[0], constants) if held is not None else None
        if absent is None or not absent(held[1]):
            return None
        return isinstance(test.ops[0], ast.Is)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "any" \
            and len(test.args) == 1 and isinstance(test.args[0], ast.GeneratorExp):
        listed = _membership_keys(test.args[0])
        absent = absent_key(fn, listed[0], constants) if listed is not None else None
        return False if absent is not None and all(absent(k) for k in listed[1]) else None
    return None


def _get_key(expr: ast.expr) -> tuple[str, str] | None:
    """(held, "k") of `held.get("k")` / `held.get("k", None)`."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get" \
            and isinstance(expr.func.value, ast.Name) and not expr.keywords \
            and 1 <= len(expr.args) <= 2 and isinstance(expr.args[0], ast.Constant) \
            and isinstance(expr.args[0].value, str) \
            and (len(expr.args) == 1 or isinstance(expr.args[1], ast.Constant) and expr.args[1].value is None):
        return expr.func.value.id, expr.args[0].value
    return None


def _membership_keys(gen: ast.GeneratorExp) -> tuple[str, list[str]] | None:
    """(held, ["a", "b"]) of `k in held for k in ("a", "b")` (a literal list, tuple or set of strings)."""
    if len(gen.generators) != 1:
        return None
    loop = gen.generators[0]
    elt = gen.elt
    if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name) \
            or not isinstance(loop.iter, (ast.List, ast.Tuple, ast.Set)):
        return None
    if not (isinstance(elt, ast.Compare) and len(elt.ops) == 1 and isinstance(elt.ops[0], ast.In)
            and isinstance(elt.left, ast.Name) and elt.left.id == loop.target.id
            and isinstance(elt.comparators[0], ast.Name)):
        return None
    items = loop.iter.elts
    if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in items):
        return None
    return elt.comparators[0].id, [e.value for e in items]
