"""One element of a NumPy array that an index reduction over an axis made: `a = logits.argmax(dim=-1).numpy()[0]`
(also through a name bound to the conversion). The reduction removed the axis the positions were taken
along, so of a batch of one the array has one entry, and `[0]` of it is a single NumPy scalar, not a row: it
leaves the trace whatever is done with it next, arithmetic or a hand-over to another function (an
environment's `step`, a driver). Checked by the scorer of set 16 with the installed leapp 0.7.2: `[0]` of the
`TracedNpArray` of such a tensor is a plain `numpy.int64`, and `output_tensors` raises on it."""
from __future__ import annotations

import ast

from leapp_codemod.knowledge.vocab import AXIS_INDEX_REDUCTIONS, TENSOR_COPY_METHODS


def reduced_element(node: ast.Assign, ctx) -> ast.Call | None:
    """The reduction (`logits.argmax(dim=-1)`) when `node` takes one constant position of its NumPy
    conversion into a name, else None."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name) \
            or not isinstance(node.value, ast.Subscript) or not _constant_index(node.value.slice):
        return None
    array = _bound_once(node.value.value, ctx)
    if not _converted_to_numpy(array):
        return None
    source = _strip_copies(array)
    source = _bound_once(source, ctx)
    if not (isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute)
            and source.func.attr in AXIS_INDEX_REDUCTIONS and _along_one_axis(source)):
        return None
    return source if ctx.is_data(source.func.value) else None


def _constant_index(index: ast.expr) -> bool:
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index = index.operand
    return isinstance(index, ast.Constant) and isinstance(index.value, int) and not isinstance(index.value, bool)


def _bound_once(expr: ast.expr, ctx) -> ast.expr:
    """The value a local name is bound to, when the function binds it exactly once; else the expression."""
    if not isinstance(expr, ast.Name):
        return expr
    bound = [n.value for n in ctx.fn.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == expr.id]
    return bound[0] if len(bound) == 1 else expr


def _converted_to_numpy(expr: ast.expr) -> bool:
    """`t.numpy()`, `t.cpu().numpy()`, `t.detach().cpu().numpy()`."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "numpy" \
        and not expr.args


def _strip_copies(expr: ast.expr) -> ast.expr:
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
            and expr.func.attr in TENSOR_COPY_METHODS and not expr.args:
        expr = expr.func.value
    return expr


def _along_one_axis(call: ast.Call) -> bool:
    """An axis is given (`dim=-1`, `axis=1`, `argmax(1)`) and not kept (`keepdim=True` keeps it: a row)."""
    keeps = any(k.arg in ("keepdim", "keepdims") and not (isinstance(k.value, ast.Constant) and not k.value.value)
                for k in call.keywords)
    axis = len(call.args) == 1 or any(k.arg in ("dim", "axis") for k in call.keywords)
    return axis and not keeps
