import ast
import re

from leapp_codemod.rules._element_math import vector_element
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

# NumPy functions that join a sequence of arrays: LEAPP maps them to `torch.cat`/`torch.stack`, whose
# sequence must hold tensors only.
JOINERS = frozenset({"numpy.concatenate", "numpy.hstack", "numpy.vstack", "numpy.stack", "numpy.column_stack",
                     "numpy.row_stack", "numpy.dstack", "numpy.append"})


# How a finding of this rule reads, and how the exporters reject what it flags (`run` names the line by both).
PHRASE = "joins a Python list of pipeline values"
LOWERING_ERROR = re.compile(r"expected Tensor as element \d+ in argument \d+, but got (?:immutable_)?list"
                            r"|List\[Union\[Tensor, List\[Tensor\]\]\]")


def scalar_lists(node: ast.Call, ctx) -> list[ast.expr]:
    """The list/tuple literals inside a joiner's sequence that hold pipeline values (`[yaw_rate]` in
    `np.concatenate([a, [yaw_rate], b])`); none when the callee is no NumPy joiner."""
    if not node.args or ctx.call_name(node) not in JOINERS:
        return []
    seq = node.args[0]
    if ctx.call_name(node) == "numpy.append":
        items = node.args[1:2]
    elif isinstance(seq, (ast.List, ast.Tuple)):
        items = seq.elts
    else:
        return []
    items = [_bound_literal(e, node.lineno, ctx) if isinstance(e, ast.Name) else e for e in items]
    return [e for e in items if isinstance(e, (ast.List, ast.Tuple)) and any(_from_data(x, ctx) for x in e.elts)]


def _bound_literal(name: ast.Name, line: int, ctx) -> ast.expr:
    """The list/tuple literal `name` was last bound to above `line` (`row = [q[0], q[1]]` ... `np.vstack([log,
    row])`), else the name itself."""
    bound = [n for n in ctx.fn.nodes if isinstance(n, ast.Assign) and n.lineno < line and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name.id]
    if not bound:
        return name
    value = max(bound, key=lambda n: n.lineno).value
    return value if isinstance(value, (ast.List, ast.Tuple)) else name


def _from_data(expr: ast.expr, ctx, depth: int = 0) -> bool:
    """Pipeline data, or a Python number taken from it (`s = float(x.sum())`, `x.item()`): under the
    twin that keeps the cast traced it is a 0-d array inside the list."""
    if depth > 3:
        return False
    if ctx.is_data(expr):
        return not ctx.is_shape(expr)
    if isinstance(expr, ast.Call):
        func = expr.func
        if ctx.builtin(expr) in ("float", "int") and len(expr.args) == 1:
            return _from_data(expr.args[0], ctx, depth + 1)
        return isinstance(func, ast.Attribute) and func.attr == "item" and _from_data(func.value, ctx, depth + 1)
    if isinstance(expr, ast.BinOp):
        return _from_data(expr.left, ctx, depth + 1) or _from_data(expr.right, ctx, depth + 1)
    if isinstance(expr, ast.UnaryOp):
        return _from_data(expr.operand, ctx, depth + 1)
    if isinstance(expr, ast.Name):
        bound = [n.value for n in ctx.fn.nodes if isinstance(n, ast.Assign) and n.lineno < expr.lineno
                 and any(isinstance(t, ast.Name) and t.id == expr.id for t in n.targets)]
        return bool(bound) and _from_data(bound[-1], ctx, depth + 1)
    return False


from_data = _from_data      # also used by table_index

# Functions that keep a NumPy scalar a NumPy scalar (elementwise math of one number), and Python's own.
_SCALAR_KEEPERS = ("numpy.", "math.")


def element_scalars(node: ast.Call, ctx) -> list[ast.expr]:
    """The items of a joiner's sequence literal (`np.stack([roll, pitch])`) that are NumPy scalars or Python
    numbers read out of pipeline data by an integer index (`a[1]`, `np.arctan2(a[1], a[0])`, `float(a[2])`) of a
    vector whose other positions the function reads too, directly, through a local or through an attribute of
    self the class sets from one."""
    if not node.args or ctx.call_name(node) not in JOINERS - {"numpy.append"}:
        return []
    seq = node.args[0]
    if not isinstance(seq, (ast.List, ast.Tuple)):
        return []
    items = [e for e in seq.elts if not isinstance(e, ast.Starred)]
    return [e for e in items if _element_scalar(e, ctx, 0)] if items else []


def _element_scalar(expr: ast.expr, ctx, depth: int) -> bool:
    if depth > 4:
        return False
    if isinstance(expr, ast.Subscript):   # `q[1]` of a vector whose other positions the function reads too
        return vector_element(expr, ctx)
    if isinstance(expr, ast.Call):
        if ctx.builtin(expr) in ("float", "int") and len(expr.args) == 1:
            return _element_scalar(expr.args[0], ctx, depth + 1) or _from_data(expr, ctx)
        if isinstance(expr.func, ast.Attribute) and expr.func.attr == "item":
            return ctx.is_data(expr.func.value)
        name = ctx.call_name(expr) or ""
        return name.startswith(_SCALAR_KEEPERS) and not name.startswith("numpy.random.") and bool(expr.args) \
            and any(_element_scalar(a, ctx, depth + 1) for a in expr.args) \
            and not any(ctx.is_data(a) and not _element_scalar(a, ctx, depth + 1) and not _number(a)
                        for a in expr.args)
    if isinstance(expr, ast.BinOp):
        sides = (expr.left, expr.right)
        return any(_element_scalar(s, ctx, depth + 1) for s in sides) and all(
            _element_scalar(s, ctx, depth + 1) or not ctx.is_data(s) for s in sides)
    if isinstance(expr, ast.UnaryOp):
        return _element_scalar(expr.operand, ctx, depth + 1)
    if isinstance(expr, ast.Name):
        bound = [n.value for n in ctx.fn.nodes if isinstance(n, ast.Assign) and n.lineno < expr.lineno
                 and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == expr.id]
        return bool(bound) and _element_scalar(bound[-1], ctx, depth + 1)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == ctx.self_name \
            and ctx.cls is not None:
        for klass in ctx.project.mro(ctx.cls):
            for method, value in klass.attr_values.get(expr.attr, ()):
                fn = klass.methods.get(method)
                if fn is not None and fn is not ctx.fn and _element_scalar(value, ctx.for_function(fn), depth + 1):
                    return True
    return False


def _number(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float))


def check(node: ast.Call, ctx):
    inner = scalar_lists(node, ctx)
    if not inner and not ctx.only_logged(node):
        scalars = element_scalars(node, ctx)
        if scalars:
            yield Hit(node, f"`{show(node)}` joins NumPy scalars read out of pipeline data by an integer index "
                            f"(`{show(scalars[0])}`); LEAPP {ctx.support.version}'s traced array returns a plain "
                            "NumPy scalar for an integer index, so the joined array is a constant in the export",
                      "read the elements as slices (`a[1:2]`, `a[..., 1]` keeps an array) and join those, or "
                      "FunctionPatch the function with a torch implementation")
        return
    if ctx.only_logged(node):
        return
    yield Hit(node, f"`{show(node)}` {PHRASE} (`{show(inner[0])}`) with arrays; "
                    f"LEAPP {ctx.support.version} records the list as it is inside `torch.cat`, which the export "
                    "rejects ('expected Tensor as element ..., but got list')",
              f"make the values one array before joining: `np.reshape({show(inner[0].elts[0])}, (1,))` for one "
              "value, `np.stack([...])` for several (`generate` writes the twin)")


RULE = Rule(
    code="LCM304", name="scalar-list-join", category="scalar-extraction", severity="error",
    summary="a Python list of pipeline values inside `np.concatenate` / `np.hstack` / `np.stack`",
    what="Flags NumPy joins (`np.concatenate`, `np.hstack`, `np.vstack`, `np.stack`, `np.column_stack`, "
         "`np.dstack`, `np.append`) whose sequence holds a list or tuple literal of pipeline values (written "
         "there or bound to a name just before: `row = [q[0], q[1]]; np.vstack([log, row])`), such as "
         "`np.concatenate([obs, [yaw_rate], cmd])` or `np.hstack((x, [s]))` where `s` comes from traced data. "
         "Also joins whose items are NumPy scalars read out of pipeline data by an integer index "
         "(`np.stack([np.arctan2(q[3], q[0]), q[1]])`, directly, through a local or an attribute of self set from "
         "one), when the function reads two positions of that vector or more. Not flagged: lists of constants or of settings (`[0.0, 1.0]`, `[self.gain]`), and joins of arrays "
         "only (slices `q[1:2]` stay arrays).",
    why="LEAPP traces the join as `torch.cat` with the inner list kept as a Python list of traced values. Tracing "
        "runs and the values are right, then `compile_graph` fails on every exporter: `torch.cat` takes tensors "
        "only ('expected Tensor as element 2 in argument 0, but got immutable_list'), with no application line "
        "in the message. A NumPy scalar is worse: LEAPP's traced array returns a plain NumPy scalar for an integer "
        "index, so a join of such scalars is an untraced array the export keeps as a constant (it passes the first "
        "sample and fails validation on the next). Checked with the installed leapp 0.7.2.",
    fix="Turn the values into one array before the join: `np.reshape(s, (1,))` (or `s[None]` of a 0-d array) for "
        "one value, `np.stack([s0, s1])` for several; `generate` writes a twin doing that.",
    example="obs = np.concatenate([cmd_vel, odom, [imu_yaw_rate]])",
    fixed_example="obs = np.concatenate([cmd_vel, odom, np.reshape(imu_yaw_rate, (1,))])",
    node_types=(ast.Call,), check=check,
    valid=(
        "import numpy as np\ndef step(obs, q):\n    return np.concatenate([obs, q[:2], [0.0, 1.0]])\n",
        # slices keep arrays: the join traces; a row of a batch is an array
        "import numpy as np\ndef step(quat):\n    return np.stack([np.arctan2(quat[3:4], quat[0:1]), quat[1:2]])\n",
        "import numpy as np\ndef step(obs: np.ndarray, goal: np.ndarray):\n    return np.stack([obs[0], goal])\n",
        "import numpy as np\nclass P:\n    def __init__(self):\n        self.gain = 2.0\n"
        "    def step(self, obs):\n        return np.hstack((obs, [self.gain]))\n",
    ),
    invalid=(
        "import numpy as np\ndef step(obs, yaw):\n    return np.concatenate([obs, [yaw], obs[:2]])  # error\n",
        "import numpy as np\ndef step(obs):\n    s = obs.sum()\n    return np.hstack((obs, [s, s * 2]))  # error\n",
        "import numpy as np\ndef step(obs):\n    s = float(np.abs(obs).max())\n    return np.concatenate((obs, [s]))  # error\n",
        # NumPy scalars read out of the data by an integer index, directly and through a local
        "import numpy as np\nclass Imu:\n    def step(self, quat: np.ndarray):\n"
        "        tilt = np.arcsin(quat[1]) * 2.0\n        return np.stack((np.arctan2(quat[3], quat[0]), tilt))  # error\n",
    ),
)
