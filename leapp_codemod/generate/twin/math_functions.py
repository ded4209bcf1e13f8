"""scalar-extraction through `math`: `math.sin(x)` -> `twin_math(torch.sin, np.sin, math.sin, x)`.

A `math` function takes Python numbers: on a tensor it calls `__float__`, and the trace keeps the
number it saw (or a state carried as a tensor fails there). In a twin every call of a `math` function
that has an elementwise torch and NumPy equivalent (`knowledge.vocab.MATH_TWINS`) dispatches on its
arguments at run time: torch's function on a tensor, NumPy's on an array, `math`'s own on Python
numbers, so a value the host keeps as a number is computed exactly as before. Constants (`math.pi`)
stay as they are."""
from __future__ import annotations

import libcst as cst

from leapp_codemod.generate.twin.base import Example, TwinRule, attr, call
from leapp_codemod.knowledge.vocab import MATH_TWINS


class MathFunctions(TwinRule):
    CATEGORIES = ("scalar-extraction",)
    EXAMPLES = (
        Example("import math\n\n\ndef f(t, period):\n    return math.sin(2.0 * math.pi * t / period)\n",
                (("scalar-extraction", "math.sin(2.0 * math.pi * t / period)"),),
                "def f(t, period):\n    return twin_math(torch.sin, np.sin, math.sin, 2.0 * math.pi * t / period)\n"),
        Example("from math import atan2\n\n\ndef f(v):\n    return atan2(v[1], v[0])\n",
                (("scalar-extraction", "atan2(v[1], v[0])"),),
                "def f(v):\n    return twin_math(torch.atan2, np.arctan2, atan2, v[1], v[0])\n"),
    )

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        target = self.ctx.qualified(updated.func)
        module, _, fn = target.rpartition(".")
        if module != "math" or fn not in MATH_TWINS or not updated.args or any(
                a.keyword or a.star for a in updated.args):
            return super().leave_Call(original, updated)
        self.use(self.flags_on(original, *MathFunctions.CATEGORIES),
                 "`math` functions dispatched on their arguments: torch's on tensors, NumPy's on arrays, "
                 "`math`'s on Python numbers (`twin_math`)")
        torch_fn, numpy_fn = MATH_TWINS[fn]
        return call("twin_math", attr(f"torch.{torch_fn}"), attr(f"np.{numpy_fn}"), updated.func,
                    *[a.value for a in updated.args])
