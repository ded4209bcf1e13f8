import ast

from leapp_codemod.knowledge.vocab import NDARRAY_FLAG_METHODS, NDARRAY_METHODS
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

HANDLED_ELSEWHERE = frozenset({"item", "tolist", "numpy", "astype", "copy"})


def check(node: ast.Call, ctx):
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in NDARRAY_METHODS or func.attr in HANDLED_ELSEWHERE \
            or func.attr in NDARRAY_FLAG_METHODS:
        return
    if func.attr in ctx.support.traced_methods or not ctx.is_numpy(func.value) or not ctx.is_data(func.value):
        return
    yield Hit(node, f"ndarray method `.{func.attr}()` in `{show(node)}` is not traced by LEAPP {ctx.support.version}",
              f"call the mapped NumPy function instead (e.g. `np.{func.attr}(a, ...)` if LEAPP maps it) or torch ops")


RULE = Rule(
    code="LCM302", name="untraced-ndarray-method", category="unmapped-numpy", severity="error",
    summary="ndarray method that LEAPP's traced array does not override, on pipeline data",
    what="Flags methods called on a NumPy array of the pipeline that LEAPP's `TracedNpArray` does not override "
         "(e.g. `a.dot`, `a.repeat`, `a.take`, `a.prod`). `a.setflags(...)` changes only the array's flags (no "
         "value in or out) and is not flagged.",
    why="An un-overridden method runs on the raw buffer. Its result silently inherits the source array's graph "
        "node, so the export returns the input unchanged (`dot`, `repeat`, `take`), or tracing raises (`prod`).",
    fix="Use the NumPy function form that LEAPP maps (`np.dot(a, b)`, `np.sum`, ...) or torch ops.",
    example="y = x.dot(w)",
    fixed_example="y = np.dot(x, w)",
    node_types=(ast.Call,), check=check,
    in_libraries=False,  # a library's own ndarray round trips (`.cpu().numpy()`) are traced by LEAPP
    valid=(
        "import numpy as np\ndef step(obs):\n    x = np.asarray(obs)\n    return x.reshape(1, -1).sum(axis=0)\n",
        "import numpy as np\ndef step(obs):\n    if isinstance(obs, np.ndarray):\n        return np.tanh(obs)\n"
        "    return {k: np.tanh(v) for k, v in obs.items()}\n",
        "import numpy as np\ndef step(obs):\n    x = np.tanh(obs)\n    x.setflags(write=True)\n    return x * 2\n",
    ),
    invalid=(
        "import numpy as np\ndef step(obs, w):\n    x = np.tanh(obs)\n    return x.dot(w)  # error\n",
    ),
)
