import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def check(node: ast.Call, ctx):
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr != "squeeze" or node.args or node.keywords:
        return
    if not ctx.is_numpy(func.value) or not ctx.is_data(func.value):
        return
    yield Hit(node, f"`{show(node)}` squeezes a NumPy array of the pipeline without an axis; LEAPP "
                    f"{ctx.support.version} records it as `torch.squeeze(x, dim=None)`, which tracing accepts and "
                    f"the export rejects",
              "name the axes to drop: `a.squeeze(axis=0)` (or `np.squeeze(a)` / `a.reshape(...)` with the "
              "fixed shape)")


RULE = Rule(
    code="LCM303", name="squeeze-without-axis", category="unmapped-numpy", severity="error",
    summary="`ndarray.squeeze()` without an axis on pipeline data",
    what="Flags the ndarray method `.squeeze()` called with no axis on a NumPy array of the pipeline. Not "
         "flagged: `.squeeze(axis)`, the function `np.squeeze(a)`, and `.squeeze()` on torch tensors.",
    why="LEAPP 0.7.2's traced array implements the method as `np.squeeze(self, axis=None)` and maps it to "
        "`torch.squeeze` with the keyword renamed, so the graph records `torch.squeeze(x, dim=None)`. Tracing "
        "runs (the values are right), then `compile_graph` fails: `torch.export` rejects `dim=None` ('squeeze() "
        "received an invalid combination of arguments'), a TorchExportError on the node. Checked with the "
        "installed LEAPP: `.squeeze()` fails to export, `.squeeze(axis=0)` and `np.squeeze(a)` export and validate.",
    fix="Name the axes the pipeline drops (`a.squeeze(axis=0)`), or call the function form `np.squeeze(a)`.",
    example="action = (obs @ w).squeeze()",
    fixed_example="action = (obs @ w).squeeze(axis=0)",
    node_types=(ast.Call,), check=check,
    valid=(
        "import numpy as np\ndef step(obs):\n    x = np.tanh(obs)\n    return x.squeeze(0), np.squeeze(x)\n",
        "import torch\ndef step(obs):\n    return torch.tanh(obs).squeeze()\n",
    ),
    invalid=(
        "import numpy as np\ndef step(obs, w):\n    q = np.clip(obs, -1.0, 1.0)\n    return np.dot(q, w).squeeze()  # error\n",
    ),
)
