"""LCM114: a write into pipeline data through an index that is a plain NumPy array (the LEAPP fact:
`knowledge.leapp.PLAIN_INDEX_WRITE_RAISES`)."""
import ast

from leapp_codemod.analysis.infer.context import ARRAY_BUILDERS, is_self_attr
from leapp_codemod.knowledge.leapp import PLAIN_INDEX_WRITE_RAISES
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule
from leapp_codemod.rules.scratch_buffer import untraced_buffer

# NumPy calls that make a 0-d value, not an array: a key of that kind is a number.
_SCALAR_CASTS = frozenset(f"numpy.{t}" for t in ("float16", "float32", "float64", "int8", "int16", "int32", "int64",
                                                 "uint8", "bool_", "intp"))
_MAX_HOPS = 4


def plain_array(e: ast.expr | None, ctx, hops: int = 0) -> str:
    """How `e` is a NumPy array LEAPP does not trace, as words for the message ('' when it is not, or when
    unsure): the answer of a NumPy function LEAPP does not map on pipeline data (`np.isin(x, v)`), an array built
    from constants or settings (`np.array([3, 0, 2])`, `np.arange(n)`), a name or an attribute of self every
    binding of which is one, a module global bound to one, and comparisons, `~`, `&`, `|` and slices of them."""
    if e is None or hops > _MAX_HOPS:
        return ""
    if isinstance(e, ast.Call):
        return _plain_call(e, ctx, hops)
    if isinstance(e, ast.Name):
        return _plain_name(e, ctx, hops)
    if isinstance(e, ast.Attribute):
        if not (is_self_attr(e, ctx.self_name) and ctx.cls is not None) or ctx.is_data(e):
            return ""
        values = [v for klass in ctx.project.mro(ctx.cls) for _, v in klass.attr_values.get(e.attr, ())]
        kinds = [plain_array(v, ctx, hops + 1) if isinstance(v, ast.Call) else "" for v in values]
        return kinds[0] if kinds and all(kinds) else ""
    if isinstance(e, ast.Subscript):
        return "" if ctx.is_data(e.slice) else plain_array(e.value, ctx, hops + 1)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.Invert, ast.Not)):
        return plain_array(e.operand, ctx, hops + 1)
    operands = [e.left, e.right] if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.BitAnd, ast.BitOr, ast.BitXor)) \
        else [e.left, *e.comparators] if isinstance(e, ast.Compare) else []
    kinds = [plain_array(o, ctx, hops + 1) for o in operands]
    plain = next((k for k in kinds if k), "")
    # a traced operand makes the answer traced (`IDX > x`), unless it is itself untraced (`np.isin(x, v) & m`)
    return plain if plain and all(k or not ctx.is_data(o) for k, o in zip(kinds, operands)) else ""


def _plain_call(call: ast.Call, ctx, hops: int) -> str:
    name = ctx.call_name(call) or ""
    if not name.startswith("numpy.") or name.startswith("numpy.random.") or name in _SCALAR_CASTS:
        return ""
    if ctx.args_data(call):
        mapped = ctx.support.maps_numpy(name) or ctx.is_type_query(call)
        args = [a for a in (*call.args, *(k.value for k in call.keywords)) if ctx.is_data(a)]
        if all(plain_array(a, ctx, hops + 1) for a in args):   # `~np.logical_not(np.isin(x, v))`: untraced all along
            return "an array made from untraced arrays"
        return "" if mapped else f"the answer of `np.{name[6:]}`, which LEAPP {ctx.support.version} does not map"
    if name in ARRAY_BUILDERS:
        return "an array built from constants"
    args = [*call.args, *(k.value for k in call.keywords)]
    return "an array made from untraced arrays" if any(plain_array(a, ctx, hops + 1) for a in args) else ""


def _plain_name(e: ast.Name, ctx, hops: int) -> str:
    if e.id in ctx.fn.params:
        return ""
    bound = list(ctx.fn.assigned(e.id))
    above = [v for v in bound if getattr(v, "lineno", 0) < e.lineno]
    values = [max(above, key=lambda v: v.lineno)] if above else bound    # the binding nearest above the write
    if not values:
        outer = ctx.fn.outer_values.get(e.id) if ctx.fn.outer_values else None
        value = outer if isinstance(outer, ast.expr) else ctx.module.globals.get(e.id)
        values = [value] if value is not None else []
    kinds = [plain_array(v, ctx, hops + 1) for v in values]
    return kinds[-1] if kinds and all(kinds) else ""


def _keys(target: ast.Subscript) -> list[ast.expr]:
    return list(target.slice.elts) if isinstance(target.slice, ast.Tuple) else [target.slice]


def check(node: ast.Assign | ast.AugAssign, ctx):
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        if not isinstance(target, ast.Subscript) or not ctx.is_data(target.value) \
                or untraced_buffer(target.value, node.lineno, ctx) or ctx.only_logged(node):
            continue
        for key in _keys(target):
            kind = plain_array(key, ctx)
            if kind:
                yield Hit(target, f"`{show(target)}` writes into pipeline data through `{show(key)}`, {kind}: "
                                  f"{PLAIN_INDEX_WRITE_RAISES} (the key cannot enter the graph)",
                          "select with the mask instead of writing through it (`x = np.where(mask, v, x)`), compute the "
                          "mask with mapped operations on the data (`~np.isfinite(x)`, `x == v`), or make a constant "
                          "index a list or a torch tensor (`x[[3, 0, 2]] = v`)")
                break


RULE = Rule(
    code="LCM114", name="plain-index-write", category="unmapped-numpy", severity="error",
    summary="a write into pipeline data through an index that is a plain NumPy array",
    what="Flags `x[key] = v` and `x[key] += v` where `x` is pipeline data (a traced array or tensor, not a NumPy "
         "buffer allocated from constants: LCM703) and the key, or a part of a tuple key, is a NumPy array LEAPP "
         "does not trace: the answer of a NumPy function LEAPP does not map called on pipeline data "
         "(`mask = np.isin(x, bad)`, reported itself by LCM301), an array built from constants or settings "
         "(`IDX = np.array([3, 0, 2, 1])`, `np.arange(n)`, `self.joint_ids = np.asarray(cfg.ids)`), a local, a "
         "module global or an attribute of self every binding of which is one, and comparisons, `~`, `&`, `|` "
         "and slices of them. Not a read through such an index, nor a key that is a list, a torch tensor or a "
         "mask computed with mapped operations on the data (`x[x > c] = 0`, `x[~np.isfinite(x)] = 0`).",
    why="Checked with the installed LEAPP 0.7.2 (tests/test_leapp_plain_index_write.py): the traced array's "
        "`__setitem__` records the key in the graph as it is, and torch.fx refuses an ndarray argument, so the "
        "trace stops with NotImplementedError ('argument of type: <class 'numpy.ndarray'>'), for NumPy and torch "
        "destinations, boolean and integer keys, `=` and `+=`. The same read (`x[IDX]`) and a list key trace.",
    fix="Select instead of writing (`x = np.where(mask, v, x)`), compute the mask with mapped operations on the data "
        "(`~np.isfinite(x)`, `x == v`, `(x == a) | (x == b)` for `np.isin`), or write a constant index as a list or "
        "a torch tensor.",
    example="mask = np.isin(ranges, [np.inf, -np.inf])\nranges[mask] = max_range",
    fixed_example="ranges = np.where(np.isfinite(ranges), ranges, max_range)",
    node_types=(ast.Assign, ast.AugAssign), check=check,
    valid=(
        # a mask computed with mapped operations on the data: traced
        "import numpy as np\ndef step(x):\n    y = x * 2.0\n    y[~np.isfinite(y)] = 0.0\n    y[y > 1.0] = 1.0\n"
        "    return y\n",
        # reading through a constant index array, writing through a list
        "import numpy as np\nIDX = np.array([3, 0, 2, 1])\ndef step(x):\n    y = x[IDX] * 2.0\n"
        "    y[[0, 2]] = 0.0\n    return y\n",
        # a NumPy buffer allocated from constants: LCM703's case, not this one
        "import numpy as np\nIDX = np.array([3, 0, 2, 1])\ndef step(x):\n    buf = np.zeros(4)\n"
        "    buf[IDX] = 1.0\n    return x + buf\n",
    ),
    invalid=(
        "import numpy as np\ndef step(scan, far):\n    r = scan / far\n    hit = np.isin(r, [np.inf, -np.inf])\n"
        "    r[hit] = 1.0  # error\n    return r\n",
        "import numpy as np\nORDER = np.array([3, 0, 2, 1])\ndef step(q):\n    out = q * 0.5\n"
        "    out[ORDER] += q  # error\n    return out\n",
        "import numpy as np\nimport torch\nclass Arm:\n    def __init__(self, n):\n"
        "        self.wrist = np.arange(n - 2, n)\n\n    def step(self, obs):\n        act = torch.tanh(obs)\n"
        "        act[:, self.wrist] = 0.0  # error\n        return act\n",
    ),
)
