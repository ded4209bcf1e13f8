"""Conditions on Python flags that change from one call of the step to the next: a first-call flag
(`if is_first: ...; is_first = False` carried by a driver loop, `self.warm = True` set by the step), a flag
parameter the caller's loop passes a test on its counter (`act(obs, reset=t == 0)`) and the
existence of state the step itself creates (`if hasattr(self, "_prev"):`). Tracing records the path of the
traced calls only (the first call's, usually), so the export keeps one of the two paths. LCM201 reports them with
that cause rather than as a test of pipeline values."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.context import CONSTRUCTION, is_self_attr, name_stores, parent_map
from leapp_codemod.rules._helpers import condition_operands


def _bool_constant(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Constant) and isinstance(value.value, bool)


def _self_writes(ctx, attr: str) -> list[tuple[str, ast.expr]]:
    if ctx.cls is None:
        return []
    return [(m, v) for klass in ctx.project.mro(ctx.cls) for m, v in klass.attr_values.get(attr, ())]


def _flag(e: ast.expr, ctx) -> bool:
    """A carried local or an attribute of self bound only to True/False, which the step itself flips (the
    only other bindings are the constructor's or the one before the loop): a flag another method sets (an
    event handler's `self.paused = True`) is a mode, not a first call."""
    if isinstance(e, ast.Name) and ctx.is_loop_carried(e.id):
        inside = ctx.fn.assigned(e.id)
        values = [*inside, *([ctx.fn.outer_values[e.id]] if e.id in ctx.fn.outer_values else [])]
        return bool(inside) and all(_bool_constant(v) for v in values)
    if isinstance(e, ast.Name) and e.id in ctx.facts.per_call_flags.get(ctx.fn.id, ()) \
            and not name_stores(ctx.fn).get(e.id):
        return not _overwritten_block(e, ctx)   # `reset`, passed `t == 0` by the caller's loop
    if is_self_attr(e, ctx.self_name) and ctx.fn.name not in CONSTRUCTION:
        writes = _self_writes(ctx, e.attr)
        return bool(writes) and all(_bool_constant(v) for _, v in writes) \
            and all(m in CONSTRUCTION or m == ctx.fn.name for m, _ in writes) \
            and any(m == ctx.fn.name for m, _ in writes)
    return False


def _existence(e: ast.expr, ctx) -> bool:
    """`hasattr(self, "name")` where this function binds `self.name` and no constructor does: false on the
    first call, true after it."""
    if not (isinstance(e, ast.Call) and ctx.builtin(e) == "hasattr" and len(e.args) == 2
            and is_self_attr(ast.Attribute(value=e.args[0], attr="_", ctx=ast.Load()), ctx.self_name)
            and isinstance(e.args[1], ast.Constant) and isinstance(e.args[1].value, str)):
        return False
    attr = e.args[1].value
    if any(m in CONSTRUCTION for m, _ in _self_writes(ctx, attr)):
        return False
    guarded = _guarded_nodes(e, ctx)   # a binding the test's own true branch makes: the name exists already
    return any(isinstance(n, ast.Assign) and id(n) not in guarded
               and any(is_self_attr(t, ctx.self_name) and t.attr == attr for t in n.targets) for n in ctx.fn.nodes)


def _guarded_nodes(test_part: ast.expr, ctx) -> set[int]:
    """Ids of the nodes inside the body of the `if` whose test holds `test_part` (empty when it is elsewhere)."""
    parents = parent_map(ctx.fn)
    node = parents.get(id(test_part))
    while node is not None and not isinstance(node, (ast.If, ast.stmt)):
        node = parents.get(id(node))
    if not isinstance(node, ast.If):
        return set()
    return {id(n) for stmt in node.body for n in ast.walk(stmt)}


def call_varying_test(test: ast.expr, ctx) -> bool:
    """Is one operand of the condition such a flag or existence test, and every other operand no pipeline data?"""
    operands = condition_operands(test)
    varying = [o for o in operands if _flag(o, ctx) or _existence(o, ctx)]
    return bool(varying) and all(o in varying or not ctx.is_data(o) for o in operands)


def _overwritten_block(flag: ast.Name, ctx) -> bool:
    """Does the `if` testing `flag` only assign attributes of self (`self.features = None`) that a later
    statement of the function body rebinds before anything reads them or calls a method of self? Then
    both paths leave the same values behind, and the branch changes nothing the export computes."""
    parents = parent_map(ctx.fn)
    branch = parents.get(id(flag))
    while branch is not None and not isinstance(branch, ast.If):
        branch = parents.get(id(branch))
    body = ctx.fn.node.body
    if branch is None or branch not in body or branch.orelse:
        return False
    written = set()
    for stmt in branch.body:
        if not (isinstance(stmt, ast.Assign) and all(is_self_attr(t, ctx.self_name) for t in stmt.targets)):
            return False
        written |= {t.attr for t in stmt.targets}
    later = body[body.index(branch) + 1:]
    for attr in written:
        if not _rebound_before_read(attr, later, ctx):
            return False
    return True


def _rebound_before_read(attr: str, statements: list[ast.stmt], ctx) -> bool:
    methods = {name for klass in ctx.project.mro(ctx.cls) for name in klass.methods} if ctx.cls else set()
    for stmt in statements:
        value_nodes = list(ast.walk(stmt.value)) if isinstance(stmt, ast.Assign) else list(ast.walk(stmt))
        if any(is_self_attr(n, ctx.self_name) and (n.attr == attr or n.attr in methods) and isinstance(n.ctx, ast.Load)
               for n in value_nodes):
            return False   # read, or a method of self called (it may read it), before any rebinding
        if isinstance(stmt, ast.Assign) and any(is_self_attr(t, ctx.self_name) and t.attr == attr
                                                for t in stmt.targets):
            return True
    return False
