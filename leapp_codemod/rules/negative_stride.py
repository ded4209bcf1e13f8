import ast

from leapp_codemod.rules._helpers import is_negative_number, show
from leapp_codemod.rules.base import Hit, Rule


def _slices(node: ast.Subscript):
    index = node.slice
    return index.elts if isinstance(index, ast.Tuple) else [index]


def check(node: ast.Subscript, ctx):
    if not any(isinstance(s, ast.Slice) and is_negative_number(s.step) for s in _slices(node)):
        return
    if not ctx.is_data(node.value):
        return
    yield Hit(node, f"`{show(node)}` takes a negative-stride view of pipeline data; the export fails "
                    f"('step must be greater than zero')",
              "use `np.flip(x, axis)` / `torch.flip(x, dims)` followed by `.copy()`/`.clone()` "
              "(FunctionPatch the helper if you cannot edit it)")


RULE = Rule(
    code="LCM501", name="negative-stride-slice", category="numpy-negative-stride", severity="error",
    summary="slice with a negative step on pipeline data",
    what="Flags slices such as `x[::-1]`, `img[::-1, ::-1]`, `frame[..., ::-1]` on pipeline arrays.",
    why="LEAPP records a negative-step getitem. As a direct output it raises 'negative strides'; after `.copy()` "
        "`compile_graph` fails in torch.export with 'step must be greater than zero' (onnx-torchscript fails the "
        "same way). `np.ascontiguousarray` on it silently drops tracing.",
    fix="Use `np.flip(x, axis=...)` (mapped to `torch.flip`) and copy the result, or `torch.flip` on tensors.",
    example="rgb = bgr[..., ::-1]",
    fixed_example="rgb = np.flip(bgr, axis=-1).copy()",
    node_types=(ast.Subscript,), check=check,
    valid=(
        "def step(frame):\n    return frame[::2, ::2]\n",
        "def step(obs, cfg):\n    names = cfg.names[::-1]\n    return obs\n",
    ),
    invalid=(
        "def step(frame):\n    return frame[..., ::-1]  # error\n",
    ),
)
