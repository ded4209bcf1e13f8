"""Bindings a function makes to its own names outside assignments: functions and lambdas it defines, parameters
annotated as NumPy arrays, arguments of its local callables, destinations library calls fill."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.infer.argument_writes import may_write_argument, written_argument
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.walk import is_self_attr, iter_nodes


def local_callables(fn: FunctionInfo) -> dict[str, ast.arguments]:
    """Functions and lambdas defined inside `fn` and bound to a name: name -> their arguments (found once
    per function: they depend on its code only)."""
    out = fn.walks.get("local_callables")
    if out is not None:
        return out
    out = fn.walks["local_callables"] = {}
    for node in iter_nodes(fn):  # every nested definition, pruned blocks included
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = node.args
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = node.value.args
    return out


_NUMPY_ANNOTATIONS = frozenset({"numpy.ndarray", "numpy.typing.NDArray"})


def numpy_annotated(ctx: FunctionContext) -> set[str]:
    """Parameters annotated as NumPy arrays (`q: np.ndarray`, `x: npt.NDArray[np.float32]`): what they hold
    is a NumPy array whatever the callers are (whether it is pipeline data is still the callers' to say)."""
    node = ctx.fn.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    out = set()
    for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
        note = arg.annotation.value if isinstance(arg.annotation, ast.Subscript) else arg.annotation
        if note is not None and ctx.project.external_name(ctx.project.qualify(note, ctx.module) or "") \
                in _NUMPY_ANNOTATIONS:
            out.add(arg.arg)
    return out


def bind_written(ctx: FunctionContext, call: ast.Call) -> bool:
    """`np.copyto(self.buf, obs)`, `np.multiply(obs, k, out=scaled)`: a library function that fills its
    destination from pipeline data makes the destination pipeline data (a local, or an attribute of `self`)."""
    if not may_write_argument(call):
        return False   # most calls: decided by the spelling alone, before the (costly) name and callee lookups
    name = ctx.call_name(call)
    dest = written_argument(call, name) if name else None
    dest = dest if dest is not None and not ctx.resolve_call(call) else None
    if dest is None or not any(ctx.is_data(a) for a in (*call.args, *(k.value for k in call.keywords)) if a is not dest):
        return False
    root = dest
    while isinstance(root, ast.Subscript):
        root = root.value
    if isinstance(root, ast.Name):
        ctx.env.data.add(root.id)
    elif is_self_attr(root, ctx.self_name) and ctx.cls is not None:
        ctx.facts.data_attrs.setdefault(ctx.cls.id, set()).add(root.attr)
    return True


def bind_local_call(ctx: FunctionContext, call: ast.Call, args: ast.arguments) -> None:
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    for i, arg in enumerate(call.args):
        if i < len(params) and ctx.is_data(arg):
            ctx.env.data.add(params[i])
    for kw in call.keywords:
        if kw.arg and ctx.is_data(kw.value):
            ctx.env.data.add(kw.arg)
