"""Attributes the constructor leaves set: `self.x is None` is False whenever a step runs.

`self.names = None` in `__init__`, then `self._load()` which sets `self.names` on every path (in one arm
directly, in the other through `self._fallback()`): once the object exists the attribute holds a value, so
`if self.names is not None:` always takes its first arm and the `else` is dead code. Read from what the
constructor runs, statement by statement, following the object's own methods it calls (a few calls deep): an
`if` sets the attribute only when both arms do, a loop body may not run, an arm that raises builds no object.
Only when no other method writes None to it (a reset). The answer is the same constants entry as a value the
driver sets before its loop (`preset_attrs.PRESET_KEY`).
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.preset_attrs import PRESET_KEY

_DEPTH = 4


def constructed_settings(project, cls) -> dict[str, set]:
    """`PRESET_KEY + "self.x"`: {True} for the attributes of `cls` tested against None that construction sets."""
    key = ("constructed_attrs", cls.id)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = _settings(project, cls)
    return found


def _settings(project, cls) -> dict[str, set]:
    init = project.find_method(cls, "__init__")
    if init is None:
        return {}
    family = project.mro(cls)
    tested = {a for klass in family for fn in klass.methods.values() for a in _none_tested(fn.node)}
    out = {}
    for attr in sorted(tested):
        ran: set[str] = set()
        if _run(init.node.body, attr, project, cls, False, ran, 0) is not True:
            continue
        if any(method not in ran and method != "__init__" and _is_none(value)
               for klass in family for method, value in klass.attr_values.get(attr, ())):
            continue   # reset to None after construction
        out[f"{PRESET_KEY}self.{attr}"] = {True}
    return out


def _none_tested(fn: ast.AST) -> set[str]:
    return {n.left.attr for n in ast.walk(fn) if isinstance(n, ast.Compare) and len(n.ops) == 1
            and isinstance(n.ops[0], (ast.Is, ast.IsNot)) and _is_none(n.comparators[0])
            and isinstance(n.left, ast.Attribute) and isinstance(n.left.value, ast.Name) and n.left.value.id == "self"}


def _is_none(value) -> bool:
    return isinstance(value, ast.Constant) and value.value is None


def _run(block: list[ast.stmt], attr: str, project, cls, start, ran: set[str], depth: int):
    """Whether `attr` holds a value (True), is unknown (False) after `block`, or None when the block always raises."""
    state = start
    for stmt in block:
        if isinstance(stmt, ast.Raise):
            return None
        if isinstance(stmt, ast.Return):
            return False
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and _targets_attr(stmt, attr):
            state = stmt.value is not None and _a_value(stmt.value, project, cls)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _own_method(stmt.value, project, cls):
            method = _own_method(stmt.value, project, cls)
            if depth >= _DEPTH:
                state = state and not _writes(method.node, attr)
            else:
                ran.add(method.name)
                state = _run(method.node.body, attr, project, cls, state, ran, depth + 1)
        elif isinstance(stmt, ast.If):
            arms = [_run(stmt.body, attr, project, cls, state, ran, depth),
                    _run(stmt.orelse, attr, project, cls, state, ran, depth)]
            arms = [a for a in arms if a is not None]
            if not arms:
                return None
            state = all(arms)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            state = _run(stmt.body, attr, project, cls, state, ran, depth)
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            state = state and _run(stmt.body, attr, project, cls, state, ran, depth) is not False \
                and not _writes(stmt, attr, skip_body=True)
        elif isinstance(stmt, ast.Try):
            body = _run([*stmt.body, *stmt.orelse], attr, project, cls, state, ran, depth)
            # a handler starts wherever the body stopped: where it started, unless the body may have written it
            entry = state and not any(_writes(s, attr) or _calls_own(s) for s in stmt.body)
            handlers = [_run(h.body, attr, project, cls, entry, ran, depth) for h in stmt.handlers]
            outcomes = [o for o in (body, *handlers) if o is not None]
            state = bool(outcomes) and all(outcomes)
            state = _run(stmt.finalbody, attr, project, cls, state, ran, depth) if stmt.finalbody else state
        elif _writes(stmt, attr):
            state = False
        if state is None:
            return None
    return state


_BUILT = (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.JoinedStr, ast.Lambda)


def _a_value(value: ast.expr, project, cls) -> bool:
    """Never None: a literal, a container, a library call or a class built (`torch.zeros(3)`, `np.load(p)`,
    `Filter(...)`). A parameter, an attribute or a project function's answer may be None."""
    if isinstance(value, ast.Constant):
        return value.value is not None
    if isinstance(value, _BUILT):
        return True
    if isinstance(value, ast.BinOp):
        return True
    if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
        return False
    module = project.modules.get(cls.module)
    name = project.qualify(value.func, module) if module is not None else None
    if not name:
        return False
    if project.class_of(name) is not None:
        return True
    owner, _, function = name.rpartition(".")
    return owner not in project.modules   # a library's function, not one of the scanned code's that may return None


def _targets_attr(stmt: ast.Assign | ast.AnnAssign, attr: str) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return len(targets) == 1 and _self_attr(targets[0], attr)


def _self_attr(node: ast.AST, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == "self"


def _writes(node: ast.AST, attr: str, skip_body: bool = False) -> bool:
    parts = [node.target, node.iter] if skip_body and isinstance(node, (ast.For, ast.AsyncFor)) else \
        [node.test] if skip_body and isinstance(node, ast.While) else [node]
    return any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and _self_attr(n, attr)
               or isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr")
               for part in parts for n in ast.walk(part))


def _calls_own(stmt: ast.stmt) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
               and n.func.value.id == "self" for n in ast.walk(stmt))


def _own_method(call: ast.Call, project, cls):
    """The method of the object a `self.m(...)` statement runs."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        return project.find_method(cls, func.attr)
    return None
