"""The not-followed reason for a call of a library object a project helper builds (`make_tf()(frame)`): the
library class, where it is built, and whether the library is there to read."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.libraries import library_available


def library_object_reason(ctx, func: ast.expr) -> str | None:
    """`make_tf()` returns a `torchvision.transforms.Compose` (built at vision.py:8), from a module neither in the
    scanned code nor installed; None when the called object is not built by a library call the scan sees."""
    built = ctx.library_callables(func)
    if not built:
        return None
    first = built[0]
    where = "neither in the scanned code nor installed in this environment" \
        if not library_available(ctx.project, first.name) else "installed, whose code the scan does not follow"
    return f"`{ast.unparse(func)[:60]}` returns a `{first.name}` (built at {first.where}), from a module {where}"
