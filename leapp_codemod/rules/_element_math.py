"""One element of a NumPy vector of pipeline data read inside arithmetic (`thrust = (act[3] + 1) / 2`), where
the function reads other positions of the same vector too (`act[0] * k`, `act[1:3]`): the components of a
vector taken out one by one. LEAPP's traced array returns a plain NumPy scalar for an integer index, so what is
computed from it is a constant in the export (checked with the installed leapp 0.7.2: tests/
test_leapp_bool_and_scalars.py)."""
from __future__ import annotations

import ast

from leapp_codemod.rules._array_uses import many_dimensions


def _integer(index: ast.expr) -> bool:
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index = index.operand
    return isinstance(index, ast.Constant) and type(index.value) is int


def _positions(ctx) -> dict[str, set]:
    """Array text -> the constant positions (and 'slice') the function reads it at (found once per function)."""
    found = ctx.fn.walks.get("element_positions")
    if found is None:
        found = {}
        for n in ctx.fn.nodes:
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) \
                    and isinstance(n.value, (ast.Name, ast.Attribute)):
                key = ast.unparse(n.value)
                if _integer(n.slice):
                    found.setdefault(key, set()).add(ast.unparse(n.slice))
                elif isinstance(n.slice, ast.Slice):
                    found.setdefault(key, set()).add("slice")
        ctx.fn.walks["element_positions"] = found
    return found


def element_in_arithmetic(node: ast.Assign, ctx, vector) -> ast.Subscript | None:
    """The element read `a[k]` an operand of arithmetic in the assigned value, with `a` a NumPy vector of pipeline
    data (`vector(a, ctx)`) the function also reads at another position or as a slice."""
    for n in ast.walk(node.value):
        if not isinstance(n, ast.BinOp):
            continue
        for side in (n.left, n.right):
            if isinstance(side, ast.Subscript) and isinstance(side.value, (ast.Name, ast.Attribute)) \
                    and _integer(side.slice) and len(_positions(ctx).get(ast.unparse(side.value), ())) >= 2 \
                    and vector(side.value, ctx):
                return side
    return None


def vector_element(read: ast.Subscript, ctx) -> bool:
    """`q[1]`: one position of a NumPy vector of pipeline data (a name or an attribute, indexed by one integer,
    never with two indices anywhere in the function), whose other positions the function reads too (one
    position alone is more often the first row of a batch: a row, not a scalar)."""
    value = read.value
    return isinstance(value, (ast.Name, ast.Attribute)) and _integer(read.slice) \
        and len(_positions(ctx).get(ast.unparse(value), ())) >= 2 and ctx.is_numpy(value) and ctx.is_data(value) \
        and not many_dimensions(value, ctx)
