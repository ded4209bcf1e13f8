import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def check(node, ctx):
    if isinstance(node, ast.IfExp) and ctx.is_data(node.test) and not ctx.decided_by_settings(node):
        yield Hit(node, f"conditional expression `{show(node)}` picks a value with Python on pipeline data",
                  "use `torch.where(cond, a, b)` so both outcomes stay in the graph")
    elif isinstance(node, ast.comprehension):
        for cond in node.ifs:
            if ctx.is_data(cond):
                yield Hit(cond, f"comprehension filter `if {show(cond)}` on pipeline data fixes the kept elements",
                          "use a boolean mask with `torch.where` instead of filtering in Python")
    elif isinstance(node, ast.Call) and ctx.builtin(node) in ("min", "max") and len(node.args) >= 2 \
            and any(ctx.is_data(a) for a in node.args):
        name = ctx.builtin(node)
        yield Hit(node, f"Python `{name}()` in `{show(node)}` compares pipeline data with Python control flow",
                  f"use `torch.{'minimum' if name == 'min' else 'maximum'}` or `torch.clamp`")


RULE = Rule(
    code="LCM202", name="tensor-select", category="tensor-branch", severity="error",
    summary="ternary, comprehension filter or Python `min`/`max` decided by pipeline data",
    what="Flags `a if cond else b`, comprehension `if` filters and the builtins `min`/`max` when the decision "
         "depends on pipeline data.",
    why="All three evaluate `bool(tensor)` in Python. LEAPP records only the outcome seen while tracing, so the "
        "export always returns the same branch. LEAPP's compile-time validation misses it whenever the traced "
        "samples agree (corpus-style gain schedules pass validation and fail on fresh inputs).",
    fix="Select with `torch.where(cond, a, b)`; replace `min`/`max` with `torch.minimum`/`torch.maximum`/`torch.clamp`.",
    example="gain = cfg.high if vel.norm() > cfg.switch else cfg.low",
    fixed_example="gain = torch.where(vel.norm() > cfg.switch, cfg.high, cfg.low)",
    node_types=(ast.IfExp, ast.comprehension, ast.Call), check=check,
    valid=(
        "def step(obs, cfg):\n    gain = 1.0 if cfg.fast else 0.5\n    return obs * gain\n",
        "def step(obs, cfg):\n    return obs * max(cfg.a, cfg.b)\n",
    ),
    invalid=(
        "def step(vel, cfg):\n    return 1.0 if vel.norm() > 0.5 else 0.2  # error\n",
        "def step(obs):\n    return max(obs.sum(), 0.0)  # error\n",
    ),
)
