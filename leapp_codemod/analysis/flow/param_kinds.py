"""What kind of array each call hands a parameter that the callee puts through a type test, or passes on.

Recorded next to the constants a call passes (`KIND_KEY + parameter`, see `analysis.model.kind_tests`): a
torch tensor when the argument is one by how it gets its value (a torch function's answer, a model's call, a
local whose binding reaching the call is one), a NumPy value likewise, None, or the caller's own parameter's
kinds when it hands that parameter on unchanged (a helper one call away). Anything else is `UNKNOWN`, which
leaves every test on the parameter open. A parameter a call leaves out holds its default.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.analysis.model.fold import UNKNOWN
from leapp_codemod.analysis.model.kind_tests import KIND_KEY, NONE, NUMPY, TORCH, tested_names

_PARAMETER = object()   # no binding of the name reaches the call: the function's parameter as passed in
_UNSURE = object()      # bound some other way (a loop, a branch, an unpacking): not followed


def kind_params(fn) -> set[str]:
    """Parameters of `fn` whose kind matters: put through an `isinstance` test or handed bare to a call."""
    found = fn.walks.get("kind_params")
    if found is None:
        handed = {a.id for n in fn.nodes if isinstance(n, ast.Call)
                  for a in (*n.args, *(k.value for k in n.keywords)) if isinstance(a, ast.Name)}
        args = fn.node.args
        packed = {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        found = fn.walks["kind_params"] = ((tested_names(fn) | handed) & set(fn.params)) - packed
    return found


def record_kinds(facts, ctx, callee, call: ast.Call, pairs, settings) -> None:
    """Add what this call hands each such parameter of `callee` to its kinds (entry mode: the calls of one
    pipeline, like the other settings its calls decide)."""
    if ("duck",) not in ctx.project.memo:
        return
    wanted = kind_params(callee)
    if not wanted:
        return
    table = facts.param_constants.setdefault(callee.id, {})
    mine = facts.param_constants.get(ctx.fn.id, {})
    passed = set(settings or ())
    for param in passed & wanted:
        table.setdefault(KIND_KEY + param, set()).add(UNKNOWN)
    for param, arg in pairs:
        passed.add(param)
        if param in wanted:
            table.setdefault(KIND_KEY + param, set()).update(argument_kinds(ctx, arg, call, mine))
    args = callee.node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
                *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)]
    for arg, default in defaults:
        if arg.arg in wanted and arg.arg not in passed:
            none = isinstance(default, ast.Constant) and default.value is None
            table.setdefault(KIND_KEY + arg.arg, set()).add(NONE if none else UNKNOWN)


def argument_kinds(ctx, arg: ast.expr, call: ast.Call, mine: dict) -> set:
    if isinstance(arg, ast.Starred):
        return {UNKNOWN}
    if isinstance(arg, ast.Name):
        value = reaching_value(ctx.fn, arg.id, call)
        if value is _UNSURE:
            return {UNKNOWN}
        if value is _PARAMETER:
            if arg.id in ctx.fn.params and arg.id not in (ctx.fn.outer_values or {}):
                inherited = mine.get(KIND_KEY + arg.id)   # the caller's own parameter, handed on unchanged
                return set(inherited) if inherited else {UNKNOWN}
            return {_kind(ctx, arg)}     # a global, or an inline range's input bound before the range
        return {_kind(ctx, value)}
    return {_kind(ctx, arg)}


def _kind(ctx, value: ast.expr, returned: bool = True) -> str:
    if isinstance(value, ast.Constant) and value.value is None:
        return NONE
    if ctx.is_torch(value):
        return TORCH
    if ctx.is_numpy_array(value):
        return NUMPY
    if returned and isinstance(value, ast.Call):
        return _returned_kind(ctx, value)
    return UNKNOWN


def _returned_kind(ctx, call: ast.Call) -> str:
    """The kind every `return` of the project functions the call runs answers (`self.features(obs)` that
    returns `torch.cat(...)`), one call deep."""
    callees = [c for c in ctx.resolve_call(call) if not ctx.project.is_library(c.module)]
    kinds = set()
    for callee in callees:
        inner = ctx.for_function(callee)
        returns = [n.value for n in callee.nodes if isinstance(n, ast.Return)]
        if not returns or any(r is None for r in returns):
            return UNKNOWN
        kinds |= {_kind(inner, r, returned=False) for r in returns}
    return kinds.pop() if len(kinds) == 1 else UNKNOWN


def reaching_value(fn, name: str, node: ast.AST):
    """The value of the one `name = value` that reaches `node` on every path (the nearest binding above it in
    a block holding it), `_PARAMETER` when `fn` never binds the name, `_UNSURE` otherwise."""
    parents = parent_map(fn)
    child, parent = node, parents.get(id(node))
    while parent is not None:
        for block in _blocks(parent):
            index = next((i for i, s in enumerate(block) if s is child), None)
            if index is None:
                continue
            for stmt in reversed(block[:index]):
                if not _stores(stmt, name):
                    continue
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                        and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name:
                    return stmt.value
                return _UNSURE
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)) and _stores(parent, name):
            return _UNSURE   # a later statement of the loop rebinds it for the next pass
        child, parent = parent, parents.get(id(parent))
    body = getattr(fn.node, "body", None)
    return _PARAMETER if child is fn.node or isinstance(body, list) and any(s is child for s in body) else _UNSURE


def _blocks(node: ast.AST) -> list[list]:
    return [b for b in (getattr(node, f, None) for f in ("body", "orelse", "finalbody")) if isinstance(b, list)]


def _stores(stmt: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(stmt))
