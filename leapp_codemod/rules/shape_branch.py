import ast

from leapp_codemod.rules._helpers import condition_operands, is_number, last_dimension, show
from leapp_codemod.rules._text_values import text_test
from leapp_codemod.rules.base import Hit, Rule
from leapp_codemod.source.guards import only_raises


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_literal(e) for e in node.elts)
    return is_number(node)


def _fixed_dimension(node: ast.expr) -> bool:
    """A dimension that does not vary between calls of one exported model: the rank, a trailing
    dimension (`R.shape[-1]`, `q.shape[1]`, `m.shape[-2:]`), or the whole shape checked against
    literals (`R.shape == (3, 3)`). Only a leading (batch/count) dimension can vary."""
    if isinstance(node, ast.Attribute):
        return node.attr in ("ndim", "shape")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("dim", "ndimension") or (node.func.attr == "size" and bool(node.args)
                                                            and _non_leading(node.args[0]))
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return _non_leading(node.slice)
    return False


def _non_leading(index: ast.expr) -> bool:
    if isinstance(index, ast.Slice):
        return index.lower is not None and _non_leading(index.lower)
    if is_number(index):
        return not (isinstance(index, ast.Constant) and index.value == 0)
    return False


def _fixed_check(compare: ast.Compare, ctx) -> bool:
    """Fixed dimensions of pipeline data checked against literals only, or the rank or last dimension
    checked against settings (`acts.shape[-1] != self.act_dim`)."""
    operands = (compare.left, *compare.comparators)
    if _layout_of_constant(operands, ctx):
        return True
    if any(_is_literal(x) for x in operands) and all(
            _is_literal(x) or (_fixed_dimension(x) and ctx.is_shape(x)) for x in operands):
        return True
    return any(last_dimension(x, ctx) for x in operands) and all(
        last_dimension(x, ctx) or not (ctx.is_shape(x) or ctx.is_data(x)) for x in operands)


def _layout_of_constant(operands, ctx) -> bool:
    """`stats.mean.shape == obs.shape`: a shape of pipeline data checked against the shape of a value that is no
    pipeline data (statistics or a table the pipeline loaded): the layout that value was made for, which the
    pipeline fixes, like a rank check against a setting."""
    if len(operands) != 2 or not all(isinstance(x, ast.Attribute) and x.attr == "shape" for x in operands):
        return False
    return any(ctx.is_data(x.value) for x in operands) and not all(ctx.is_data(x.value) for x in operands)


def _tests_shape(test: ast.expr, ctx) -> bool:
    for sub in ast.walk(test):
        if isinstance(sub, ast.Compare) and any(ctx.is_shape(x) for x in (sub.left, *sub.comparators)) \
                and not _fixed_check(sub, ctx):
            return True
    return not isinstance(test, ast.Compare) and ctx.is_shape(test) and not _rank_test(test)


def _rank_test(test: ast.expr) -> bool:
    """`if not x.shape`, `if x.ndim`: a question about the rank (0-d or not), which a pipeline fixes."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return isinstance(test, ast.Attribute) and test.attr in ("shape", "ndim") or (
        isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr in ("dim", "ndimension"))


def _tests_values(test: ast.expr, ctx) -> bool:
    """Does a part of an `and`/`or`/`not` condition test pipeline values with no shape in it
    (`pts.size(0) > 3 and cmd.abs().max() > 1`)?"""
    return any(ctx.is_data(part) and not any(ctx.is_shape(x) for x in ast.walk(part) if isinstance(x, ast.expr))
               for part in condition_operands(test))


def shape_only_test(test: ast.expr, ctx) -> bool:
    """Does the test read pipeline data only through run-time shapes (LCM001's test, not a branch on values)?"""
    return _tests_shape(test, ctx) and not _tests_values(test, ctx)


def check(node, ctx):
    if only_raises(node) or ctx.decided_by_settings(node) or ctx.bail_out_arm(node):
        return  # a guard rejects bad input and exports nothing (or only reports and returns)
    if _tests_values(node.test, ctx):
        return  # the same test is a branch on data (LCM201/LCM202): one finding, one fix (`torch.where`)
    if _tests_shape(node.test, ctx) and not text_test(node.test, ctx):   # `if note:` on a str: empty or not
        yield Hit(node.test, f"`{show(node.test)}` branches on the shape of pipeline data; the export keeps only "
                             f"the branch for the traced shape",
                  "pad or crop to a fixed size before the exported pipeline, or export one model per shape")


RULE = Rule(
    code="LCM001", name="shape-branch", category="shape-specialization", severity="warning",
    summary="Python branch on a run-time shape of pipeline data",
    what="Flags `if`/`while`/conditional expressions whose condition reads `.shape`, `.size()` or `len()` of "
         "pipeline data. Not flagged: `assert` statements and `if` guards that only raise (they document a fixed "
         "layout; building the error's text or logging it before the `raise` still only raises) or only report and return from a step that returns nothing (`if len(action) != 12: "
         "log.error(...); return`: a traced call taking it exports nothing), and checks of dimensions that cannot vary between calls (the rank, a trailing dimension or the "
         "whole shape against literals, e.g. a 3x3 rotation matrix; the rank or the last dimension against a "
         "setting, e.g. `acts.shape[-1] != self.act_dim`; the whole shape against the shape of a value that is no "
         "pipeline data, e.g. `stats.mean.shape == obs.shape`; a 0-d test `if not x.shape`). A condition that also "
         "tests pipeline values is reported once, as a branch on data (LCM201/LCM202).",
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
        "def step(obs, cfg):\n    if obs.shape[-1] != cfg.dim:\n        raise ValueError('bad width')\n    return obs\n",
        # the guard builds its message, reports it, then raises
        ("import logging\nlog = logging.getLogger(__name__)\ndef step(a, b):\n    if a.shape != b.shape:\n"
         "        msg = f'shape mismatch: {a.shape} != {b.shape}'\n        log.error(msg)\n"
         "        raise ValueError(msg)\n    return a * b\n"),
        "def step(rot):\n    if rot.shape[-2:] == (3, 3):\n        return rot[..., 0]\n    return rot\n",
        # the layout of statistics the pipeline loaded
        ("import numpy as np\nclass Norm:\n    def __init__(self, path):\n        self.mean = np.load(path)\n"
         "    def step(self, obs):\n        if self.mean.shape == obs.shape:\n            obs = obs - self.mean\n"
         "        return obs\n"),
        ("class Head:\n    def __init__(self, n):\n        self.n = n\n    def step(self, a):\n"
         "        if a.shape[-1] > self.n:\n            a = a[..., :self.n]\n        return a\n"),
    ),
    invalid=(
        "def step(points, limit):\n    if points.shape[0] > limit:  # error\n        points = points[:limit]\n    return points\n",
    ),
)
