import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def _pairs(node: ast.AST):
    """The (left, right) operands one operation combines: both sides of `a * b` and `a += b`, each neighbouring
    pair of a comparison chain."""
    if isinstance(node, ast.BinOp):
        yield node.left, node.right
    elif isinstance(node, ast.AugAssign):
        yield node.target, node.value
    elif isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        yield from zip(operands, operands[1:])


def _mix(left: ast.expr, right: ast.expr, ctx) -> tuple[ast.expr, ast.expr] | None:
    """(torch operand, NumPy operand) when one side is a torch tensor and the other a NumPy array."""
    if ctx.is_torch(left) and ctx.is_numpy_array(right):
        return left, right
    if ctx.is_torch(right) and ctx.is_numpy_array(left):
        return right, left
    return None


def check(node: ast.AST, ctx):
    for left, right in _pairs(node):
        mix = _mix(left, right, ctx)
        if mix is None:
            continue
        tensor, array = mix
        tensor_data, array_data = ctx.is_data(tensor), ctx.is_data(array)
        if not (tensor_data or array_data) or ctx.only_logged(node):
            continue
        if tensor_data:
            effect = (f"LEAPP traces `{show(tensor)}` as a torch tensor and raises TypeError on the NumPy operand "
                      f"`{show(array)}` while tracing (either order)")
        else:
            effect = (f"the traced NumPy array `{show(array)}` meets the plain torch tensor `{show(tensor)}`: torch "
                      f"computes the result outside the trace, a constant of the export (LEAPP's output check "
                      f"rejects it when it is returned)")
        yield Hit(node, f"`{show(node)}` combines a torch tensor with a NumPy array; {effect}",
                  f"make both operands one kind: convert the NumPy side once (`torch.as_tensor({show(array)})`, "
                  f"best in the constructor for a constant) or the tensor side (`.numpy()` before NumPy code)")
        return


RULE = Rule(
    code="LCM110", name="torch-numpy-operands", category="scalar-extraction", severity="error",
    summary="A torch tensor and a NumPy array in one arithmetic or comparison operation",
    what="Flags `a <op> b` (arithmetic, `@`, comparisons, augmented assignments) where one operand is a torch "
         "tensor and the other a NumPy array, and at least one of them is pipeline data. The kinds come from the "
         "data flow, not from names: a torch function's answer, a torch-only method (`.unsqueeze`, `.to`), a "
         "model's call, an attribute bound only to torch calls; a NumPy call's answer, an attribute allocated by "
         "NumPy, a parameter NumPy arrays are passed to. Not flagged: NumPy numbers from constants "
         "(`t * np.sqrt(2.0)`, `np.float64(...)`), Python numbers, operands the flow cannot type.",
    why="Checked with the installed leapp 0.7.2 (knowledge/leapp.py): a traced torch tensor combined with a NumPy "
        "array (an attribute, a 0-d array, an `np.float32` scalar) raises TypeError while tracing ('mul(): "
        "argument 'other' ... must be Tensor, not numpy.ndarray'), in either order, comparisons and `@` "
        "included; plain PyTorch accepts `tensor * array`, so the code runs until it is traced. A traced NumPy "
        "array combined with a torch tensor gives a plain tensor outside the trace: LEAPP's output check "
        "rejects it ('received non-traced tensors'), and mixed into traced values it is silently a constant.",
    fix="Give both operands one kind: convert a constant NumPy operand once (`self.scale = torch.as_tensor(scale)` "
        "in the constructor) or convert the observation before the torch code (`torch.as_tensor(obs)`).",
    example="self.scale = np.array([0.5, 0.5, 0.25])\n...\naction = torch.tanh(self.policy(obs)) * self.scale",
    fixed_example="self.scale = torch.as_tensor(np.array([0.5, 0.5, 0.25]))\n...\n"
                  "action = torch.tanh(self.policy(obs)) * self.scale",
    node_types=(ast.BinOp, ast.AugAssign, ast.Compare), check=check,
    valid=(
        "import torch\nimport numpy as np\ndef step(obs):\n    t = torch.as_tensor(obs)\n"
        "    return torch.tanh(t) * torch.as_tensor(np.ones(3))\n",
        "import torch\nimport numpy as np\ndef step(obs):\n    t = torch.as_tensor(obs)\n    return t * np.sqrt(2.0)\n",
        "import numpy as np\ndef step(obs):\n    return np.tanh(obs) * np.ones(3)\n",
        "import torch\nimport numpy as np\ndef step(obs):\n    a = torch.tanh(torch.as_tensor(obs)).numpy()\n"
        "    return a * np.ones(3)\n",
    ),
    invalid=(
        "import torch\nimport numpy as np\ndef step(obs):\n    t = torch.as_tensor(obs)\n"
        "    return torch.tanh(t) * np.ones(3)  # error\n",
        "import torch\nimport numpy as np\ndef step(obs):\n    low = np.full(3, -1.0)\n"
        "    t = torch.tanh(torch.as_tensor(obs))\n    return t > low  # error\n",
        "import torch\nimport numpy as np\ndef step(obs):\n    a = np.asarray(obs) * 2.0\n"
        "    return a + torch.ones(3)  # error\n",
    ),
)
