"""The keys a function's `**kwargs` can hold, followed through the calls that hand them on, and what
`kwargs.get("key", default)` is when no call passes the key."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.kwarg_tests import KWARG_KEYS, kwargs_rebound
from leapp_codemod.analysis.flow.passed_keys import spread_items
from leapp_codemod.analysis.model.walk import UNKNOWN

KEY_VALUES = "<**kwargs value>:"    # constants key prefix: the values one key of `**kwargs` holds
VARARG_COUNTS = "<*args counts>"    # constants key: how many values a function's `*args` holds (UNKNOWN: any)


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
        elif isinstance(kw.value, ast.Name) and kw.value.id == own and not kwargs_rebound(ctx.fn, own):
            keys |= set(mine.get(KWARG_KEYS, {UNKNOWN})) - params
            for key in keys - {UNKNOWN}:
                values.setdefault(key, set()).update(mine.get(KEY_VALUES + key, {UNKNOWN}))
        else:
            items = spread_items(ctx.fn, kw.value, mine)   # a literal's keys, or a dict input's known keys
            if items is None:
                keys.add(UNKNOWN)
                continue
            for key, value in items:
                if key not in params:
                    keys.add(key)
                    values.setdefault(key, set()).update(
                        {UNKNOWN} if value is kw.value or isinstance(value, ast.Subscript) else _value(value, ctx, mine))
    table = facts.param_constants.setdefault(callee.id, {})
    table.setdefault(KWARG_KEYS, set()).update(keys)
    for key, held in values.items():
        table.setdefault(KEY_VALUES + key, set()).update(held)


def record_vararg_counts(facts, ctx, callee, call: ast.Call, bound: bool) -> None:
    """How many positional values this call puts in the callee's `*args` (counted through the caller's own
    `*args` when it hands them on), or UNKNOWN."""
    if callee.node.args.vararg is None:
        return
    named = len(callee.positional_params) - (1 if bound and callee.positional_params else 0)
    counts = {0}
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            handed = _own_vararg_counts(ctx, arg.value, facts.param_constants.get(ctx.fn.id, {}))
            counts = {UNKNOWN} if handed is None or UNKNOWN in counts else {c + h for c in counts for h in handed}
        elif UNKNOWN not in counts:
            counts = {c + 1 for c in counts}
    extra = {UNKNOWN} if UNKNOWN in counts else {max(c - named, 0) for c in counts}
    facts.param_constants.setdefault(callee.id, {}).setdefault(VARARG_COUNTS, set()).update(extra)


def _own_vararg_counts(ctx, value: ast.expr, mine: dict) -> set | None:
    own = ctx.fn.node.args.vararg.arg if ctx.fn.node.args.vararg is not None else None
    if own is None or not (isinstance(value, ast.Name) and value.id == own) or kwargs_rebound(ctx.fn, own):
        return None
    counts = mine.get(VARARG_COUNTS)
    return set(counts) if counts and UNKNOWN not in counts else None


def forwarded_settings(ctx, call: ast.Call, callee, bound: bool, pairs: list, mine: dict) -> tuple[list, dict[str, set]]:
    """`super().f(model, *args, **kwargs)` handing on the caller's own `*args` and `**kwargs`. When every call
    of the caller puts at most N values in its `*args`, only the next N parameters are filled by position; when
    every call names the keys of its `**kwargs`, a parameter no key fills is not passed (its default holds),
    and one whose key holds only constants (`clip=False` from every caller) receives those constants, not the
    whole dict. Returns the pairs still passed as expressions and {parameter: constants} of the settings."""
    own_kw = ctx.fn.node.args.kwarg.arg if ctx.fn.node.args.kwarg is not None else None
    keys = mine.get(KWARG_KEYS)
    forwards_kw = own_kw is not None and not kwargs_rebound(ctx.fn, own_kw) and any(
        kw.arg is None and isinstance(kw.value, ast.Name) and kw.value.id == own_kw for kw in call.keywords)
    known_keys = forwards_kw and bool(keys) and UNKNOWN not in keys
    positional = callee.positional_params[1:] if bound and callee.positional_params else callee.positional_params
    starred = [i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)]
    counts = _own_vararg_counts(ctx, call.args[starred[0]].value, mine) if len(starred) == 1 else None
    reached = set(positional[starred[0]:starred[0] + max(counts)]) if counts else None
    vararg_name = call.args[starred[0]].value.id if counts else None
    kept, fixed, named = [], {}, {kw.arg for kw in call.keywords if kw.arg}
    for param, arg in pairs:
        by_vararg = reached is not None and isinstance(arg, ast.Name) and arg.id == vararg_name
        if by_vararg and param in reached | {callee.node.args.vararg.arg if callee.node.args.vararg else None}:
            kept.append((param, arg))
            continue
        if by_vararg:   # past the values `*args` holds: filled by `**kwargs`, or not passed at all
            if not forwards_kw or param in named:
                continue
            arg = ast.Name(id=own_kw, ctx=ast.Load())
        if not (forwards_kw and isinstance(arg, ast.Name) and arg.id == own_kw and known_keys):
            kept.append((param, arg))
        elif param in keys:
            values = mine.get(KEY_VALUES + param)
            if values and UNKNOWN not in values:
                fixed[param] = set(values)
            else:
                kept.append((param, arg))
    return kept, fixed


def _value(value: ast.expr, ctx, mine: dict) -> set:
    """A literal, or the caller's own parameter every call fixes; UNKNOWN otherwise."""
    if isinstance(value, ast.Constant):
        return {value.value}
    if isinstance(value, ast.Name) and value.id in ctx.fn.params and mine.get(value.id) \
            and not kwargs_rebound(ctx.fn, value.id):
        return set(mine[value.id])
    return {UNKNOWN}


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
    if keys is None or UNKNOWN in keys or kwargs_rebound(ctx.fn, own):
        return None
    if key in keys:   # passed: what every call puts there, when that is known
        held = mine.get(KEY_VALUES + key)
        return set(held) if held and UNKNOWN not in held else None
    default = arg.args[1] if len(arg.args) == 2 else ast.Constant(None)
    return {default.value} if isinstance(default, ast.Constant) else None
