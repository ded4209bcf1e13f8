import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

CASTS = ("float", "int", "bool", "complex")


def check(node: ast.Call, ctx):
    name = ctx.builtin(node)
    if name in CASTS and len(node.args) == 1 and ctx.is_data(node.args[0]) and not ctx.only_logged(node):
        yield Hit(node, f"`{show(node)}` converts pipeline data to a Python {name}; the trace keeps only the traced value",
                  f"stay in tensor ops (e.g. `.to(torch.float32)` instead of `{name}(...)`), or FunctionPatch "
                  f"`{ctx.fn.qualname}` with a tensor-only replacement")


RULE = Rule(
    code="LCM102", name="python-cast", category="scalar-extraction", severity="error",
    summary="`float()` / `int()` / `bool()` on pipeline data",
    what="Flags the Python casts `float`, `int`, `bool` and `complex` applied to a tensor or array of the pipeline.",
    why="A cast calls `__float__`/`__int__` and returns a Python number: the value leaves the graph and is baked "
        "into the export as a constant. LEAPP logs only a DEBUG line. `int(traced_bool)` even bypasses LEAPP's "
        "boolean-context check, so a decision made with it is exported as whatever it was while tracing.",
    fix="Keep the value a tensor: `(x < d).to(torch.float32)` instead of `int(x < d)`, tensor arithmetic instead of "
        "`float(x)`. For helpers you cannot edit, `generate` writes a `leapp.FunctionPatch`.",
    example="near = int(delta.norm() < cfg.close_dist)\nwidth = cfg.open + near * (cfg.closed - cfg.open)",
    fixed_example="near = (delta.norm() < cfg.close_dist).to(torch.float32)\nwidth = cfg.open + near * (cfg.closed - cfg.open)",
    node_types=(ast.Call,), check=check,
    valid=(
        "def step(obs, cfg):\n    step_size = float(cfg.action_scale)\n    return obs * step_size\n",
        "def step(obs):\n    n = int(obs.shape[0])\n    return obs.reshape(n, -1)\n",
    ),
    invalid=(
        "def step(obs):\n    gain = float(obs.mean())  # error\n    return obs * gain\n",
        "def step(obs, limit):\n    near = int(obs.norm() < limit)  # error\n    return obs * near\n",
    ),
)
