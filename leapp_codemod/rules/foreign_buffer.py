import ast

from leapp_codemod.analysis.infer.context import is_self_attr
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule
from leapp_codemod.rules.scratch_buffer import buffer_name

# Roots whose objects are arrays or tensors themselves (a module-level `np.zeros(3)` is a buffer the state rules
# judge), not objects holding the host's buffers.
ARRAY_ROOTS = ("numpy.", "torch.", "builtins.")


def _target_root(node: ast.Assign | ast.AugAssign) -> ast.expr | None:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if len(targets) != 1 or not isinstance(targets[0], ast.Subscript):
        return None
    root = targets[0]
    while isinstance(root, ast.Subscript):
        root = root.value
    return root


def _library_built(value: ast.expr | None, module, ctx) -> bool:
    """`mujoco.MjData(model)`, `Robot(ip)` imported from a library: an object a library made."""
    if not isinstance(value, ast.Call):
        return False
    name = ctx.project.qualify(value.func, module)
    if not name or name in ctx.project.modules or name.rpartition(".")[0] in ctx.project.modules:
        return False   # a project function or class
    external = ctx.project.external_name(name)
    return "." in external and not external.startswith(ARRAY_ROOTS)


def foreign_holder(base: ast.expr, ctx) -> str | None:
    """How the object whose field is written reaches the step, when a library made it or the caller hands it in:
    'a module global', 'a parameter', 'an attribute of self'; None for the step's own objects."""
    types = ctx.types_of(base)
    if any(":" in t for t in types):
        return None   # a project object: its buffers are the state rules' (LCM701/LCM703)
    if isinstance(base, ast.Name):
        if base.id in ctx.fn.params and base.id != ctx.self_name:
            return "a parameter"
        if ctx.fn.assigned(base.id) and base.id not in ctx.declared_globals() or base.id not in ctx.module.globals \
                and base.id not in ctx.declared_globals():
            return None   # a local
        bindings = [ctx.module.globals.get(base.id)] + [
            n.value for fn in ctx.module.functions.values() if base.id in _globals_of(fn)
            for n in fn.nodes if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == base.id
                                                                   for t in n.targets)]
        return "a module global" if any(_library_built(v, ctx.module, ctx) for v in bindings) else None
    if is_self_attr(base, ctx.self_name) and ctx.cls is not None:
        values = [(k, method, v) for k in ctx.project.mro(ctx.cls) for method, v in k.attr_values.get(base.attr, ())]
        return "an attribute of self" if values and all(
            _library_built(v, ctx.project.modules[k.module], ctx) or _handed_in(k, method, v)
            for k, method, v in values) else None
    if isinstance(base, ast.Attribute):
        return foreign_holder(base.value, ctx)   # `sim.data.ctrl`: a field of what holds it
    return None


def _handed_in(klass, method: str, value: ast.expr) -> bool:
    """`self.robot = robot` in the constructor: an object the caller built and keeps."""
    init = klass.methods.get(method)
    return method == "__init__" and init is not None and isinstance(value, ast.Name) and value.id in init.params


def _globals_of(fn) -> frozenset[str]:
    return frozenset(name for n in fn.nodes if isinstance(n, ast.Global) for name in n.names)


def _construction_constant(value: ast.expr, ctx) -> bool:
    """`self.init_qpos`, `self.init_cmd[i]`: an attribute no method the step runs binds (set up before it, such as a
    configured start pose read from a file by a loader the constructor calls), written into the simulator to set
    it up: a value of the run, not of the call."""
    while isinstance(value, ast.Subscript):
        value = value.value
    if not (is_self_attr(value, ctx.self_name) and ctx.cls is not None) or ctx.facts.access is None:
        return False
    binders = {f"{k.id}.{method}" for k in ctx.project.mro(ctx.cls) for method, _ in k.attr_values.get(value.attr, ())}
    return bool(binders) and not binders & ctx.facts.access.visited


def _from_elsewhere(value: ast.expr, base: str, ctx) -> bool:
    """Is `value` pipeline data through something other than the object's own fields (`0.1 * sim.qvel[:3]`
    written into `sim.qfrc_applied` is the simulator's business)?"""
    own = {id(m) for n in ast.walk(value) if isinstance(n, ast.Attribute) and ast.unparse(n).startswith(base + ".")
           for m in ast.walk(n)}
    return any(ctx.is_data(n) for n in ast.walk(value) if id(n) not in own
               and (isinstance(n, ast.Name) or isinstance(n, ast.Attribute) and is_self_attr(n, ctx.self_name)))


def _step_data_in(node, root: ast.Attribute, ctx) -> bool:
    """The write puts the step's data into the buffer: its value is data from elsewhere, or it scales in place
    (`ctrl[1:] *= 0.95`) a buffer this function filled with such data above."""
    base = ast.unparse(root.value)
    if _from_elsewhere(node.value, base, ctx):
        return True
    if not isinstance(node, ast.AugAssign):
        return False
    text = ast.unparse(root)
    return any(isinstance(n, ast.Assign) and n.lineno < node.lineno and (r := _target_root(n)) is not None
               and ast.unparse(r) == text and _from_elsewhere(n.value, base, ctx) for n in ctx.fn.nodes)


def check(node, ctx):
    root = _target_root(node)
    if not isinstance(root, ast.Attribute) or is_self_attr(root, ctx.self_name) or _construction_constant(node.value, ctx):
        return
    if not _step_data_in(node, root, ctx) or ctx.state_writes(node) or buffer_name(node, ctx) \
            or ctx.in_error_handler(node):
        return
    holder = foreign_holder(root.value, ctx)
    if holder is None:
        return
    yield Hit(node, f"`{show(node)}` writes pipeline data into `{ast.unparse(root)}`, an array of an object the step "
                    f"does not own ({holder}); the write copies numbers out of the trace, so the exported model "
                    "does not perform it",
              "return the value from the step and write it into the object on the host, after the exported call")


RULE = Rule(
    code="LCM902", name="foreign-buffer-write", category="io-in-pipeline", severity="warning",
    summary="pipeline data written into an array of an object a library made or the caller hands in",
    what="Flags element or slice writes (`=`, `+=`, `*=`) of pipeline data into an array field of an object the step "
         "does not own: one a library made (a simulator's `data.ctrl[:] = a` with `data = mujoco.MjData(model)` as a "
         "module global, also bound under `global data` in a setup function, or kept on self), or one passed in "
         "(`sim.data.ctrl[:] = a`, `robot.cmd.q[i] = v` with `sim`/`robot` parameters, or kept on self from a "
         "constructor parameter), and in-place scaling (`ctrl[1:] *= 0.95`) of such a buffer the function filled "
         "with pipeline data above. Not reported: values made only from the object's own fields (`sim.qfrc[:] = "
         "0.1 * sim.qvel`: the simulator's business), constants, attributes of self no method of the step binds "
         "(a start pose a loader set), and writes into buffers of the project's own objects, which are the state "
         "rules' (LCM701, LCM703).",
    why="LEAPP records operations on traced values; an array a library or the caller owns is a plain array, so "
        "writing a traced value into it copies numbers (checked with the installed leapp 0.7.2: the written buffer "
        "is not a traced array, tests/test_leapp_foreign_buffer.py). The exported model has no such write: a step "
        "that sends its action this way exports nothing for it, and whatever the host reads back from the buffer "
        "comes from the traced call.",
    fix="Return the value from the step (the exported model's output) and write it into the simulator or robot "
        "object in the host loop, after the exported call.",
    example="def step(sim, obs, policy):\n    a = policy(obs)\n    sim.data.ctrl[:] = a",
    fixed_example="def step(obs, policy):\n    return policy(obs)\n# host loop: sim.data.ctrl[:] = exported(obs)",
    node_types=(ast.Assign, ast.AugAssign), check=check,
    valid=(
        # a constant written into the simulator (a reset), and a buffer of the project's own object
        "import mujoco\nimport numpy as np\nMODEL = mujoco.MjModel.from_xml_path('a.xml')\n"
        "data = mujoco.MjData(MODEL)\ndef step(obs):\n    data.ctrl[:] = 0.0\n    return np.tanh(obs)\n",
        "import numpy as np\nclass Out:\n    def __init__(self):\n        self.q = np.zeros(3)\n"
        "class P:\n    def __init__(self):\n        self.out = Out()\n    def step(self, obs):\n"
        "        return np.tanh(obs)\n",
        # a start pose a loader set before the step, written into the simulator to set it up
        "import mujoco\nimport numpy as np\nclass P:\n    def __init__(self, model, q0):\n"
        "        self.sim = mujoco.MjData(model)\n        self.load(q0)\n    def load(self, q0):\n"
        "        self.home = np.array(q0)\n    def step(self, obs):\n        self.sim.qpos[:] = self.home\n"
        "        return np.tanh(obs)\n",
    ),
    invalid=(
        "import mujoco\nimport numpy as np\nMODEL = mujoco.MjModel.from_xml_path('a.xml')\ndata = None\n\n"
        "def setup():\n    global data\n    data = mujoco.MjData(MODEL)\n\n"
        "def step(obs):\n    a = np.tanh(obs)\n    data.ctrl[0] = a[0] * 0.1  # error\n    data.ctrl[1:] *= 0.95  # error\n"
        "    return a\n",
        "import numpy as np\ndef step(obs, sim):\n    a = np.tanh(obs)\n    sim.data.ctrl[:] = a  # error\n    return a\n",
        "import mujoco\nimport numpy as np\nclass P:\n    def __init__(self, model):\n"
        "        self.sim = mujoco.MjData(model)\n    def step(self, obs):\n"
        "        self.sim.ctrl[:] = np.tanh(obs)  # error\n        return obs\n",
    ),
)
