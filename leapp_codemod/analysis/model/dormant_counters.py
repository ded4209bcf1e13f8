"""Counters their own start value keeps still: `self.warmup = 0` in the constructor, changed only inside
`if self.warmup > 0:` blocks. The block never runs, so the counter keeps its start value: a setting with that
one value, and what the block does (the count, a held output, a publish) is dead code.

A literal set in `__init__` that nothing else writes stays a switch for a person to flip (see `settings`);
this is the counter that a person switched off by its start value.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import ClassInfo

_ORDER = {ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b, ast.Lt: lambda a, b: a < b,
          ast.LtE: lambda a, b: a <= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}


def dormant_counters(project, cls: ClassInfo, rebound) -> dict[str, set]:
    """"self.<attr>" -> {start value} for each such counter of `cls` (its bases and subclasses included).
    `rebound(attr)` says whether code outside the class rebinds the attribute (then it is left alone)."""
    from leapp_codemod.analysis.model.resolve_types import subclasses
    family = [*project.mro(cls), *subclasses(project, cls)]
    starts: dict[str, list] = {}
    others: dict[str, list[tuple[ast.AST, ast.AST, str]]] = {}   # attr -> (store node, method node, self name)
    for klass in family:
        for fn in klass.methods.values():
            self_name = fn.positional_params[0] if fn.is_method and fn.positional_params else None
            if self_name is None:
                continue
            for node in fn.nodes:
                for attr, value in _self_stores(node, self_name):
                    if fn.name == "__init__" and isinstance(node, ast.Assign) and _number(value) is not None:
                        starts.setdefault(attr, []).append(_number(value))
                    else:
                        others.setdefault(attr, []).append((node, fn.node, self_name))
    out: dict[str, set] = {}
    for attr, values in starts.items():
        stores = others.get(attr)
        if len(values) != 1 or not stores or rebound(attr):
            continue
        if all(_ruled_out(store, method, self_name, attr, values[0]) for store, method, self_name in stores):
            out[f"self.{attr}"] = {values[0]}
    return out


def _self_stores(node: ast.AST, self_name: str):
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets, value = [node.target], node.value
    else:
        return
    for target in targets:
        for elt in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
            if isinstance(elt, ast.Attribute) and isinstance(elt.value, ast.Name) and elt.value.id == self_name:
                yield elt.attr, value if elt is target else None


def _number(value: ast.expr | None):
    try:
        found = ast.literal_eval(value) if value is not None else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return found if isinstance(found, (bool, int, float)) else None


def _ruled_out(store: ast.AST, method: ast.AST, self_name: str, attr: str, start) -> bool:
    """Is `store` inside a side of an `if` that the counter's start value rules out?"""
    for parent in ast.walk(method):
        if isinstance(parent, ast.If):
            outcome = _outcome(parent.test, self_name, attr, start)
            side = parent.body if outcome is False else parent.orelse if outcome is True else []
            if any(store is n for stmt in side for n in ast.walk(stmt)):
                return True
    return False


def _outcome(test: ast.expr, self_name: str, attr: str, start) -> bool | None:
    """The truth value of `self.<attr>`, `not self.<attr>` or `self.<attr> <op> <number>` at the start value."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _outcome(test.operand, self_name, attr, start)
        return None if inner is None else not inner
    if _is_counter(test, self_name, attr):
        return bool(start)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _ORDER:
        left, right = test.left, test.comparators[0]
        if _is_counter(left, self_name, attr) and _number(right) is not None:
            return _ORDER[type(test.ops[0])](start, _number(right))
        if _is_counter(right, self_name, attr) and _number(left) is not None:
            return _ORDER[type(test.ops[0])](_number(left), start)
    return None


def _is_counter(expr: ast.expr, self_name: str, attr: str) -> bool:
    return isinstance(expr, ast.Attribute) and expr.attr == attr and isinstance(expr.value, ast.Name) \
        and expr.value.id == self_name
