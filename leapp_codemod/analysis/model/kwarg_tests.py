"""Tests on the keys of a function's own `**kwargs` that its pipeline callers decide.

`def forward(self, joints=None, **extra): if "pose" in extra: ...` where every pipeline call names only
`gain=...` (or spreads a dict literal without `pose`): the key is never there, so the block is not the
pipeline. A key spelled like one of the function's parameters never lands in `**kwargs` at all (Python binds
it to the parameter), whatever the callers pass. Keys come from the calls the analysis follows
(`flow.kwarg_keys.record_keyword_keys`); a call that spreads a dict of unknown keys leaves every test open.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.fold import UNKNOWN

KWARG_KEYS = "<keys of **kwargs>"   # constants key: the keywords a function's `**kwargs` can hold (UNKNOWN: any)


def kwarg_outcome(test: ast.expr, fn, constants: dict[str, set]) -> bool | None:
    """The truth value of `"k" in kwargs`, `"k" not in kwargs`, `kwargs.get("k") is None`, `kwargs` (its
    truthiness) or `any(k in kwargs for k in ("a", "b"))` on the function's own `**kwargs`, when the keys
    decide it; None when they leave it open."""
    own = fn.node.args.kwarg.arg if fn.node.args.kwarg is not None else None
    if own is None or kwargs_rebound(fn, own):
        return None
    keys = constants.get(KWARG_KEYS)
    known = keys is not None and UNKNOWN not in keys
    absent = _absent_key(fn, own, keys if known else None)
    if isinstance(test, ast.Name) and test.id == own:
        return False if known and not keys else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.In, ast.NotIn)) \
            and isinstance(test.comparators[0], ast.Name) and test.comparators[0].id == own:
        key = test.left.value if isinstance(test.left, ast.Constant) and isinstance(test.left.value, str) else None
        if key is None or not absent(key):
            return None
        return isinstance(test.ops[0], ast.NotIn)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        key = _get_key(test.left, own)
        if key is None or not absent(key):
            return None
        return isinstance(test.ops[0], ast.Is)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "any" \
            and len(test.args) == 1 and isinstance(test.args[0], ast.GeneratorExp):
        listed = _membership_keys(test.args[0], own)
        return False if listed is not None and all(absent(k) for k in listed) else None
    return None


def _absent_key(fn, own: str, keys: set | None):
    """key -> True when no pipeline call can put `key` in `**own`: it names a parameter that a keyword binds
    (not a positional-only one), or the known keys lack it."""
    args = fn.node.args
    params = {a.arg for a in (*args.args, *args.kwonlyargs)}
    return lambda key: key in params or (keys is not None and key not in keys)


def _get_key(expr: ast.expr, own: str) -> str | None:
    """"k" of `own.get("k")` / `own.get("k", None)`."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get" \
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id == own and not expr.keywords \
            and 1 <= len(expr.args) <= 2 and isinstance(expr.args[0], ast.Constant) \
            and isinstance(expr.args[0].value, str) \
            and (len(expr.args) == 1 or isinstance(expr.args[1], ast.Constant) and expr.args[1].value is None):
        return expr.args[0].value
    return None


def _membership_keys(gen: ast.GeneratorExp, own: str) -> list[str] | None:
    """("a", "b") of `k in own for k in ("a", "b")` (a literal list, tuple or set of strings)."""
    if len(gen.generators) != 1:
        return None
    loop = gen.generators[0]
    elt = gen.elt
    if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name) \
            or not isinstance(loop.iter, (ast.List, ast.Tuple, ast.Set)):
        return None
    if not (isinstance(elt, ast.Compare) and len(elt.ops) == 1 and isinstance(elt.ops[0], ast.In)
            and isinstance(elt.left, ast.Name) and elt.left.id == loop.target.id
            and isinstance(elt.comparators[0], ast.Name) and elt.comparators[0].id == own):
        return None
    items = loop.iter.elts
    if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in items):
        return None
    return [e.value for e in items]


def kwargs_rebound(fn, name: str) -> bool:
    """Does the function store into, rebind or fill `name` (its `**kwargs`: then its keys are not the callers')?"""
    changed = fn.walks.get("names_changed")
    if changed is None:   # once per function: every `If` of it asks
        changed = fn.walks["names_changed"] = set()
        for node in fn.nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                changed.add(node.id)
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Store):
                changed.add(node.value.id)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "update", "setdefault") and isinstance(node.func.value, ast.Name):
                changed.add(node.func.value.id)
    return name in changed
