"""NumPy scalar types called on pipeline data: `np.float32(x)` -> `twin_numpy_scalar(np.float32, x)`.

A NumPy scalar type is a type, not a function: a FunctionPatch would put a function in its place (and
every `astype(np.float32)` while tracing would fail), and the constructor itself turns a traced value
into a plain number. In a twin the call converts a tensor or array to the type's dtype, keeping it in
the trace, and runs the constructor itself on Python numbers (a flag or counter the host keeps)."""
from __future__ import annotations

import libcst as cst

from leapp_codemod.generate.twin.base import Example, TwinRule, call
from leapp_codemod.knowledge.vocab import NUMPY_SCALAR_TYPES


class ScalarTypes(TwinRule):
    CATEGORIES = ("unmapped-numpy", "scalar-extraction")
    EXAMPLES = (
        Example("import numpy as np\n\n\ndef f(v, gain):\n    return np.float32(v[0] * gain) + v\n",
                (("unmapped-numpy", "np.float32(v[0] * gain)"),),
                "def f(v, gain):\n    return twin_numpy_scalar(np.float32, v[0] * gain) + v\n"),
        Example("import numpy\n\n\ndef f(x, n):\n    return x * numpy.float64(n > 3)\n",
                (("scalar-extraction", "numpy.float64(n > 3)"),),
                "def f(x, n):\n    return x * twin_numpy_scalar(numpy.float64, n > 3)\n"),
    )

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        target = self.ctx.qualified(updated.func)
        module, _, name = target.rpartition(".")
        if not self.depth or module != "numpy" or name not in NUMPY_SCALAR_TYPES or len(updated.args) != 1 \
                or updated.args[0].keyword or updated.args[0].star:
            return super().leave_Call(original, updated)
        p = self.pos(original)
        flags = [f for f in self.flags_on(original, *ScalarTypes.CATEGORIES)
                 if (f.line, f.col) >= (p.start.line, p.start.column)]   # not a flag on a whole enclosing join
        if not flags:
            return super().leave_Call(original, updated)
        self.use(flags, "NumPy scalar types called on pipeline data convert tensors and arrays to their dtype "
                        "(`twin_numpy_scalar`)")
        return call("twin_numpy_scalar", updated.func, updated.args[0].value)
