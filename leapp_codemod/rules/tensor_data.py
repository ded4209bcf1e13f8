import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

# methods only a torch tensor has among the values that carry a `.data` field (a NumPy array's `.data` is a
# memoryview, a message's `.data` a list): `x.data.cpu()` says `x` is a tensor
_TENSOR_ONLY_METHODS = frozenset({"cpu", "cuda", "numpy", "clone", "detach", "to", "float", "double", "half", "long",
                                  "view", "unsqueeze", "contiguous", "numel", "dim"})


def _tensor_data(node: ast.Attribute, ctx) -> ast.Attribute | None:
    """The `x.data` read of a torch tensor of the pipeline at `node`: `x.data.cpu()` (a tensor method applied to
    it), or `torch.tanh(x).data` (the field of a torch function's answer)."""
    if node.attr in _TENSOR_ONLY_METHODS and isinstance(node.value, ast.Attribute) and node.value.attr == "data":
        field = node.value
        if _torch_call(field.value, ctx):
            return None   # reported at the field itself (below): one finding
    elif node.attr == "data" and isinstance(node.ctx, ast.Load) and _torch_call(node.value, ctx):
        field = node
    else:
        return None
    if not ctx.is_data(field.value) or ctx.is_numpy(field.value) or ctx.only_logged(field):
        return None
    return field


def _torch_call(e: ast.expr, ctx) -> bool:
    """A torch function's answer (`torch.sigmoid(f)`), or a local every binding of which is one."""
    if isinstance(e, ast.Name):
        values = ctx.fn.assigned(e.id)
        return bool(values) and e.id not in ctx.fn.params and all(
            isinstance(v, ast.Call) and _torch_call(v, ctx) for v in values)
    return isinstance(e, ast.Call) and (ctx.call_name(e) or "").startswith("torch.")


def check(node: ast.Attribute, ctx):
    field = _tensor_data(node, ctx)
    if field is not None:
        yield Hit(field, f"`{show(field)}` reads the plain tensor behind pipeline data; LEAPP's trace does not "
                         f"follow `.data`, so what is computed from it is a constant of the export",
                  f"drop `.data` (use `.detach()` if a gradient must not flow), or FunctionPatch "
                  f"`{ctx.fn.qualname}` with a tensor-only replacement")


RULE = Rule(
    code="LCM107", name="tensor-data-field", category="scalar-extraction", severity="error",
    summary="`.data` on a torch tensor of pipeline data",
    what="Flags `x.data` where `x` is a torch tensor derived from the pipeline's inputs or state: the field of a "
         "torch function's answer (`torch.tanh(x).data`, or of a local bound to one) or a field a torch-only method is applied to "
         "(`mean.data.cpu().numpy()`). Not flagged: `.data` of a NumPy array (a memoryview LEAPP maps), `.data` of "
         "other objects (a message's `msg.data` list), parameters written through `.data`, and `.data` read only "
         "for a log line.",
    why="LEAPP traces tensors by wrapping them; `.data` returns the plain `torch.Tensor` underneath, outside the "
        "trace. Checked with the installed leapp 0.7.2: `torch.tanh(x) * 2.0` exports and validates, while "
        "`torch.tanh(x).data * 2.0` hands `output_tensors` a plain tensor ('received non-traced tensors'); mixed "
        "with traced values, the part read through `.data` is baked in as the value seen while tracing.",
    fix="Drop `.data` (`.detach()` keeps the value in the trace and still stops gradients).",
    example="mean, std = policy(obs)\naction = mean.data.cpu().numpy()",
    fixed_example="mean, std = policy(obs)\naction = mean.detach().cpu().numpy()",
    node_types=(ast.Attribute,), check=check,
    valid=(
        "import torch\ndef step(obs):\n    return torch.tanh(obs).detach().cpu().numpy()\n",
        "import numpy as np\ndef step(msg):\n    q = np.asarray(msg.data)\n    return np.tanh(q)\n",
        "import numpy as np\ndef step(obs):\n    a = np.tanh(obs)\n    return bytes(a.data)\n",
    ),
    invalid=(
        "import torch\ndef step(obs):\n    return torch.tanh(obs).data * 2.0  # error\n",
        "import torch\ndef step(net, obs):\n    mean, std = net(torch.as_tensor(obs))\n"
        "    return mean.data.cpu().numpy()  # error\n",
    ),
)
