import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def check(node: ast.Call, ctx):
    name = ctx.call_name(node)
    if not name or not name.startswith("numpy.") or name.startswith("numpy.random."):
        return
    if ctx.support.maps_numpy(name) or not ctx.args_data(node):
        return
    short = name.removeprefix("numpy.")
    yield Hit(node, f"`np.{short}` is not mapped by LEAPP {ctx.support.version}; `{show(node)}` runs untraced",
              f"use a mapped NumPy or torch equivalent, or FunctionPatch `{ctx.fn.qualname}` with a torch "
              f"implementation (`generate` writes the patch)")


RULE = Rule(
    code="LCM301", name="unmapped-numpy-call", category="unmapped-numpy", severity="error",
    summary="NumPy function that the installed LEAPP does not map, on pipeline data",
    what="Flags calls to NumPy functions and ufuncs missing from LEAPP's NumPy→torch tables "
         "(read from the installed leapp, e.g. `np.linalg.norm`, `np.interp`, `np.deg2rad`) when they receive pipeline data.",
    why="LEAPP intercepts NumPy through `__array_function__`/`__array_ufunc__` and records a torch op only for "
        "mapped callables. Others log 'No torch equivalent for numpy function ...' and return a plain ndarray: if "
        "it is the only path to an output, `output_tensors` raises 'received non-traced tensors'; mixed with traced "
        "math it is frozen as a constant and the export is wrong on new inputs.",
    fix="Rewrite with mapped functions (e.g. `np.sqrt(np.sum(x**2, axis=-1))` for `np.linalg.norm`, `x * (np.pi/180)` "
        "for `np.deg2rad`) or torch ops, or patch the enclosing helper with `leapp.FunctionPatch`.",
    example="speed = np.linalg.norm(lin_vel, axis=-1, keepdims=True)",
    fixed_example="speed = np.sqrt(np.sum(lin_vel ** 2, axis=-1, keepdims=True))",
    node_types=(ast.Call,), check=check,
    valid=(
        "import numpy as np\ndef step(obs):\n    return np.concatenate([np.sin(obs), np.clip(obs, -1, 1)], axis=-1)\n",
        "import numpy as np\ndef step(obs):\n    table = np.linalg.norm(np.ones(3))\n    return obs * table\n",
    ),
    invalid=(
        "import numpy as np\ndef step(vel):\n    return np.linalg.norm(vel, axis=-1)  # error\n",
        "from numpy import deg2rad\ndef step(cmd):\n    return deg2rad(cmd * 30.0)  # error\n",
    ),
)
