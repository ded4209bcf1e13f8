"""numpy-astype: `.astype(np.uint16)` -> `.astype(np.int32)`.

LEAPP cannot export unsigned dtypes wider than uint8; the signed dtype in `facts.SIGNED_FOR` holds
every value of the unsigned one, so values in range are unchanged (the integration module casts back
at the boundary)."""
from __future__ import annotations

import libcst as cst

from leapp_codemod.knowledge.leapp import SIGNED_FOR
from leapp_codemod.generate.twin.base import Example, TwinRule, attr


class UnsignedAstype(TwinRule):
    CATEGORIES = ("numpy-astype",)
    EXAMPLES = (
        Example("import numpy as np\n\n\ndef f(d):\n    return (d * 100.0).astype(np.uint16)\n",
                (("numpy-astype", ".astype(np.uint16)"),),
                "def f(d):\n    return (d * 100.0).astype(np.int32)\n"),
        Example("def f(d):\n    return d.astype('uint32', copy=False)\n",
                (("numpy-astype", ".astype('uint32', copy=False)"),),
                "def f(d):\n    return d.astype(np.int64, copy=False)\n"),
    )

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = updated.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "astype"):
            return super().leave_Call(original, updated)
        flags = self.flags_on(original, *UnsignedAstype.CATEGORIES)
        target = updated.args[0].value if updated.args else None
        dtype = target.value.strip("'\"") if isinstance(target, cst.SimpleString) else (
            target.attr.value if isinstance(target, cst.Attribute) else None)
        if not flags or dtype not in SIGNED_FOR:
            return super().leave_Call(original, updated)
        self.use(flags, "casts to unsigned dtypes LEAPP lacks written as signed ones (same values in range)")
        return updated.with_changes(args=[cst.Arg(attr(f"np.{SIGNED_FOR[dtype]}"))] + [
            a for a in updated.args[1:] if a.keyword is None or a.keyword.value != "dtype"])
