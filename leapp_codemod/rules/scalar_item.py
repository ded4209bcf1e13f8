import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def check(node: ast.Call, ctx):
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("item", "tolist") and not node.args \
            and ctx.is_data(func.value) and not ctx.only_logged(node):
        yield Hit(node, f"`{show(node)}` turns pipeline data into a Python value that the trace freezes as a constant",
                  f"keep the value as a tensor (drop `.{func.attr}()` and use tensor ops such as torch.clamp/torch.where), "
                  f"or FunctionPatch `{ctx.fn.qualname}` with a tensor-only replacement")


RULE = Rule(
    code="LCM101", name="item-tolist", category="scalar-extraction", severity="error",
    summary="`.item()` / `.tolist()` on pipeline data",
    what="Flags `.item()` and `.tolist()` called on a tensor or array that derives from the pipeline's inputs or "
         "state. The list `.tolist()` returns stays pipeline data: a branch on its numbers, or an array rebuilt from "
         "it and turned into a list again, is reported too.",
    why="LEAPP records tensor operations. `.item()`/`.tolist()` return Python numbers, which leave the graph: "
        "whatever is computed from them is baked into the export as the value seen while tracing "
        "(silent, only a DEBUG log line), or the output loses its graph and `output_tensors` raises "
        "'received non-traced tensors'. LEAPP's own validation with one traced call passes; fresh inputs do not.",
    fix="Keep the computation in tensor ops (`torch.clamp`, `torch.where`, comparisons cast with `.to(dtype)`). "
        "If the code is in a helper you cannot change, `generate` writes a `leapp.FunctionPatch` for it.",
    example="def approach_speed(delta, cfg):\n    dist = delta.norm().item()\n    return min(1.0, dist / cfg.radius)",
    fixed_example="def approach_speed(delta, cfg):\n    return torch.clamp(delta.norm() / cfg.radius, max=1.0)",
    node_types=(ast.Call,), check=check,
    valid=(
        "import torch\ndef step(obs, cfg):\n    gain = cfg.gain.item() if hasattr(cfg.gain, 'item') else cfg.gain\n    return obs * gain\n",
        "import torch\ndef step(obs):\n    return obs * 2\n\ndef stats(values):\n    return values.mean().item()\n",
    ),
    invalid=(
        "import torch\ndef step(obs):\n    scale = obs.norm().item()  # error\n    return obs / scale\n",
        "import torch\ndef step(obs):\n    return torch.tensor(obs[0].tolist())  # error\n",
        "import numpy as np\nimport torch\ndef step(obs):\n    vals = (obs * 2).numpy().tolist()  # error\n"
        "    arr = np.asarray(vals) * 0.5\n    return torch.as_tensor(arr.tolist())  # error\n",
    ),
)
