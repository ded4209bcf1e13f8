"""A method called on a parameter nothing types (or on a part of one): the object's code runs there, so the call
is no transformation of pipeline data and must be followed or said not followed (`flow/not_followed.py`)."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.knowledge.vocab import DATA_METHOD_NAMES


def untyped_parameter_method(ctx: FunctionContext, call: ast.Call) -> bool:
    """`model.predict_action(obs)` with `model` a parameter nothing types (no annotation the scan can use,
    no class from the callers), or a part of one (`model, norm = bundle`): the method is no tensor, array or container method, so the parameter is an
    object whose code runs here, not pipeline data the call merely transforms."""
    func = call.func
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name) \
            or func.attr in DATA_METHOD_NAMES or func.attr.endswith("_") or func.attr.startswith("__"):
        return False
    name = func.value.id
    if not (name in ctx.fn.params or _unpacked_from_parameter(ctx, name)) or name == ctx.self_name \
            or ctx.is_numpy(func.value):
        return False
    return not any(":" in t for t in ctx.types_of(func.value))


def _unpacked_from_parameter(ctx: FunctionContext, name: str) -> bool:
    """`policy, mean, std = bundle` (or `bundle[0]`) with `bundle` a parameter: every binding of the local takes
    a part of what the caller handed in, which is as untyped as the parameter (kept per function)."""
    found = ctx.fn.walks.get("unpacked from parameters")
    if found is None:
        found = ctx.fn.walks["unpacked from parameters"] = _parameter_parts(ctx.fn)
    return name in found


def _parameter_parts(fn) -> frozenset[str]:
    def part_of_parameter(value: ast.expr) -> bool:
        while isinstance(value, ast.Subscript):
            value = value.value
        return isinstance(value, ast.Name) and value.id in fn.params
    parts: dict[str, bool] = {}
    for node in fn.nodes:
        if not isinstance(node, ast.Assign):
            continue
        unpacked = any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets) or isinstance(node.value, ast.Subscript)
        for name in {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}:
            parts[name] = parts.get(name, True) and unpacked and part_of_parameter(node.value)
    return frozenset(name for name, all_parts in parts.items() if all_parts)
