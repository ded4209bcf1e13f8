import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

# Functions and methods whose result is a boolean mask of their argument.
MASK_FUNCTIONS = frozenset({"torch.isnan", "torch.isfinite", "torch.isinf", "torch.logical_and", "torch.logical_or",
                            "torch.logical_not", "torch.gt", "torch.lt", "torch.ge", "torch.le", "torch.eq", "torch.ne",
                            "torch.all", "torch.any", "numpy.isnan", "numpy.isfinite", "numpy.isinf",
                            "numpy.logical_and", "numpy.logical_or", "numpy.logical_not", "numpy.all", "numpy.any"})
MASK_METHODS = frozenset({"isnan", "isfinite", "isinf", "logical_not", "logical_and", "logical_or", "gt", "lt", "ge",
                          "le", "eq", "ne", "bool"})
_MAX_HOPS = 3


def is_mask(e: ast.expr, ctx, hops: int = 0) -> bool:
    """A boolean mask of pipeline data: a comparison, `~m`, `m1 & m2`, `torch.isnan(x)`, `x.gt(0)`, or a name
    bound once in the function to one of them."""
    if isinstance(e, ast.Compare):
        return ctx.is_data(e)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.Invert, ast.Not)):
        return is_mask(e.operand, ctx, hops)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return is_mask(e.left, ctx, hops) or is_mask(e.right, ctx, hops)
    if isinstance(e, ast.Call):
        if ctx.call_name(e) in MASK_FUNCTIONS:
            return ctx.args_data(e)
        func = e.func
        return isinstance(func, ast.Attribute) and func.attr in MASK_METHODS and ctx.is_data(func.value)
    if isinstance(e, ast.Name) and hops < _MAX_HOPS:
        bound = ctx.fn.assigned(e.id)
        return len(bound) == 1 and is_mask(bound[0], ctx, hops + 1)
    return False


def check(node: ast.Subscript, ctx):
    if not isinstance(node.ctx, ast.Load) or not ctx.is_data(node.value):
        return
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    mask = next((p for p in parts if is_mask(p, ctx)), None)
    if mask is None or ctx.only_logged(node):
        return
    yield Hit(node, f"`{show(node)}` selects entries of pipeline data by the boolean mask `{show(mask)}`: how many "
                    "it keeps depends on the data, and the export keeps the traced count",
              "keep the shape: weigh or zero the entries instead of selecting them (`torch.where(mask, x, 0)`, "
              "`x * mask.float()`, a masked sum divided by `mask.sum()`)")


RULE = Rule(
    code="LCM003", name="mask-index", category="shape-specialization", severity="error",
    summary="boolean-mask indexing of pipeline data (a data-dependent size)",
    what="Flags reads that select entries of pipeline data with a boolean mask computed from pipeline data: "
         "`x[x > 0]`, `acts[valid]` where `valid = torch.all(acts != 0, dim=1)`, `r[~np.isnan(r)]`. Writes "
         "through a mask (`x[mask] = 0`) keep the shape and are not flagged: checked with the installed leapp "
         "0.7.2, `y[y > c] = v` with a constant `v` exports to ONNX and matches fresh inputs whatever the count "
         "(tests/test_leapp_mask_writes.py); a selection written as the value (`y[m] = x[m]`) is a read, "
         "flagged.",
    why="The number of selected entries is decided by the values. LEAPP records the selection with the count "
        "seen while tracing; a later call with another count fails when LEAPP re-enters the traced graph "
        "('Reentering ... new i/o'), and exporters that accept it fix the traced size.",
    fix="Keep the shape: zero or weigh the unselected entries (`torch.where(mask, x, 0)`, `x * mask`) and "
        "reduce with the mask (`(x * m).sum(0) / m.sum(0)`).",
    example="valid = torch.all(chunk != 0, dim=1)\nmean = chunk[valid].mean(0)",
    fixed_example="valid = torch.all(chunk != 0, dim=1, keepdim=True).float()\n"
                  "mean = (chunk * valid).sum(0) / valid.sum(0)",
    node_types=(ast.Subscript,), check=check,
    valid=(
        "import torch\ndef step(x):\n    x[x > 1.0] = 1.0\n    return x\n",
        "import torch\ndef step(x, cfg):\n    return x[cfg.joint_ids]\n",
    ),
    invalid=(
        "import torch\ndef step(chunk):\n    valid = torch.all(chunk != 0, dim=1)\n"
        "    return chunk[valid].mean(0)  # error\n",
        "import numpy as np\ndef step(ranges):\n    return np.min(ranges[~np.isnan(ranges)])  # error\n",
    ),
)
