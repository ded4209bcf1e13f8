"""Attributes the driver sets on its objects before the loop that runs the pipeline (first-call
initialisation the driver has already done).

`if self.nominal is None: self.nominal = data.qpos.copy()` captures a value on the first call. When the
driver, before the loop holding the entry range, runs `tracker.nominal = q_home.copy()` on the object whose
method the range calls (built there as `tracker = Tracker(...)`), the attribute is never None while the
pipeline runs: the test is False, the capture never happens and is no recurrent state. Only when nothing
resets it to None afterwards: no method of the class outside construction, and no statement of the driver,
writes None to it.
"""
from __future__ import annotations

import ast

PRESET_KEY = "preset:"   # constants key: "preset:self.x" -> {True}: set (not None) before the driving loop
_CONSTRUCTION = frozenset({"__init__", "__post_init__", "__setstate__"})


def preset_attributes(project, module, scope: ast.AST, loop: ast.AST | None) -> dict[str, set[str]]:
    """{class id: attributes} the statements of `scope` that run before `loop` set on objects of project
    classes the scope builds, to values that are not None."""
    if loop is None or scope is loop:
        return {}
    assigned = [stmt for stmt in _run_before(getattr(scope, "body", []), loop) if isinstance(stmt, ast.Assign)]
    built = _built_objects(project, module, scope)
    out: dict[str, set[str]] = {}
    for stmt in assigned:
        target = stmt.targets[0] if len(stmt.targets) == 1 else None
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)) or _none(stmt.value):
            continue
        cls = built.get(target.value.id)
        if cls is None or _reset_to_none(cls, target.attr) or _driver_resets(scope, target.value.id, target.attr):
            continue
        out.setdefault(cls.id, set()).add(target.attr)
    return out


def preset_settings(project, cls) -> dict[str, set]:
    """The constants entry for the class's preset attributes (`PRESET_KEY + "self.x"`: {True})."""
    preset = project.memo.get(("preset_attrs",), {})
    return {f"{PRESET_KEY}self.{attr}": {True} for attr in preset.get(cls.id, ())}


def _run_before(block: list[ast.stmt], target: ast.AST) -> list[ast.stmt]:
    """The statements of `block` (and of the blocks holding `target` inside it) that run before `target`."""
    for i, stmt in enumerate(block):
        if stmt is target:
            return block[:i]
        if any(node is target for node in ast.walk(stmt)):
            for inner in _child_blocks(stmt):
                if any(node is target for s in inner for node in ast.walk(s)):
                    return block[:i] + _run_before(inner, target)
            return block[:i]
    return []


def _child_blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    blocks = [getattr(stmt, name) for name in ("body", "orelse", "finalbody") if isinstance(getattr(stmt, name, None), list)]
    blocks += [h.body for h in getattr(stmt, "handlers", [])]
    return blocks


def _built_objects(project, module, scope: ast.AST) -> dict:
    """{name: class} of names the scope binds exactly once, to a call of a project class."""
    bound: dict[str, list] = {}
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            for name in ast.walk(node.target):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                    bound.setdefault(name.id, []).append(None)
    out = {}
    for name, values in bound.items():
        if len(values) == 1 and isinstance(values[0], ast.Call):
            cls = project.class_of(project.qualify(values[0].func, module))
            if cls is not None:
                out[name] = cls
    return out


def _reset_to_none(cls, attr: str) -> bool:
    return any(method not in _CONSTRUCTION and _none(value) for method, value in cls.attr_values.get(attr, ()))


def _driver_resets(scope: ast.AST, name: str, attr: str) -> bool:
    """Does the driver write None to `name.attr`, or hand the attribute to `delattr`/`setattr`, anywhere?"""
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and _none(node.value) and any(
                isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and t.value.id == name
                for t in node.targets):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") \
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            return True
    return False


def _none(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value is None
