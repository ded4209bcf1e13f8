"""Arrays and lists kept on an object that grow on every call (a log stacked row by row): a fixed slice of
their end (`log[-20:]`) has a length that depends on how many calls came before, until the log is long enough."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.context import is_self_attr
from leapp_codemod.rules._helpers import show

# Calls that return their first argument's rows with more appended: `np.vstack([log, row])`.
STACKERS = frozenset({"numpy.vstack", "numpy.concatenate", "numpy.append", "numpy.hstack", "numpy.row_stack",
                      "torch.cat", "torch.vstack", "torch.concatenate"})


def tail_slice(node: ast.Subscript) -> ast.expr | None:
    """The negative start of `x[-k:]` / `x[-k:, :]` (an end slice of fixed length), else None."""
    first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
    if not isinstance(first, ast.Slice) or first.upper is not None or first.step is not None:
        return None
    lower = first.lower
    return lower if isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub) else None


def growth(node: ast.Subscript, ctx) -> ast.expr | None:
    """The assignment value that grows the attribute `node` slices (`self.log = np.vstack([self.log, row])`),
    when the attribute lives on an object (self, or an object of a project class self holds) and no write
    trims it (`self.log = self.log[-n:]`)."""
    holder = node.value
    if not isinstance(holder, ast.Attribute) or not isinstance(node.ctx, ast.Load) or tail_slice(node) is None:
        return None
    if is_self_attr(holder, ctx.self_name):
        classes = ctx.project.mro(ctx.cls) if ctx.cls is not None else []
    else:
        classes = [c for c in (ctx.class_for_type(t) for t in ctx.types_of(holder.value)) if c is not None]
        classes = [k for c in classes for k in ctx.project.mro(c)]
    values = [(klass, value) for klass in classes for _, value in klass.attr_values.get(holder.attr, ())]
    grown = None
    for klass, value in values:
        module = ctx.project.modules.get(klass.module)
        if isinstance(value, ast.Subscript) and any(isinstance(n, ast.Attribute) and n.attr == holder.attr
                                                    for n in ast.walk(value)):
            return None    # trimmed to a window somewhere (`self.log = np.vstack([self.log, row])[-n:]`)
        if isinstance(value, ast.Call) and module is not None and value.args and _reads_attr(value.args[0], holder.attr):
            name = ctx.project.qualify(value.func, module)
            if name and ctx.project.external_name(name) in STACKERS:
                grown = value
    if grown is None or not (ctx.is_data(node) or any(holder.attr in ctx.facts.data_attrs.get(k.id, ())
                                                       for k in classes)):
        return None   # a log of timestamps or settings: no pipeline data in it
    return grown


def _reads_attr(expr: ast.expr, attr: str) -> bool:
    """`self.log`, `[self.log, row]`, `(self.log, row)`: the attribute itself, alone or first in a sequence."""
    if isinstance(expr, (ast.List, ast.Tuple)) and expr.elts:
        expr = expr.elts[0]
    return isinstance(expr, ast.Attribute) and expr.attr == attr and isinstance(expr.value, ast.Name)


def growing_slice_message(node: ast.Subscript, grown: ast.expr) -> tuple[str, str]:
    return (f"`{show(node)}` takes a fixed slice of the end of an array that grows on every call (`{show(grown)}`): "
            "until it holds that many rows the slice is shorter, so its size depends on the call count and the "
            "export bakes the traced length",
            "keep a fixed-size window (preallocate the rows and shift, with a count of valid rows as a tensor), "
            "declared as LEAPP state")
