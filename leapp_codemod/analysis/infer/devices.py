"""Reads from an object of a library the scan neither follows nor models (a camera or point-cloud SDK, a
tracker): `frames = self.camera.get_capture()` in a step gives the data the pipeline computes on, so a name
bound to such a read and then used as an array is pipeline data (a taint source). An object built here and
filled by attribute assignment (`pcd = PointCloud(); pcd.points = pts`) holds what it is filled with."""
from __future__ import annotations

import ast
import sys

from leapp_codemod.analysis.infer.loaded import binding_before, is_range
from leapp_codemod.analysis.model.function_values import range_scope
from leapp_codemod.analysis.model.handed import handed_values
from leapp_codemod.analysis.model.walk import is_self_attr
from leapp_codemod.knowledge.actuation import named_as_send
from leapp_codemod.knowledge.io import SEND_METHOD_NAMES
from leapp_codemod.knowledge.libraries import FOREIGN_ROOTS, MODELED_ROOTS, OPAQUE_MODELS

# Roots whose objects are known not to be devices of the pipeline (modelled, foreign numerics, loaded models).
_KNOWN_ROOTS = MODELED_ROOTS | FOREIGN_ROOTS | OPAQUE_MODELS | frozenset(sys.stdlib_module_names)
# Methods of an array (NumPy or torch) that a read's result, or a field of it, is used with.
_ARRAY_METHODS = frozenset({"copy", "astype", "reshape", "flatten", "ravel", "squeeze", "transpose", "clip",
                            "numpy", "float", "mean", "sum", "min", "max"})


def _unmodelled(project, qualified: str | None) -> bool:
    """A dotted name outside the project, in a library neither modelled nor followed."""
    if not qualified:
        return False
    external = project.external_name(qualified)
    root = external.split(".", 1)[0]
    return root not in _KNOWN_ROOTS and project.module_named(root) is None


def device_handle(ctx, receiver: ast.expr) -> bool:
    """`self.camera` where every binding of the attribute in the class family builds an object of an
    unmodelled library (`self.camera = k4a.Device.open()`); a name with the same values: a parameter every
    caller hands such an object, or an inline range's name bound to one before the range; a field or an item
    of either (`self.robot.arms["main"]`)."""
    while isinstance(receiver, (ast.Attribute, ast.Subscript)) and not is_self_attr(receiver, ctx.self_name):
        receiver = receiver.value   # `self.robot.arms["main"]`: a part of a device reads the device
    if isinstance(receiver, ast.Name):
        return _device_name(ctx, receiver.id)
    if not is_self_attr(receiver, ctx.self_name) or ctx.cls is None:
        return False
    key = ("device_handle", ctx.cls.id, receiver.attr)
    found = ctx.project.memo.get(key)
    if found is None:
        values = [(klass, value) for klass in ctx.project.mro(ctx.cls)
                  for _, value in klass.attr_values.get(receiver.attr, ())]
        found = ctx.project.memo[key] = bool(values) and all(
            isinstance(value, ast.Call) and klass.module in ctx.project.modules
            and _unmodelled(ctx.project, ctx.project.qualify(value.func, ctx.project.modules[klass.module]))
            for klass, value in values)
    return found


def _device_name(ctx, name: str) -> bool:
    key = ("device_name", ctx.fn.id, name)
    found = ctx.project.memo.get(key)
    if found is None:
        ctx.project.memo[key] = False   # a cycle through the same name answers no
        values = _name_values(ctx, name)
        found = ctx.project.memo[key] = bool(values) and all(
            isinstance(value, ast.Call) and _unmodelled(ctx.project, ctx.project.qualify(value.func, module))
            for value, module in values)
    return found


def _name_values(ctx, name: str) -> list[tuple[ast.expr, object]]:
    """(value, module it is written in) for each binding of `name` the step can see: a range's binding before
    the range, else what the callers of its function hand it; what a parameter's callers hand it."""
    fn = ctx.fn
    if is_range(fn):
        bound = binding_before(ctx, name)
        scope = range_scope(ctx.module, fn)
        if bound is not None and not (isinstance(bound[0], ast.Name) and bound[1] is not None
                                      and bound[0].id in bound[1].params):
            return [(bound[0], ctx.module)]
        if bound is not None:
            fn, name = bound[1], bound[0].id
        elif scope is not None and name in scope.params:
            fn = scope
        else:
            return []
    elif name not in fn.params or name == ctx.self_name:
        return []
    return [(h.value, h.module) for h in handed_values(ctx.project, fn, name)]


def device_filled(ctx, call: ast.Call) -> set[str]:
    """`udp.GetRecv(state)` with `state = sdk.LowState()`: the names of the device structs a device's call (not a
    send) is handed, which it fills with what it read; empty for any other call."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr.lower() in SEND_METHOD_NAMES or named_as_send(func.attr) \
            or not device_handle(ctx, func.value) or ctx.resolve_call(call):
        return set()
    return {arg.id for arg in call.args if isinstance(arg, ast.Name) and _device_name(ctx, arg.id)}


def converted_read(ctx, value: ast.Call) -> bool:
    """A device read handed straight to a NumPy/torch conversion (`torch.as_tensor(port.read(6))`): an array
    the step computes on, whatever else the name is used for."""
    converted = ctx.call_name(value) or ""
    return converted.startswith(("numpy.", "torch.")) and bool(value.args) and isinstance(value.args[0], ast.Call) \
        and device_read(ctx, value.args[0])


def device_read(ctx, call: ast.Call) -> bool:
    """A method call on a `device_handle` that resolves to no followed code."""
    func = call.func
    return isinstance(func, ast.Attribute) and device_handle(ctx, func.value) and not ctx.resolve_call(call)


def used_as_array(ctx, name: str) -> bool:
    """`name`, or a field of it (`frames.depth.data`), is subscripted, compared, given to a NumPy or torch
    call, or used with an array method somewhere in the function."""
    parents: dict[int, ast.AST] = {}
    for node in ctx.fn.nodes:
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in ctx.fn.nodes:
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        use: ast.AST = node
        parent = parents.get(id(use))
        while isinstance(parent, ast.Attribute) and parent.value is use:
            use, parent = parent, parents.get(id(parent))
        if isinstance(parent, ast.Subscript) and parent.value is use:
            return True
        if isinstance(parent, ast.Compare) and not any(isinstance(x, ast.Constant) and not isinstance(
                x.value, (int, float)) for x in (parent.left, *parent.comparators)):
            return True   # `depth > 0`, not `status == "ok"` or `frame is None`
        if isinstance(parent, ast.Call) and use in parent.args:
            called = ctx.call_name(parent) or ""
            if called.startswith(("numpy.", "torch.")):
                return True
        if isinstance(use, ast.Attribute) and use.attr in _ARRAY_METHODS and isinstance(parent, ast.Call) \
                and parent.func is use:
            return True
    return False


def built_here(ctx, name: str) -> bool:
    """A local (not a parameter) every binding of which in the function constructs an object with a call."""
    if name in ctx.fn.params or name == ctx.self_name:
        return False
    values = ctx.fn.assigned(name)
    return bool(values) and all(isinstance(v, ast.Call) and not ctx.builtin(v) for v in values)
