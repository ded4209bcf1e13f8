"""Which code of a function runs: its live nodes in eval mode, given the constants its callers pass.

Export runs in eval mode, so training-only blocks never run; a flag parameter every call site passes as
a constant of one truth value rules out the block it guards. No data flow here: only what the code says.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import FunctionInfo


def is_self_attr(expr: ast.expr, self_name: str | None) -> bool:
    return (self_name is not None and isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
            and expr.value.id == self_name)


def self_name_of(fn: FunctionInfo) -> str | None:
    if not fn.is_method:
        return None
    params = fn.positional_params
    return params[0] if params else None


def _is_training(expr: ast.expr, self_name: str | None) -> bool:
    return is_self_attr(expr, self_name) and expr.attr == "training"


def _is_not_training(expr: ast.expr, self_name: str | None) -> bool:
    return isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not) and _is_training(expr.operand, self_name)


def training_only_block(node: ast.If | ast.IfExp, self_name: str | None) -> str | None:
    """'body' when the body runs only in training (`if self.training:`, `if x > 0 and self.training:`),
    'orelse' when the else-branch does (`if not self.training:`, `if not self.training or x:`)."""
    test = node.test
    if _is_training(test, self_name):
        return "body"
    if _is_not_training(test, self_name):
        return "orelse"
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
            and any(_is_training(v, self_name) for v in test.values):
        return "body"
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) \
            and any(_is_not_training(v, self_name) for v in test.values):
        return "orelse"
    return None


UNKNOWN = ("<not a constant>",)   # a parameter value no call site fixes


def constant_flag_block(node: ast.If, fn: FunctionInfo, constants: dict[str, set] | None) -> str | None:
    """'body'/'orelse' when `if flag:` / `if not flag:` tests a parameter that every call passes as
    constants of one truth value (`predict(obs, deterministic=True)`): that block never runs."""
    if not constants:
        return None
    test, negate = node.test, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negate = test.operand, True
    if not isinstance(test, ast.Name):
        return None
    values = constants.get(test.id)
    if not values or UNKNOWN in values or len({bool(v) for v in values}) != 1:
        return None
    if any(isinstance(n, ast.Name) and n.id == test.id and isinstance(n.ctx, ast.Store) for n in fn.nodes):
        return None  # rebound in the body
    taken = bool(next(iter(values))) != negate
    return "orelse" if taken else "body"


def iter_nodes(fn: FunctionInfo, constants: dict[str, set] | None = None):
    """Every node of the function body except training-only blocks (export runs in eval mode) and
    code that constant flag parameters rule out (`constants`: parameter -> values callers pass):
    the block not taken, and what follows a taken block that always returns."""
    key = tuple(sorted((name, frozenset(values)) for name, values in constants.items())) if constants else None
    nodes = fn.walks.get(key)
    if nodes is None:
        nodes = fn.walks[key] = tuple(_walk_live(fn, constants))
    return iter(nodes)


def _walk_live(fn: FunctionInfo, constants: dict[str, set] | None):
    self_name = self_name_of(fn)
    stack: list[ast.AST] = list(reversed(live_statements(fn.node.body, fn, constants)))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If):
            skipped = training_only_block(node, self_name) or constant_flag_block(node, fn, constants)
            children = [node.test] + ([] if skipped == "body" else live_statements(node.body, fn, constants)) \
                + ([] if skipped == "orelse" else live_statements(node.orelse, fn, constants))
        elif isinstance(node, ast.IfExp):
            skipped = training_only_block(node, self_name)
            children = [node.test] + ([] if skipped == "body" else [node.body]) + ([] if skipped == "orelse" else [node.orelse])
        else:
            children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))


def live_statements(block: list[ast.stmt], fn: FunctionInfo, constants: dict[str, set] | None) -> list[ast.stmt]:
    """`block` up to an `if flag: ... return` whose flag is constant and whose taken branch returns."""
    if not constants:
        return block
    for i, stmt in enumerate(block):
        if isinstance(stmt, ast.If):
            skipped = constant_flag_block(stmt, fn, constants)
            taken = stmt.orelse if skipped == "body" else stmt.body if skipped == "orelse" else None
            if taken and isinstance(taken[-1], (ast.Return, ast.Raise)):
                return block[: i + 1]
    return block

