import ast

from leapp_codemod.rules._helpers import filled_local_list, show
from leapp_codemod.rules.base import Hit, Rule

CASTS = ("float", "int", "bool", "complex")
# `math` functions take Python numbers: on a tensor or array they call `__float__` (a cast) first.
MATH_FUNCTIONS = frozenset({"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "copysign", "cos",
                            "cosh", "degrees", "erf", "exp", "expm1", "fabs", "floor", "fmod", "hypot", "isclose",
                            "isfinite", "isinf", "isnan", "log", "log10", "log1p", "log2", "pow", "radians",
                            "remainder", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"})
# Array constructors LEAPP patches: they trace only when their argument is itself a traced value.
LIST_CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor"})


def kept_formatted(stmt: ast.Assign | ast.AnnAssign | ast.Return, ctx) -> ast.expr | None:
    """The pipeline value an f-string the statement keeps or returns formats into text (`self.cmd = f"goTo
    {t[0]} {t[1]}"`, sent out later); not a message that is only logged, printed or raised."""
    node = stmt.value
    if not isinstance(node, ast.JoinedStr):
        return None
    value = next((v.value for v in node.values if isinstance(v, ast.FormattedValue) and ctx.is_data(v.value)
                  and not ctx.is_shape(v.value)), None)
    if value is None:
        return None
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    names = {t.id for t in targets if isinstance(t, ast.Name)}
    if names and len(names) == len(targets):   # a local: read by more than logging
        errors = [n for n in ctx.fn.nodes if isinstance(n, (ast.Raise, ast.Assert))]
        uses = [n for n in ctx.fn.nodes if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)]
        if all(ctx.only_logged(n) or _inside(n, errors) for n in uses):
            return None   # a message: logged, printed or raised
    return value


def _inside(node: ast.AST, statements: list[ast.stmt]) -> bool:
    """Does one of `statements` (a `raise`, an `assert`) hold `node`?"""
    where = (node.lineno, node.col_offset)
    return any((s.lineno, s.col_offset) <= where <= (s.end_lineno or s.lineno, s.end_col_offset or 0)
               for s in statements)


def check(node: ast.Call, ctx):
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.Return)):
        value = kept_formatted(node, ctx) if isinstance(node.value, ast.JoinedStr) else None
        if value is not None:
            node = node.value
            yield Hit(node, f"`{show(node)}` formats pipeline data (`{show(value)}`) into text: each value is "
                            "converted to a Python number and printed; the trace keeps only the traced value",
                      "return the values as a tensor and format the text outside the exported step (in the "
                      "integration layer, after the call)")
        return
    name = ctx.builtin(node)
    if name in CASTS and len(node.args) == 1 and ctx.is_data(node.args[0]) and not ctx.only_logged(node):
        yield Hit(node, f"`{show(node)}` converts pipeline data to a Python {name}; the trace keeps only the traced value",
                  f"stay in tensor ops (e.g. `.to(torch.float32)` instead of `{name}(...)`), or FunctionPatch "
                  f"`{ctx.fn.qualname}` with a tensor-only replacement")
        return
    called = ctx.call_name(node) if name is None and _maybe_math_or_torch(node, ctx) else None
    if called and called.startswith("math.") and called[5:] in MATH_FUNCTIONS \
            and any(ctx.is_data(a) and not ctx.is_shape(a) and not python_number(a, ctx) for a in node.args) \
            and not ctx.only_logged(node):
        yield Hit(node, f"`{show(node)}` passes pipeline data to `{called}`, which converts it to a Python float "
                        "(`__float__`); the trace keeps the number it saw as a constant",
                  f"use the tensor/array function instead (`np.{called[5:]}`/`torch.{called[5:]}` on the array), or "
                  f"FunctionPatch `{ctx.fn.qualname}` with a tensor-only replacement")
    elif called in LIST_CONSTRUCTORS and node.args and _list_of_data(node.args[0], ctx) and not ctx.only_logged(node):
        yield Hit(node, f"`{show(node)}` builds a tensor from a list of pipeline values; LEAPP traces `{called}` "
                        "only when its argument is itself traced, so each element becomes a Python number",
                  "stack the values as tensors instead (`torch.stack([...])`, `torch.cat`)")


def _maybe_math_or_torch(node: ast.Call, ctx) -> bool:
    """Cheap pre-check before qualifying the callee: named through an import of `math` or `torch`."""
    root = node.func
    while isinstance(root, ast.Attribute):
        root = root.value
    target = ctx.module.imports.get(root.id, "") if isinstance(root, ast.Name) else ""
    return target.partition(".")[0] in ("math", "torch")


def python_number(expr: ast.expr, ctx, depth: int = 0) -> bool:
    """Pipeline data that is a Python number the step carries (`self.phase_step += 1`; `phase = 2 * pi *
    self.phase_step`): the counter is the state finding, not what `math` computes from it."""
    if depth > 4:
        return False
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == ctx.self_name:
        return ctx._class_fact(ctx.facts.counter_attrs, expr.attr) or not ctx.is_data(expr)
    if isinstance(expr, ast.BinOp):
        return python_number(expr.left, ctx, depth + 1) and python_number(expr.right, ctx, depth + 1)
    if isinstance(expr, ast.UnaryOp):
        return python_number(expr.operand, ctx, depth + 1)
    if isinstance(expr, ast.Name):
        if not ctx.is_data(expr):
            return True
        values = [n.value for n in ctx.fn.nodes if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == expr.id for t in n.targets)]
        return bool(values) and all(python_number(v, ctx, depth + 1) for v in values)
    return not ctx.is_data(expr)


def _list_of_data(arg: ast.expr, ctx) -> bool:
    """A list/tuple literal or comprehension holding pipeline data (not a traced array itself)."""
    if isinstance(arg, (ast.List, ast.Tuple)):
        return any(_list_of_data(e, ctx) if isinstance(e, (ast.List, ast.Tuple)) else
                   ctx.is_data(e) and not ctx.is_shape(e) and not _numbers_only(e, ctx)
                   and not ctx.is_message_field(e) for e in arg.elts)
    if isinstance(arg, (ast.ListComp, ast.GeneratorExp)):
        return ctx.is_data(arg.elt) and not ctx.is_shape(arg.elt) and not ctx.is_message_field(arg.elt)
    return filled_local_list(arg, ctx)


def _numbers_only(expr: ast.expr, ctx) -> bool:
    """`math.sin(phase)` of a carried Python number: already a number, reported where it is carried."""
    if isinstance(expr, ast.Call) and (ctx.call_name(expr) or "").startswith("math."):
        return all(python_number(a, ctx) for a in expr.args)
    return python_number(expr, ctx)


RULE = Rule(
    code="LCM102", name="python-cast", category="scalar-extraction", severity="error",
    summary="`float()` / `int()` / `bool()` on pipeline data",
    what="Flags the Python casts `float`, `int`, `bool` and `complex` applied to a tensor or array of the pipeline, "
         "`math` functions given pipeline data (`math.atan2(q[1], q[0])`: they call `__float__`), and "
         "`torch.tensor([...])` of a list of pipeline values or of a list the step fills with them (`vals.extend(x)`) "
         "(LEAPP's patched `torch.tensor` traces only a traced argument, not a list of them; checked in the "
         "installed leapp 0.7.2). Not the fields of a middleware message (`torch.tensor(imu.gyroscope)`): that is "
         "where the pipeline's input is made, and where the user declares it. Also an f-string that formats "
         "pipeline data into text the step keeps or returns (`self.cmd = f\"goTo {t[0]} {t[1]}\"`), not one written "
         "to a log.",
    why="A cast calls `__float__`/`__int__` and returns a Python number: the value leaves the graph and is baked "
        "into the export as a constant. LEAPP logs only a DEBUG line. `int(traced_bool)` even bypasses LEAPP's "
        "boolean-context check, so a decision made with it is exported as whatever it was while tracing.",
    fix="Keep the value a tensor: `(x < d).to(torch.float32)` instead of `int(x < d)`, tensor arithmetic instead of "
        "`float(x)`. For helpers you cannot edit, `generate` writes a `leapp.FunctionPatch`.",
    example="near = int(delta.norm() < cfg.close_dist)\nwidth = cfg.open + near * (cfg.closed - cfg.open)",
    fixed_example="near = (delta.norm() < cfg.close_dist).to(torch.float32)\nwidth = cfg.open + near * (cfg.closed - cfg.open)",
    node_types=(ast.Call, ast.Assign, ast.AnnAssign, ast.Return), check=check,
    valid=(
        "def step(obs, cfg):\n    step_size = float(cfg.action_scale)\n    return obs * step_size\n",
        "def step(obs):\n    n = int(obs.shape[0])\n    return obs.reshape(n, -1)\n",
        "import math\ndef step(obs, cfg):\n    return obs * math.cos(cfg.angle)\n",
        "import torch\ndef step(x):\n    return torch.stack([x[0] * 2, x[1]])\n",
    ),
    invalid=(
        "def step(obs):\n    gain = float(obs.mean())  # error\n    return obs * gain\n",
        "def step(obs, limit):\n    near = int(obs.norm() < limit)  # error\n    return obs * near\n",
        "import math\ndef step(q):\n    yaw = math.atan2(q[1], q[0])  # error\n    return q * yaw\n",
        "import torch\ndef step(x):\n    return torch.tensor([x[0] * 2, x[1]])  # error\n",
        "import torch\ndef step(parts):\n    flat = []\n    for p in parts:\n        flat.extend(p)\n"
        "    return torch.tensor(flat)  # error\n",
    ),
)
