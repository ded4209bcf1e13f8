"""The keys a function's `**kwargs` can hold, followed through the calls that hand them on, and what
`kwargs.get("key", default)` is when no call passes the key."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.settings import unpacked_items
from leapp_codemod.analysis.model.walk import UNKNOWN

KWARG_KEYS = "<keys of **kwargs>"   # constants key: the keywords a function's `**kwargs` can hold (UNKNOWN: any)
KEY_VALUES = "<**kwargs value>:"    # constants key prefix: the values one key of `**kwargs` holds


def record_keyword_keys(facts, ctx, callee, call: ast.Call) -> None:
    """The keys this call can put in the callee's `**kwargs`: keywords it names that are no parameter, the known
    keys of a `**literal`, or the keys the caller's own `**kwargs` can hold when it hands them on."""
    kwarg = callee.node.args.kwarg
    if kwarg is None:
        return
    keys: set = set()
    values: dict[str, set] = {}   # what each key holds: `**{"target": target}` with the caller's `target=None`
    own = ctx.fn.node.args.kwarg.arg if ctx.fn.node.args.kwarg is not None else None
    mine = facts.param_constants.get(ctx.fn.id, {})
    params = set(callee.params)
    for kw in call.keywords:
        if kw.arg is not None:
            if kw.arg not in params:
                keys.add(kw.arg)
                values.setdefault(kw.arg, set()).update(_value(kw.value, ctx, mine))
        elif isinstance(kw.value, ast.Name) and kw.value.id == own and own not in _rebound(ctx.fn, own):
            keys |= set(mine.get(KWARG_KEYS, {UNKNOWN})) - params
            for key in keys - {UNKNOWN}:
                values.setdefault(key, set()).update(mine.get(KEY_VALUES + key, {UNKNOWN}))
        else:
            items = unpacked_items(ctx.fn, kw.value)
            if items is None:
                keys.add(UNKNOWN)
                continue
            for key, value in items:
                if key not in params:
                    keys.add(key)
                    values.setdefault(key, set()).update(
                        _value(value, ctx, mine) if not isinstance(value, ast.Subscript) else {UNKNOWN})
    table = facts.param_constants.setdefault(callee.id, {})
    table.setdefault(KWARG_KEYS, set()).update(keys)
    for key, held in values.items():
        table.setdefault(KEY_VALUES + key, set()).update(held)


def _value(value: ast.expr, ctx, mine: dict) -> set:
    """A literal, or the caller's own parameter every call fixes; UNKNOWN otherwise."""
    if isinstance(value, ast.Constant):
        return {value.value}
    if isinstance(value, ast.Name) and value.id in ctx.fn.params and mine.get(value.id) \
            and value.id not in _rebound(ctx.fn, value.id):
        return set(mine[value.id])
    return {UNKNOWN}


def _rebound(fn, name: str) -> set[str]:
    """{name} when the function stores into, rebinds or mutates its `**name` (then its keys are not the callers')."""
    for node in fn.nodes:
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return {name}
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and isinstance(node.ctx, ast.Store):
            return {name}
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "update", "setdefault") and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
            return {name}
    return set()


def absent_keyword(ctx, arg: ast.expr, mine: dict) -> set | None:
    """`kwargs.get("action_seq", None)` on the function's own `**kwargs` when no call passes that key: the
    default, as a constant (None when some call may pass it)."""
    own = ctx.fn.node.args.kwarg.arg if ctx.fn.node.args.kwarg is not None else None
    if own is None or not (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "get"
                           and isinstance(arg.func.value, ast.Name) and arg.func.value.id == own
                           and 1 <= len(arg.args) <= 2 and not arg.keywords
                           and isinstance(arg.args[0], ast.Constant) and isinstance(arg.args[0].value, str)):
        return None
    keys, key = mine.get(KWARG_KEYS), arg.args[0].value
    if keys is None or UNKNOWN in keys or own in _rebound(ctx.fn, own):
        return None
    if key in keys:   # passed: what every call puts there, when that is known
        held = mine.get(KEY_VALUES + key)
        return set(held) if held and UNKNOWN not in held else None
    default = arg.args[1] if len(arg.args) == 2 else ast.Constant(None)
    return {default.value} if isinstance(default, ast.Constant) else None
