"""Answers a function picks by a test of pipeline data: `if dist < tol: return True` makes which constant it
returns follow the data, so a caller's branch on the answer is a branch on the data."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.type_tests import parent_map, type_answer


def return_chosen_by_data(ctx, ret: ast.Return) -> bool:
    """A `return` inside an `if`/`while` whose test is pipeline data (not a setting, not a question about types
    or shapes): which answer the function gives is decided by the data, so a caller's branch on the answer is one
    on the data (`if dist < tol: return True` ... `if self.reached(state):`)."""
    parents = parent_map(ctx.fn)
    child, parent = ret, parents.get(id(ret))
    while parent is not None and parent is not ctx.fn.node:
        if isinstance(parent, (ast.If, ast.While)) and child is not parent.test and ctx.is_data(parent.test) \
                and not type_answer(parent.test, ctx) and not ctx.is_shape(parent.test) \
                and not ctx.decided_by_settings(parent):
            return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        child, parent = parent, parents.get(id(parent))
    return False
