import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def _tests_shape(test: ast.expr, ctx) -> bool:
    for sub in ast.walk(test):
        if isinstance(sub, ast.Compare) and any(ctx.is_shape(x) for x in (sub.left, *sub.comparators)):
            return True
    return ctx.is_shape(test)


def check(node, ctx):
    if _tests_shape(node.test, ctx):
        yield Hit(node.test, f"`{show(node.test)}` branches on the shape of pipeline data; the export keeps only "
                             f"the branch for the traced shape",
                  "pad or crop to a fixed size before the exported pipeline, or export one model per shape")


RULE = Rule(
    code="LCM001", name="shape-branch", category="shape-specialization", severity="warning",
    summary="Python branch on a run-time shape of pipeline data",
    what="Flags `if`/`while`/conditional expressions whose condition reads `.shape`, `.size()` or `len()` of "
         "pipeline data. `assert` statements that document a fixed layout are not flagged.",
    why="LEAPP exports static shapes: shape values are baked in and a re-entry with another shape aborts the "
        "session ('Reentering ... with new i/o'). A branch on a shape that varies at run time (number of detected "
        "obstacles, points in a scan) exports one branch for one size; other sizes fail in ONNX Runtime.",
    fix="Do the variable-size part (padding/cropping to a fixed maximum) in the host runtime before the exported "
        "pipeline and pass a fixed-size tensor plus a mask. The run report marks such a pipeline `partial`.",
    example="count = obstacles.shape[0]\nif count > max_count:\n    obstacles = obstacles[:max_count]",
    fixed_example="# host runtime: pad/crop to max_count, pass slots and mask to the exported policy",
    node_types=(ast.If, ast.While, ast.IfExp), check=check,
    valid=(
        "def step(obs, cfg):\n    assert obs.shape[-1] == cfg.dim\n    return obs.reshape(obs.shape[0], -1)\n",
    ),
    invalid=(
        "def step(points, limit):\n    if points.shape[0] > limit:  # error\n        points = points[:limit]\n    return points\n",
    ),
)
