import ast

from leapp_codemod.knowledge.vocab import LEGACY_TENSOR_CONSTRUCTORS
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def data_argument(node: ast.Call, ctx) -> ast.expr | None:
    """The one positional argument of a legacy constructor when it is pipeline data (an array, a tensor, a list
    holding traced values); none for sizes (`torch.FloatTensor(3, 4)`, `torch.LongTensor(x.shape[0])`),
    constants and settings."""
    if len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
        return None
    arg = node.args[0]
    if isinstance(arg, (ast.List, ast.Tuple)):
        held = [e for e in arg.elts if ctx.is_data(e) and not ctx.is_shape(e)]
        return arg if held else None
    return arg if ctx.is_data(arg) and not ctx.is_shape(arg) else None


def check(node: ast.Call, ctx):
    if not isinstance(node.func, ast.Attribute) or not node.func.attr.endswith("Tensor"):
        return
    called = ctx.call_name(node)
    dtype = LEGACY_TENSOR_CONSTRUCTORS.get(called or "")
    arg = data_argument(node, ctx) if dtype else None
    if arg is None or ctx.only_logged(node):
        return
    device = ".cuda()" if called.startswith("torch.cuda.") else ""
    yield Hit(node, f"`{show(node)}` builds a tensor from pipeline data with the legacy constructor `{called}`; "
                    f"LEAPP {ctx.support.version} traces only `torch.tensor`/`torch.as_tensor`/`torch.from_numpy`, so "
                    "the result is a plain tensor and the values are exported as constants",
              f"use `torch.as_tensor({show(arg)}, dtype={dtype}){device}`"
              + (" (for a Python list of values, stack them: `torch.stack([...])`)" if _python_list(arg, ctx) else ""))


def _python_list(arg: ast.expr, ctx) -> bool:
    """A list literal or comprehension, or a name the function binds to one: its elements are separate values."""
    if isinstance(arg, (ast.List, ast.Tuple, ast.ListComp)):
        return True
    return isinstance(arg, ast.Name) and any(
        isinstance(n, ast.Assign) and isinstance(n.value, (ast.List, ast.ListComp))
        and any(isinstance(t, ast.Name) and t.id == arg.id for t in n.targets) for n in ctx.fn.nodes)


RULE = Rule(
    code="LCM105", name="legacy-tensor-constructor", category="scalar-extraction", severity="error",
    summary="`torch.FloatTensor(x)` / `torch.Tensor(x)` (legacy constructors) of pipeline data",
    what="Flags the legacy typed constructors (`torch.Tensor`, `torch.FloatTensor`, `torch.DoubleTensor`, "
         "`torch.LongTensor`, ... and their `torch.cuda.` forms) applied to pipeline data: a NumPy array or tensor "
         "built from traced values, or a list holding them. Not flagged: constructors of sizes or constants "
         "(`torch.FloatTensor(3, 4)`, `torch.Tensor([0.0, 1.0])`) and of settings.",
    why="LEAPP patches only `torch.tensor`, `torch.as_tensor` and `torch.from_numpy` to carry a traced argument "
        "into the graph. A legacy constructor reads the raw values and returns a plain `torch.Tensor`: the data "
        "leaves the graph. If the output comes from it alone, `output_tensors` fails ('received non-traced "
        "tensors'); mixed with traced values, the export keeps the values it saw while tracing as constants. "
        "Checked with the installed leapp 0.7.2.",
    fix="Use the patched conversion with the constructor's dtype: `torch.as_tensor(arr, dtype=torch.float32)` for "
        "`torch.FloatTensor(arr)` / `torch.Tensor(arr)` (`torch.int64` for `LongTensor`, ...), then `.cuda()` / "
        "`.to(device)` for the `torch.cuda.` forms. For helpers you cannot edit, `generate` writes a "
        "`leapp.FunctionPatch`.",
    example="arr = np.asarray(obs) * self.scale\nreturn self.net(torch.FloatTensor(arr))",
    fixed_example="arr = np.asarray(obs) * self.scale\nreturn self.net(torch.as_tensor(arr, dtype=torch.float32))",
    node_types=(ast.Call,), check=check,
    valid=(
        "import torch\ndef step(obs):\n    bias = torch.FloatTensor(3, 4)\n    return obs + bias.sum()\n",
        "import torch\ndef step(obs):\n    scale = torch.Tensor([0.0, 1.0])\n    return obs * scale\n",
        "import torch\ndef step(obs, cfg):\n    gains = torch.FloatTensor(cfg.gains)\n    return obs * gains\n",
        "import numpy as np\nimport torch\ndef step(obs):\n    arr = np.asarray(obs) * 2.0\n"
        "    return torch.as_tensor(arr, dtype=torch.float32)\n",
    ),
    invalid=(
        "import numpy as np\nimport torch\ndef step(obs):\n    arr = np.asarray(obs) * 2.0\n"
        "    return torch.FloatTensor(arr)  # error\n",
        "import torch\ndef step(x):\n    return torch.Tensor([x[0] * 2, x[1]])  # error\n",
        "import numpy as np\nimport torch\ndef step(obs):\n    idx = np.argmax(obs, axis=-1)\n"
        "    return torch.cuda.LongTensor(idx)  # error\n",
    ),
)
