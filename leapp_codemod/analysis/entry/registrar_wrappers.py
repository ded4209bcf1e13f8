"""What a registrar is handed, when it is not a function named in place: a function looked up in a table of
callbacks, or a parameter of the project's own wrapper around the registrar.

A ROS node keeps `self.callbacks = {"record": self._on_record, "infer": self._on_infer}` and hands
`self.callbacks[mode]` to its timer helper; the helper's `set_timer(name, period, callback)` stores the callback
(`self._callbacks[name] = callback`) and its `start` passes `self._callbacks[name]` to `create_timer`. Each function
of the table is registered, by the call that hands it to the wrapper.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.handed import handed_values
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.walk import self_name_of


def callable_targets(project: Project, fn: FunctionInfo, arg: ast.expr, depth: int = 0) -> list[FunctionInfo]:
    """The project functions `arg`, written in `fn`, may be: a method on `self`, a function by name, the
    function a lambda calls, or any function of a table on `self` it is looked up in (`self.table[key]`)."""
    if depth > 2:
        return []
    if isinstance(arg, ast.Lambda) and isinstance(arg.body, ast.Call):
        arg = arg.body.func    # `lambda msg, name=name: self.leg_callback(msg, name)`
    module = project.modules[fn.module]
    cls = _class_of(project, fn)
    if _on_self(arg, fn):
        method = project.find_method(cls, arg.attr) if cls is not None else None
        if method is not None:
            return [method]
    if isinstance(arg, ast.Name):
        found = project.lookup(project.qualify(arg, module) or "")
        return [found] if isinstance(found, FunctionInfo) else []
    if isinstance(arg, ast.Subscript) and _on_self(arg.value, fn) and cls is not None:
        out = []
        for table in _attr_values(project, cls, arg.value.attr):
            items = table.values if isinstance(table, ast.Dict) else \
                table.elts if isinstance(table, (ast.List, ast.Tuple)) else []
            for item in items:
                out += callable_targets(project, fn, item, depth + 1)
        return out
    return []


def wrapper_params(project: Project, fn: FunctionInfo, arg: ast.expr) -> list[tuple[FunctionInfo, str]]:
    """(function, parameter) whose argument reaches the registrar as `arg`, written in `fn`: `fn`'s own
    parameter, or the parameter a method of the class stores in the attribute `arg` reads (`self._cbs[name] =
    callback` read back as `self._cbs[name]`, `self._cb = callback` as `self._cb`)."""
    if isinstance(arg, ast.Name) and arg.id in fn.params and arg.id != self_name_of(fn):
        return [(fn, arg.id)]
    attr = arg.value if isinstance(arg, ast.Subscript) else arg
    cls = _class_of(project, fn)
    if not _on_self(attr, fn) or cls is None:
        return []
    out = []
    for method in (m for klass in project.mro(cls) for m in klass.methods.values()):
        self_name = self_name_of(method)
        for node in ast.walk(method.node):
            if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Name) \
                    or node.value.id not in method.params:
                continue
            for target in node.targets:
                stored = target.value if isinstance(target, ast.Subscript) else target
                if isinstance(stored, ast.Attribute) and isinstance(stored.value, ast.Name) \
                        and stored.value.id == self_name and stored.attr == attr.attr:
                    out.append((method, node.value.id))
    return out


def wrapped_registrations(project: Project, wrappers: list[tuple[FunctionInfo, str]]) \
        -> dict[str, tuple[FunctionInfo, int]]:
    """fid -> (function that hands it, line) for each function the project's calls hand a wrapper's parameter."""
    out: dict[str, tuple[FunctionInfo, int]] = {}
    for wrapper, param in wrappers:
        for handed in handed_values(project, wrapper, param):
            if handed.holder is None:
                continue
            for target in callable_targets(project, handed.holder, handed.value):
                out.setdefault(target.id, (handed.holder, handed.line))
    return out


def _on_self(node: ast.expr, fn: FunctionInfo) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name_of(fn)


def _class_of(project: Project, fn: FunctionInfo) -> ClassInfo | None:
    return project.modules[fn.module].classes.get(fn.class_name) if fn.class_name else None


def _attr_values(project: Project, cls: ClassInfo, attr: str) -> list[ast.expr]:
    return [value for klass in project.mro(cls) for _, value in klass.attr_values.get(attr, ())]

