"""The keys reached calls put in a callee's dict inputs, and which parameters a call fills.

A call `policy.step({"obs": o, "goal": g})`, `self.net(**feed)` or `self.net(feed)` decides which keys the
callee's dict parameter (or its `**kwargs`) holds: the keys of a dict literal (or of a local filled only under
literal keys, or `dict(obs=o)`), or the keys the caller's own dict input holds, as its callers decided them
(so keys travel through hops). `**feed` with known keys fills only the parameters those keys name: the others
keep their defaults (`expert=None`), so the blocks that test them are decided (`model.held_keys`,
`model.kwarg_tests`, `model.fold`). A dict of unknown keys (a library's result, `{**base}`, a parameter no
reached call fixes) leaves every key possible, as before.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.held_keys import KWARG_KEYS, PARAM_KEYS, keyed_params, kwargs_rebound
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.resolve_sites import calls_named
from leapp_codemod.analysis.model.settings import literal_items, unpacked_items
from leapp_codemod.analysis.model.walk import UNKNOWN


def input_keys(fn: FunctionInfo, expr: ast.expr, mine: dict) -> set[str] | None:
    """The keys the dict `expr` (in `fn`) can hold, when they are known: a literal, a local filled under
    literal keys, `dict(k=...)`, or `fn`'s own `**kwargs` / dict parameter whose keys its reached calls name."""
    items = unpacked_items(fn, expr)
    if items is not None:
        return {key for key, _ in items}
    if not isinstance(expr, ast.Name) or kwargs_rebound(fn, expr.id):
        return None
    own = fn.node.args.kwarg.arg if fn.node.args.kwarg is not None else None
    held = mine.get(KWARG_KEYS) if expr.id == own else \
        mine.get(PARAM_KEYS + expr.id) if expr.id in keyed_params(fn) else None
    return set(held) if held and UNKNOWN not in held else None


def spread_items(fn: FunctionInfo, expr: ast.expr, mine: dict) -> list[tuple[str, ast.expr]] | None:
    """(key, value) of `**expr`: the literal's items, or each known key with the whole dict as its value."""
    items = unpacked_items(fn, expr)
    if items is not None:
        return items
    keys = input_keys(fn, expr, mine)
    return None if keys is None else [(key, expr) for key in sorted(keys)]


def record_dict_keys(facts, ctx, callee: FunctionInfo, pairs: list[tuple[str, ast.expr]]) -> None:
    """The keys this call puts in each dict parameter of `callee` (UNKNOWN when they are not known)."""
    keyed = keyed_params(callee)
    if not keyed:
        return
    mine = facts.param_constants.get(ctx.fn.id, {})
    table = facts.param_constants.setdefault(callee.id, {})
    for param, arg in pairs:
        if param in keyed:
            keys = input_keys(ctx.fn, arg, mine)
            table.setdefault(PARAM_KEYS + param, set()).update({UNKNOWN} if keys is None else keys)


def entry_dict_keys(project, fn: FunctionInfo) -> dict[str, set]:
    """The entry's dict parameters whose keys every project call of it names (`agent.act({"obs": o})` or a
    name its scope binds once to such a literal): {PARAM_KEYS + parameter: keys}. No call, or one passing
    anything else, leaves the parameter open."""
    keyed = keyed_params(fn)
    positional = fn.positional_params[1:] if fn.is_method else fn.positional_params
    out: dict[str, set] = {}
    open_params: set[str] = set()
    for call, scope, module in calls_named(project).get(fn.name, ()) if keyed else ():
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return {}
        passed = {positional[i]: a for i, a in enumerate(call.args) if i < len(positional)}
        passed |= {k.arg: k.value for k in call.keywords}
        for param in keyed:
            keys = _scope_keys(passed.get(param), scope, module)
            if keys is None:
                open_params.add(param)
            else:
                out.setdefault(PARAM_KEYS + param, set()).update(keys)
    return {key: keys for key, keys in out.items() if key[len(PARAM_KEYS):] not in open_params}


def _scope_keys(arg: ast.expr | None, scope: dict, module) -> set[str] | None:
    """The keys of a dict literal, or of a name its scope binds once to one and never fills or updates."""
    if isinstance(arg, ast.Name) and len(scope.get(arg.id, ())) == 1:
        if any(isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)
               and n.value.id == arg.id or isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
               and n.value.id == arg.id for n in module.nodes):
            return None   # `batch["goal"] = g` or `batch.update(...)` somewhere in the module
        arg = scope[arg.id][0]
    items = literal_items(arg) if arg is not None else None
    return None if items is None else {key for key, _ in items}


def param_map(callee: FunctionInfo, call: ast.Call, bound: bool, caller=None,
              mine: dict | None = None) -> list[tuple[str, ast.expr]]:
    """(parameter, argument) pairs of a call; `**d` whose keys are known fills only the parameters they name."""
    params = callee.positional_params
    if bound and params:
        params = params[1:]
    pairs: list[tuple[str, ast.expr]] = []
    vararg = callee.node.args.vararg.arg if callee.node.args.vararg else None
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            pairs += [(p, arg.value) for p in params[i:]]
            if vararg:
                pairs.append((vararg, arg.value))
            break
        if i < len(params):
            pairs.append((params[i], arg))
        elif vararg:
            pairs.append((vararg, arg))
    kwarg = callee.node.args.kwarg.arg if callee.node.args.kwarg else None
    named = {kw.arg for kw in call.keywords if kw.arg}
    for kw in call.keywords:
        items = spread_items(caller, kw.value, mine or {}) if kw.arg is None and caller is not None else None
        if items is not None:   # `**kwargs` whose keys are known: only those are passed
            pairs += [(k if k in callee.params else kwarg, v) for k, v in items if k in callee.params or kwarg]
        elif kw.arg is None:  # `**kwargs` fills the parameters nothing else passes
            taken = {p for p, _ in pairs} | named | ({callee.positional_params[0]} if bound and params else set())
            pairs += [(p, kw.value) for p in callee.params if p not in taken]
        elif kw.arg in callee.params:
            pairs.append((kw.arg, kw.value))
        elif kwarg:
            pairs.append((kwarg, kw.value))
    return pairs
