"""Fields of another object that code registered to run outside the step fills: what a callback writes through
an object it holds.

A subscription callback hands the message to a helper object (`self.pad.update(msg.axes)`, whose `update` stores
`self.lx = axes[0]`), or stores into the helper's field directly (`self.env.depth = buf`). The helper's fields are
then filled between the step's calls, whether the step reads them through the holder (`self.pad.lx` in the
holder's step) or is a method of the helper itself (`self.state` in `Robot.step`, with the holder's callback
calling `self.robot.set_state(msg)`).

A write is an assignment, an item or augmented write into the field, or a container mutator on it
(`self.buf.append(v)`); a method call on an object that is not such a mutator (`self.env.get_commands(c)`,
`self.names.index(n)`) writes nothing of the receiver itself: its own writes are found in the called method, when
the receiver's class is known. The called method's writes count only when they carry data (what the call handed
over, or what a call read); constants, counters and clocks fill nothing.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.model.class_state import CONSTRUCTION_METHODS, callback_methods
from leapp_codemod.analysis.model.filled_outside import (
    _WRITES,
    _carries_data,
    _nested_handlers,
    class_fills,
    operator_methods,
    _own_nodes,
    _root,
    _self_calls,
    _targets,
)


@dataclass(frozen=True)
class ObjectWrite:
    """A registered writer of class `holder` writing through the object its attribute `receiver` holds: a call of
    the object's `method` handing values over, or (method "") a write into its `field`."""

    holder: str      # the class id of the writer's class
    receiver: str    # the attribute of self holding the object
    method: str
    field: str
    module: str
    path: str
    line: int
    column: int
    writer: str      # the writer: a callback method, a handler it hands over, a helper of self they call
    writer_id: str   # its function id ("" for a handler defined inside a method)
    data: bool       # a field write that stores data, or a call handing values over
    holder_cls: object = field(default=None, compare=False, hash=False, repr=False)


def _self_name(fn: ast.AST) -> str | None:
    args = getattr(fn, "args", None)
    params = (*args.posonlyargs, *args.args) if args is not None else ()
    return params[0].arg if params else None


def _held(expr: ast.expr, self_name: str | None) -> str | None:
    """`self.A` -> `A`."""
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == self_name:
        return expr.attr
    return None


def _held_field(target: ast.expr, self_name: str | None) -> tuple[str, str] | None:
    """(A, f) of a write into `self.A.f`, `self.A.f[i]`, `self.A.f.g`."""
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        if isinstance(target, ast.Attribute):
            holder = _held(target.value, self_name)
            if holder is not None:
                return holder, target.attr
        target = target.value
    return None


def _class_writers(cls):
    """(label, node, self name, function id) of the code of `cls` registered to run outside the step: its callback
    methods, the handlers they define and hand over, and the methods of self such code calls (transitively)."""
    pending = [(n, cls.methods[n].node, _self_name(cls.methods[n].node), cls.methods[n].id)
               for n in sorted(callback_methods(cls) - CONSTRUCTION_METHODS)]
    for label, handler, self_name in _nested_handlers(cls):
        pending.append((label, handler, self_name, "" if "." in label else cls.methods[label].id))
    seen = {p[0] for p in pending}
    while pending:
        label, node, self_name, fid = pending.pop(0)
        yield label, node, self_name, fid
        for callee in sorted(_self_calls(node, self_name) - seen - CONSTRUCTION_METHODS):
            if callee in cls.methods:
                seen.add(callee)
                info = cls.methods[callee]
                pending.append((callee, info.node, _self_name(info.node), info.id))


def object_writes(project) -> tuple[ObjectWrite, ...]:
    """Every write a class's registered code makes through an object it holds, over the project's own classes
    (once per project)."""
    key = ("object_fills_writes",)
    found = project.memo.get(key)
    if found is not None:
        return found
    out = []
    for module in project.modules.values():
        if project.is_library(module.name):
            continue
        for cls in module.classes.values():
            operators = operator_methods(cls)
            for label, node, self_name, fid in _class_writers(cls):
                args = getattr(node, "args", None)
                params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)} if args else set()
                for stmt in _own_nodes(node):
                    if isinstance(stmt, _WRITES) and getattr(stmt, "value", None) is not None:
                        data = ("." in label or label in operators
                                or _carries_data(stmt.value, params - {self_name}, project, module)
                                or _copies_a_fill(project, cls, stmt.value, self_name))
                        for target in _targets(stmt):
                            place = _held_field(target, self_name)
                            if place is not None:
                                out.append(ObjectWrite(cls.id, place[0], "", place[1], module.name, cls.path,
                                                       stmt.lineno, stmt.col_offset, label, fid, data, cls))
                    elif isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) \
                            and (stmt.args or stmt.keywords):
                        receiver = _held(stmt.func.value, self_name)
                        if receiver is not None:
                            out.append(ObjectWrite(cls.id, receiver, stmt.func.attr, "", module.name, cls.path,
                                                   stmt.lineno, stmt.col_offset, label, fid, True, cls))
    project.memo[key] = found = tuple(out)
    return found


def _copies_a_fill(project, cls, value: ast.expr, self_name: str | None) -> bool:
    """Does the value read an attribute of self that registered code fills (a thread copying what a subscription
    callback stored, `self.state.q[i] = self.msg_q[i]`)?"""
    filled = class_fills(project, cls)
    return any(_held(n, self_name) in filled for n in ast.walk(value) if isinstance(n, ast.Attribute))


def method_data_writes(project, method) -> dict[str, ast.stmt]:
    """Attributes of self a method writes with data (what it was handed, or what a call read): name -> the first
    such write."""
    key = ("object_fills_method", method.id)
    found = project.memo.get(key)
    if found is not None:
        return found
    self_name = _self_name(method.node)
    args = method.node.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)} - {self_name}
    module = project.modules[method.module]
    out: dict[str, ast.stmt] = {}
    for stmt in _own_nodes(method.node):
        if isinstance(stmt, _WRITES) and getattr(stmt, "value", None) is not None \
                and _carries_data(stmt.value, params, project, module):
            for target in _targets(stmt):
                attr = _root(target, self_name)
                if attr is not None:
                    out.setdefault(attr, stmt)
    project.memo[key] = out
    return out
