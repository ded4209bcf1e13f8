import ast

from leapp_codemod.rules._helpers import is_number, last_dimension, show
from leapp_codemod.rules.base import Hit, Rule


def _mixes_shape(values: list[ast.expr], ctx) -> bool:
    if any(last_dimension(v, ctx) for v in values) and not any(
            ctx.is_shape(v) and not last_dimension(v, ctx) for v in values):
        return False  # `width * self.horizon`: the last dimension is fixed for the pipeline
    shapes = [v for v in values if ctx.is_shape(v)]
    others = [v for v in values if not ctx.is_shape(v) and not is_number(v)]
    return bool(shapes) and bool(others)


def check(node, ctx):
    if isinstance(node, ast.BinOp):
        operands = [node.left, node.right]
    elif isinstance(node, ast.Call) and ctx.builtin(node) in ("min", "max"):
        operands = list(node.args)
    else:
        return
    if any(isinstance(o, ast.BinOp) and _mixes_shape([o.left, o.right], ctx) for o in operands):
        return  # `(n - x.shape[0]) * 2`: reported once, at the part that mixes them
    if _mixes_shape(operands, ctx):
        yield Hit(node, f"`{show(node)}` computes with a run-time shape of pipeline data; the export bakes in the "
                        f"traced size",
                  "pad or crop to a fixed size before the exported pipeline and pass a mask or count as a tensor input")


RULE = Rule(
    code="LCM002", name="shape-arithmetic", category="shape-specialization", severity="warning",
    summary="arithmetic mixing a run-time shape of pipeline data with other values",
    what="Flags arithmetic and `min`/`max` that combine `.shape`/`.size()`/`len()` of pipeline data with a "
         "configuration value or other data (padding amounts, count-based features). Pure shape arithmetic "
         "(`x.shape[0] * 2`, `x.view(x.shape[0], -1)`) is not flagged, nor arithmetic on the last dimension or the "
         "rank, which a pipeline fixes (`feats.shape[-1] * horizon`: a feature width, an action dimension). A "
         "nested mix is reported once, at its innermost part.",
    why="Shapes are Python ints while tracing, so the result is a constant of the traced size: padding by "
        "`max_count - count` or a feature `count / max_count` is frozen, and other sizes either fail in ONNX Runtime "
        "or silently reuse the traced value.",
    fix="Compute the variable-size part in the host runtime and feed a fixed-size tensor (and the count as a "
        "tensor) to the exported pipeline.",
    example="pad = torch.zeros(max_count - points.shape[0], 2)",
    fixed_example="# host runtime pads to max_count; the exported model takes (slots, mask)",
    node_types=(ast.BinOp, ast.Call), check=check,
    valid=(
        "def step(obs):\n    return obs.reshape(obs.shape[0] * 2, -1)\n",
        "def step(obs, query):\n    return query.expand(obs.shape[0], -1)\n",
        "def step(feats, horizon):\n    width = feats.shape[-1]\n    return feats.reshape(-1, width * horizon)\n",
    ),
    invalid=(
        "import torch\ndef step(points, max_count):\n    pad = torch.zeros(max_count - points.shape[0], 2)  # error\n    return pad\n",
        "def step(tokens, budget):\n    spare = ((budget - tokens.shape[1]) * 4) // 2  # error\n    return tokens[:, :spare]\n",
    ),
)
