"""A closure's free names hold what its enclosing call's parameters hold.

`def process(x): if clip: ...` nested in `def sample(model, clip=True)` reads `clip` from the call of `sample`
it was made in: when every call of `sample` passes `clip` as a constant (or leaves the default, and no caller
overrides it), the closure's block on `clip` is decided by that setting, exactly as a block of `sample` itself.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import FunctionInfo

LOCALS = ".<locals>."


def share_enclosing_constants(param_constants: dict[str, dict[str, set]], fn: FunctionInfo) -> None:
    """Give the closure `fn` its enclosing function's constant table entries for the names it reads but neither
    binds nor takes as parameters (the same set objects, so what later passes add to the enclosing function's
    entries reaches the closure)."""
    if LOCALS not in fn.qualname:
        return
    outer_id = f"{fn.module}:{fn.qualname.rpartition(LOCALS)[0]}"
    outer = param_constants.get(outer_id)
    if not outer:
        return
    own = param_constants.setdefault(fn.id, {})
    bound = set(fn.params) | {n.id for n in fn.nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for name in {n.id for n in fn.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound:
        if name in outer and name not in own:
            own[name] = outer[name]
