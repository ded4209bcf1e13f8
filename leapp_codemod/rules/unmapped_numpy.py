import ast

from leapp_codemod.knowledge.leapp import DTYPE_TYPE_ACCEPTED
from leapp_codemod.knowledge.vocab import NUMPY_SHAPE_QUERIES
from leapp_codemod.rules._helpers import filled_local_list, show
from leapp_codemod.rules.base import Hit, Rule


def check(node: ast.Call, ctx):
    name = ctx.call_name(node)
    if not name or not name.startswith("numpy.") or name.startswith("numpy.random."):
        return
    if name in ("numpy.array", "numpy.asarray") and node.args and _list_of_data(node.args[0], ctx):
        yield Hit(node, f"`{show(node)}` builds an array from a list of pipeline values; LEAPP's patched "
                        f"`np.{name[6:]}` traces only a traced argument, so the list becomes a plain array of numbers",
                  "build it with a mapped function instead (`np.stack([...])`, `np.concatenate`), or FunctionPatch "
                  f"`{ctx.fn.qualname}` with a torch implementation")
        return
    sequence = _sequence_bound(node, ctx) if name == "numpy.clip" else None
    if sequence is not None and ctx.args_data(node):
        yield Hit(node, f"`{show(node)}` clips with a list of bounds (`{show(sequence)}`); LEAPP {ctx.support.version} "
                        "hands the list to `torch.clamp`, which takes numbers or tensors only, so the trace fails "
                        "when it is compiled",
                  "pass the bounds as arrays (`np.asarray([...])`), or let `generate` patch `np.clip` with its "
                  "adapter")
        return
    dtype = _dtype_type(node, ctx)
    if dtype is not None and ctx.support.maps_numpy(name) and name not in DTYPE_TYPE_ACCEPTED and ctx.args_data(node) \
            and not all(from_messages(a, ctx) for a in node.args):   # plain numbers of a message: no traced array
        yield Hit(node, f"`{show(node)}` passes `dtype={show(dtype)}`, a type object; LEAPP {ctx.support.version} "
                        "forwards it to the torch op, which raises NotImplementedError while tracing",
                  f"drop the keyword and convert after (`.astype(np.{_short(dtype)})`), or write the dtype as a "
                  f"string (`dtype=\"{_short(dtype)}\"`)")
        return
    if ctx.support.maps_numpy(name) or not ctx.args_data(node) or ctx.is_type_query(node) \
            or name in NUMPY_SHAPE_QUERIES:
        return
    data_args = [a for a in (*node.args, *(k.value for k in node.keywords)) if ctx.is_data(a)]
    if all(isinstance(a, ast.Name) and ctx.not_an_array(a.id, node) for a in data_args):
        return  # type dispatch put arrays on another path: this call converts a Python value
    short = name.removeprefix("numpy.")
    yield Hit(node, f"`np.{short}` is not mapped by LEAPP {ctx.support.version}; `{show(node)}` runs untraced",
              f"use a mapped NumPy or torch equivalent, or FunctionPatch `{ctx.fn.qualname}` with a torch "
              f"implementation (`generate` writes the patch)")


def from_messages(expr: ast.expr, ctx, depth: int = 0) -> bool:
    """Is `expr` computed only from fields of a middleware message and constants (`dx = goal.x - pose.x`, a helper
    handed only message fields, `np.arctan2(dy, dx)` of such)? Such a value is a plain Python or NumPy number at
    trace time, never a traced array (the message is where the pipeline's input is made)."""
    if depth > 4:
        return False
    if isinstance(expr, ast.Constant):
        return True
    if ctx.is_message_field(expr):
        return True
    if isinstance(expr, ast.BinOp):
        return from_messages(expr.left, ctx, depth + 1) and from_messages(expr.right, ctx, depth + 1)
    if isinstance(expr, ast.UnaryOp):
        return from_messages(expr.operand, ctx, depth + 1)
    if isinstance(expr, ast.Call):
        values = [*expr.args, *(k.value for k in expr.keywords if k.arg != "dtype")]
        return bool(values) and all(from_messages(v, ctx, depth + 1) for v in values)
    if isinstance(expr, ast.Name) and expr.id not in ctx.fn.params:
        bound = ctx.fn.assigned(expr.id)
        return bool(bound) and all(from_messages(v, ctx, depth + 1) for v in bound)
    return False


def _dtype_type(node: ast.Call, ctx) -> ast.expr | None:
    """The `dtype=` keyword when it is a type object: a NumPy scalar type (`np.float32`) or `float`/`int`/`bool`."""
    value = next((k.value for k in node.keywords if k.arg == "dtype"), None)
    if isinstance(value, ast.Name) and value.id in ("float", "int", "bool") and not ctx.fn.assigned(value.id):
        return value
    qualified = ctx.qualify(value) if isinstance(value, ast.Attribute) else None
    return value if qualified and qualified.startswith("numpy.") and qualified.count(".") == 1 else None


def _short(dtype: ast.expr) -> str:
    return dtype.id if isinstance(dtype, ast.Name) else dtype.attr


def _sequence_bound(node: ast.Call, ctx) -> ast.expr | None:
    """A bound of `np.clip` (positional, `a_min`/`a_max` or `min`/`max`) written as a list or tuple literal, or
    as a name bound once at module level to one."""
    bounds = [*node.args[1:3], *(k.value for k in node.keywords if k.arg in ("a_min", "a_max", "min", "max"))]
    for bound in bounds:
        if isinstance(bound, (ast.List, ast.Tuple)):
            return bound
        if isinstance(bound, ast.Name) and isinstance(_module_value(bound.id, ctx), (ast.List, ast.Tuple)):
            return bound
    return None


def _module_value(name: str, ctx) -> ast.expr | None:
    """The value a module global `name` is bound to (not shadowed in the function)."""
    if name in ctx.fn.params or ctx.fn.assigned(name):
        return None
    return ctx.module.globals.get(name)


def _list_of_data(arg: ast.expr, ctx) -> bool:
    """A list/tuple literal or comprehension of pipeline data, or a local list the function fills with it."""
    if isinstance(arg, (ast.List, ast.Tuple)):   # fields of a message are the input being made, not lost data
        return any(_list_of_data(e, ctx) if isinstance(e, (ast.List, ast.Tuple)) else   # `[[m.x, m.y]]`: its rows
                   ctx.is_data(e) and not ctx.is_shape(e) and not ctx.is_message_field(e) for e in arg.elts)
    if isinstance(arg, (ast.ListComp, ast.GeneratorExp)):
        return ctx.is_data(arg.elt) and not ctx.is_shape(arg.elt) and not ctx.is_message_field(arg.elt)
    return filled_local_list(arg, ctx)


RULE = Rule(
    code="LCM301", name="unmapped-numpy-call", category="unmapped-numpy", severity="error",
    summary="NumPy function that the installed LEAPP does not map, on pipeline data",
    what="Flags calls to NumPy functions and ufuncs missing from LEAPP's NumPy→torch tables "
         "(read from the installed leapp, e.g. `np.linalg.norm`, `np.interp`, `np.deg2rad`) when they receive pipeline data, "
         "and `np.array`/`np.asarray` of a list of pipeline values or of a list or queue the step fills with them "
         "(the list as it is where the array is made: lists declared together, `scans, goals = [], []`, filled from "
         "the entries of a list parameter and then rebound to the array, `scans = np.asarray(scans)`) "
         "(LEAPP patches them to trace a traced argument only; a list of traced values becomes a plain array: "
         "checked in the installed leapp 0.7.2). Not the fields of a middleware message (`np.array([msg.x, "
         "msg.y])`, `np.array(msg.ranges)`): that is where the pipeline's input is made, and where the user "
         "declares it. Also a mapped function given `dtype=` a type object on pipeline data (`np.concatenate(parts, "
         "dtype=np.float32)`, `np.sum(x, dtype=float)`): LEAPP 0.7.2 forwards the keyword to the torch op, which "
         "raises NotImplementedError while tracing (checked in the installed leapp; a string dtype, "
         "`dtype=\"float32\"`, traces, and so do `np.array`/`np.asarray`, which LEAPP patches on their own); not when "
         "the arguments are computed only from a message's fields and constants (`np.arctan2(p.y - 1.0, p.x, "
         "dtype=np.float32)`): plain numbers, never a traced array.",
    why="LEAPP intercepts NumPy through `__array_function__`/`__array_ufunc__` and records a torch op only for "
        "mapped callables. Others log 'No torch equivalent for numpy function ...' and return a plain ndarray: if "
        "it is the only path to an output, `output_tensors` raises 'received non-traced tensors'; mixed with traced "
        "math it is frozen as a constant and the export is wrong on new inputs.",
    fix="Rewrite with mapped functions (e.g. `np.sqrt(np.sum(x**2, axis=-1))` for `np.linalg.norm`, `x * (np.pi/180)` "
        "for `np.deg2rad`) or torch ops, or patch the enclosing helper with `leapp.FunctionPatch`.",
    example="speed = np.linalg.norm(lin_vel, axis=-1, keepdims=True)",
    fixed_example="speed = np.sqrt(np.sum(lin_vel ** 2, axis=-1, keepdims=True))",
    node_types=(ast.Call,), check=check,
    valid=(
        # `dtype=` a type object on plain numbers of a message a subscription delivered: no traced array
        "import numpy as np\nimport torch\nclass Node:\n    def __init__(self, net):\n        self.net = net\n"
        "        self.create_subscription(object, 'odom', self.step, 10)\n\n    def step(self, msg):\n"
        "        p = msg.pose.position\n        yaw = np.arctan2(p.y - 1.0, p.x, dtype=np.float32)\n"
        "        return self.net(torch.as_tensor(np.cos(yaw, dtype=np.float32)))\n",
        ("import numpy as np\nfrom numbers import Number\ndef is_num(v):\n    return isinstance(v, Number)\n"
         "def step(v):\n    if isinstance(v, np.ndarray):\n        return np.tanh(v)\n    out = np.atleast_1d(v)\n"
         "    if is_num(v):\n        out = np.asanyarray(v)\n    return out\n"),
        "import numpy as np\ndef step(obs):\n    return np.concatenate([np.sin(obs), np.clip(obs, -1, 1)], axis=-1)\n",
        "import numpy as np\ndef step(obs):\n    table = np.linalg.norm(np.ones(3))\n    return obs * table\n",
        "import numpy as np\ndef step(obs):\n    return np.array(obs, dtype=np.float32) + np.array([1.0, 2.0])\n",
        # a dtype written as a string traces
        "import numpy as np\ndef step(a, b):\n    return np.concatenate([a, b], dtype='float32')\n",
        # shape queries answer with Python ints, no array data
        "import numpy as np\ndef step(obs):\n    rows = np.shape(obs)[0]\n    return np.tanh(obs) * np.ndim(obs), rows\n",
        # the fields of a message a subscription callback stored, or the entry received: the input being made
        "import numpy as np\nclass Node:\n    def on_joints(self, msg):\n        self.joints = msg\n"
        "    def step(self, cmd):\n        q = np.asarray(self.joints.position)\n        return q * cmd\n",
        "import numpy as np\ndef to_vec(m):\n    return np.array(m.velocity)\n"
        "class Node:\n    def __init__(self, sub):\n        sub.register(self.step)\n"
        "    def step(self, msg):\n        return to_vec(msg) * 2\n",
    ),
    invalid=(
        "import numpy as np\ndef step(vel):\n    return np.linalg.norm(vel, axis=-1)  # error\n",
        "import numpy as np\nLIMITS = [0.4, 0.4, 1.0]\ndef step(cmd):\n"
        "    return np.clip(cmd, [-0.4, -0.4, -1.0], LIMITS)  # error\n",
        "from numpy import deg2rad\ndef step(cmd):\n    return deg2rad(cmd * 30.0)  # error\n",
        "import numpy as np\ndef step(q):\n    out = []\n    for i in range(3):\n        out.append(q[i] * 2)\n"
        "    return np.array(out)  # error\n",
        # lists declared together, filled from a list parameter's entries, rebound to the arrays made of them
        "import numpy as np\ndef step(robots):\n    scans, goals = [], []\n    for r in robots:\n"
        "        scans.append(r[0])\n        goals.append(r[1])\n    scans = np.asarray(scans)  # error\n"
        "    return np.tanh(scans), goals\n",
        # a type object as dtype, forwarded to the torch op
        "import numpy as np\ndef step(a, b):\n    return np.concatenate([a, b], dtype=np.float32)  # error\n",
        # bytes unpacked into a tuple of Python numbers
        "import struct\nimport numpy as np\ndef step(packet, gain):\n"
        "    q = np.array(struct.unpack('<4f', packet))  # error\n    return q * gain\n",
    ),
)
