import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

DTYPE_ALIASES = {
    "float": "float64", "double": "float64", "single": "float32", "half": "float16", "float_": "float64",
    "int": "int64", "int_": "int64", "intp": "int64", "long": "int64", "longlong": "int64", "intc": "int32",
    "short": "int16", "byte": "int8", "ubyte": "uint8", "bool_": "bool", "bool": "bool",
    "ushort": "uint16", "uintc": "uint32", "uint": "uint64", "ulonglong": "uint64", "uintp": "uint64",
}


def dtype_name(expr: ast.expr, ctx) -> str | None:
    """'uint16' for np.uint16, 'uint16', np.dtype('uint16'), numpy.uint16 via aliases; None if unknown."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        raw = expr.value
    elif isinstance(expr, ast.Call) and expr.args and ctx.call_name(expr) == "numpy.dtype":
        return dtype_name(expr.args[0], ctx)
    else:
        name = ctx.qualify(expr)
        if name is None:
            return None
        if name.startswith("numpy."):
            raw = name.removeprefix("numpy.")
        elif name in ("float", "int", "bool"):
            raw = name
        else:
            return None
    return DTYPE_ALIASES.get(raw, raw)


def check(node: ast.Call, ctx):
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr != "astype" or not ctx.is_data(func.value):
        return
    dtype_arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "dtype"), None)
    dtype = dtype_name(dtype_arg, ctx) if dtype_arg is not None else None
    if dtype is None or dtype in ctx.support.dtypes:
        return
    yield Hit(node, f"`{show(node)}` casts pipeline data to {dtype}, which LEAPP {ctx.support.version} cannot export",
              "cast at the annotation boundary instead (export float32 and convert after inference), or reproduce the "
              "rounding/truncation with exportable ops (e.g. `np.floor`) in a FunctionPatch")


RULE = Rule(
    code="LCM601", name="unsupported-astype", category="numpy-astype", severity="error",
    summary="`astype` to a dtype LEAPP cannot export",
    what="Flags `.astype(dtype)` on pipeline arrays when `dtype` is outside LEAPP's dtype table "
         "(read from the installed leapp: float16/32/64, int8/16/32/64, uint8, bool).",
    why="LEAPP warns 'astype(<dtype>) has no torch equivalent ... the exported graph will keep float32': the "
        "truncation or wrap-around of the cast is lost, so values differ from the original. As a node output the "
        "dtype crashes export (`KeyError: torch.uint16`).",
    fix="Keep an exportable dtype inside the graph and reproduce the rounding explicitly (`np.floor`, `np.clip`); "
        "convert to the device dtype after inference, outside the exported model.",
    example="ticks = np.clip(raw, 0, 4095).astype(np.uint16)",
    fixed_example="ticks = np.floor(np.clip(raw, 0, 4095))  # cast to uint16 on the host after inference",
    node_types=(ast.Call,), check=check,
    valid=(
        "import numpy as np\ndef step(obs):\n    return obs.astype(np.float32)\n",
    ),
    invalid=(
        "import numpy as np\ndef step(depth):\n    return (depth * 100.0).astype(np.uint16)  # error\n",
    ),
)
