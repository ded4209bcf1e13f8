import ast

from leapp_codemod.analysis.infer.context import name_stores
from leapp_codemod.rules._helpers import condition_operands, show
from leapp_codemod.rules._call_varying import call_varying_test
from leapp_codemod.rules._containers import held_container_emptiness
from leapp_codemod.rules._text_values import emptiness_guard, text_test
from leapp_codemod.rules.base import Hit, Rule
from leapp_codemod.rules.shape_branch import shape_only_test

KEYWORD = {ast.If: "if", ast.While: "while", ast.Assert: "assert"}


def check(node, ctx):
    if isinstance(node, (ast.If, ast.While)) and ctx.only_io(node.body + node.orelse):
        return  # `if step % 50 == 0: print(...)`: the print is the finding; `while clock() < t_next: pass` waits
    if isinstance(node, ast.If) and ctx.rate_gate(node.test):
        return  # `if clock() - self.t0 > self.dt * self.ticks:` paces the host; it computes nothing the export keeps
    if _container_emptiness(node.test, ctx):
        return  # `assert not queue` on a Python list the function built: a length, no value is tested
    if _string_record_test(node.test, ctx):
        return  # `ev.kind == "tap" and ev.down`: fields of a record that holds strings (a UI event), never tensors
    if ctx.cadence_test(node.test):
        return  # `if self.t % self.k == 0:` on a step counter: the plan it refreshes is the state finding
    if shape_only_test(node.test, ctx):
        return  # a value that is also a shape (`width = spec[0]`, `if width % 2`): LCM001's, reported once
    held = held_container_emptiness(node.test, ctx)
    if held == "held":
        return  # `if not self.queue:` on a list a callback or the settings fill: a length, no tensor value
    if isinstance(node, (ast.If, ast.While)) and (held == "filled" or call_varying_test(node.test, ctx)) \
            and not ctx.decided_by_settings(node):
        keyword = KEYWORD[type(node)]
        yield Hit(node.test, f"`{keyword} {show(node.test)}` tests a Python flag or state that changes between "
                             f"calls (the first call takes one path, later calls the other); only the path taken "
                             f"while tracing is exported",
                  "make the step take the same path on every call (initialise the state in the constructor or "
                  "before the exported pipeline), or select the outcome with `torch.where` on a tensor flag input")
        return
    if (ctx.is_data(node.test) or _extracted(node.test, ctx)) and not ctx.decided_by_settings(node) \
            and not text_test(node.test, ctx) and not emptiness_guard(node, ctx):
        # (`if note:` on a Python str; `if not frames: raise ...` rejects an empty list, tests no value)
        keyword = KEYWORD[type(node)]
        yield Hit(node.test, f"`{keyword} {show(node.test)}` decides Python control flow on pipeline data; "
                             f"only the path taken while tracing is exported",
                  "express both outcomes as tensors and select with `torch.where(cond, a, b)` "
                  "(or `np.where`), or FunctionPatch the helper with such a version")


_EXTRACTING_BUILTINS = frozenset({"float", "int", "bool"})


def _extraction(e: ast.expr, ctx) -> bool:
    """`x.item()`, `float(x)`, `int(x.sum())` of pipeline data: a Python number taken out of it."""
    if not isinstance(e, ast.Call):
        return False
    func = e.func
    if isinstance(func, ast.Attribute) and func.attr == "item" and not e.args:
        return ctx.is_data(func.value)
    return ctx.builtin(e) in _EXTRACTING_BUILTINS and len(e.args) == 1 and ctx.is_data(e.args[0]) \
        and not ctx.is_shape(e.args[0])


def _extracted(test: ast.expr, ctx) -> bool:
    """The condition tests a Python number taken out of pipeline data (`n = bad.sum().item()`, then
    `if n == 0: break`): the branch follows the data as much as one on the tensor would. A `while` loop's
    exit on it is decided by the data too."""
    for n in ast.walk(test):
        if _extraction(n, ctx):
            return True
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in ctx.fn.params:
            values = ctx.fn.assigned(n.id)
            if values and all(_extraction(v, ctx) for v in values):
                return True
    return False


def _string_compare(e: ast.expr) -> ast.expr | None:
    """The other side of `x == "tap"`, `x != "tap"`, `x in ("a", "b")`: a value compared with string literals."""
    if not (isinstance(e, ast.Compare) and len(e.ops) == 1
            and isinstance(e.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn))):
        return None
    left, right = e.left, e.comparators[0]
    for value, other in ((left, right), (right, left)):
        items = other.elts if isinstance(other, (ast.Tuple, ast.List, ast.Set)) else [other]
        if items and all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
            return value
    return None


def _record_base(e: ast.expr) -> str | None:
    """`ev` of `ev.kind` / `ev["kind"]`."""
    if isinstance(e, ast.Attribute):
        return ast.unparse(e.value)
    if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant) and isinstance(e.slice.value, str):
        return ast.unparse(e.value)
    return None


def _string_record_test(test: ast.expr, ctx) -> bool:
    """Every operand of the condition (joined by `and`/`or`/`not`) is a comparison with string literals, or a
    field of a record the same condition compares a field of with a string (`ev["type"] == "button" and
    ev["pressed"]`): UI events and names, never tensors (a traced value is never equal to a string)."""
    operands = condition_operands(test)
    compared = [v for v in map(_string_compare, operands) if v is not None]
    if not compared:
        return False
    records = {b for b in map(_record_base, compared) if b is not None}
    return all(_string_compare(o) is not None or _record_base(o) in records or not ctx.is_data(o)
               for o in operands)


_CONTAINER_CALLS = frozenset({"list", "dict", "set", "tuple", "sorted"})


def _container_emptiness(test: ast.expr, ctx) -> bool:
    """`if not items:` / `if items:` where every binding of the local `items` builds a Python list, dict, set or
    tuple (`[None] * n`, `list(reversed(xs))`, `{}`): the test reads the container's length."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if not isinstance(test, ast.Name) or test.id in ctx.fn.params:
        return False
    values = ctx.fn.assigned(test.id)
    return bool(values) and name_stores(ctx.fn).get(test.id) == len(values) and all(_builds_container(v, ctx)
                                                                                     for v in values)


def _builds_container(value: ast.expr, ctx) -> bool:
    if isinstance(value, (ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set, ast.SetComp, ast.Tuple)):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return isinstance(value.left, (ast.List, ast.Tuple)) or isinstance(value.right, (ast.List, ast.Tuple))
    return isinstance(value, ast.Call) and ctx.builtin(value) in _CONTAINER_CALLS


RULE = Rule(
    code="LCM201", name="tensor-condition", category="tensor-branch", severity="error",
    summary="`if` / `while` / `assert` on pipeline data",
    what="Flags `if`, `while` and `assert` statements whose condition is computed from pipeline data, or tests a "
         "Python number taken out of it (`n = bad.sum().item()`, then `if n == 0: break`), or the answer of a project "
         "function that returns constants the data picks (`if self.near():` where `near` returns `True` under "
         "`if dist < tol` and `None` otherwise). An `if` "
         "whose branches only do I/O (`if step % 50 == 0: print(...)`) is left to the I/O finding, and a test of "
         "parameters every call passes as literals (`f(a, True)` here, `f(a, noise)` with `noise = False` there) is "
         "the callers' choice, reported where they make it. Nor is `if not items:` on a local every binding of which "
         "builds a Python list, dict, set or tuple (its length is tested). The emptiness of a container held on self "
         "(`if not self.queue:`, `if len(self.window) == 0:`) is a length too: not flagged when the container "
         "holds no pipeline data (names from the settings), and reported as state that changes between calls "
         "when the pipeline fills it (empty on the first call only). A test whose pipeline data is only "
         "run-time shapes (a size handed over as a value, `width = spec[0]; if width % 2:`) is a shape branch "
         "(LCM001), reported once. Nor is a comparison with string literals or a field of a record the same "
         "condition compares with one (`ev[\"type\"] == \"button\" and ev[\"pressed\"]`: a UI event, never a tensor), "
         "nor the test of a step counter read only by tests and row reads of a plan it paces (`if self.t % self.k "
         "== 0: self.plan = model(obs)`): the plan's LCM702 names the cadence. Nor is a rate gate: an ordering of a clock "
         "reading against settings, clock stamps and step counters (`if time.monotonic() - self.t0 > self.dt * "
         "self.ticks:` in a timer callback) decides when the host runs the step, not what it computes. What counts "
         "as pipeline data in a step without data parameters is where an attribute's value comes from: an "
         "attribute a callback, a thread or a setup helper fills only from constants, settings, clocks or its own "
         "arithmetic is none (a message, a device read or another data attribute makes it data). Pipeline data includes the fields of a "
         "simulator's live state kept in a module global (`data = mujoco.MjData(model)` at module level or under "
         "`global data` in a setup function), as for one kept on self: `if data.qpos[2] < 0.2:`. Also flagged, with that cause: a test of a Python flag that changes between calls (a "
         "driver loop's carried `is_first = False`, `self.primed` set to True by the step, a flag parameter the caller's "
         "loop passes a test on its counter, `act(obs, reset=t == 0)`, unless its block only assigns attributes of self "
         "that a later statement rebinds before anything reads them) or of the existence of "
         "state the step itself creates (`if hasattr(self, \"_prev\"):`), where the first call takes one path and "
         "later calls the other. Not flagged: the truth of Python text (`if caption:` on a `str`) and a guard that "
         "only raises on an empty list (`if not frames: raise ...`).",
    why="A traced graph has no Python control flow. LEAPP logs an ERROR ('Attempted to use TracedTensor ... in a "
        "boolean context') but keeps tracing: only the branch (or the number of loop iterations) taken on the traced "
        "inputs is recorded. If every traced sample takes the same path, `compile_graph(validate=True)` passes and "
        "the exported model is still wrong on other inputs. NumPy 0-d comparisons are not even logged.",
    fix="Compute both branches and select with `torch.where(cond, a, b)`; replace value-dependent loops with a "
        "closed form (e.g. a clamp or a scale factor computed in tensor ops).",
    example="if tilt.abs().max() > cfg.max_tilt:\n    return torch.zeros_like(cmd)\nreturn cmd",
    fixed_example="unsafe = tilt.abs().amax() > cfg.max_tilt\nreturn torch.where(unsafe, torch.zeros_like(cmd), cmd)",
    node_types=(ast.If, ast.While, ast.Assert), check=check,
    valid=(
        "def step(obs, cfg):\n    if cfg.use_filter:\n        obs = obs * 0.5\n    return obs\n",
        "def step(obs):\n    if obs is None:\n        return obs\n    return obs + 1\n",
        ("class P:\n    def __init__(self):\n        self.calls = 0\n    def step(self, obs):\n        self.calls += 1\n"
        "        if self.calls % 50 == 0:\n            print('alive')  # the print is reported, not the branch\n"
        "        return obs * 2\n"),
        "class P:\n    def __init__(self):\n        self.training = False\n    def step(self, obs):\n        if self.training:\n            pass\n        return obs\n",
        # a helper whose constant answer a setting picks
        ("class P:\n    def __init__(self, mode):\n        self.mode = mode\n    def fast(self):\n"
         "        if self.mode == 'fast':\n            return True\n        return False\n"
         "    def step(self, obs):\n        if self.fast():\n            obs = obs * 2\n        return obs\n"),
        # the emptiness of a Python list the function built is its length, not a value
        ("import torch\ndef step(obs, layers):\n    queue = list(reversed(layers))\n    while queue:\n"
        "        obs = queue.pop()(obs)\n    assert not queue\n    return torch.tanh(obs)\n"),
    ),
    invalid=(
        "def step(obs, limit):\n    if obs.abs().max() > limit:  # error\n        return obs * 0\n    return obs\n",
        # a simulator's live state kept in a module global is read as an input
        "import mujoco\nimport numpy as np\nMODEL = mujoco.MjModel.from_xml_path('a.xml')\ndata = None\n\n"
        "def setup():\n    global data\n    data = mujoco.MjData(MODEL)\n\n"
        "def step(w):\n    if data.qpos[2] < 0.2:  # error\n        return np.zeros(2)\n    return np.tanh(w @ data.qvel)\n",
        # a number taken out of the data, then tested
        ("import torch\ndef step(obs):\n    while True:\n        bad = obs.abs() > 1.0\n        n = bad.sum().item()\n"
        "        if n == 0:  # error\n            break\n        obs = torch.where(bad, obs * 0.5, obs)\n    return obs\n"),
        "def step(cmd, limit):\n    while cmd.abs().max() > limit:  # error\n        cmd = cmd * 0.9\n    return cmd\n",
        # state the step creates: absent on the first call only
        ("class P:\n    def step(self, obs):\n        if hasattr(self, 'prev'):  # error\n"
         "            obs = 0.5 * (obs + self.prev)\n        self.prev = obs\n        return obs\n"),
        # a flag the caller's loop passes as a test on its counter: True on the first call only
        ("import numpy as np\ndef step(obs, first: bool):\n    if first:  # error\n        obs = obs * 0.0\n"
         "    return np.tanh(obs)\ndef drive(frames):\n    for t, f in enumerate(frames):\n"
         "        step(f, first=t == 0)\n"),
        # the flag a helper tests is a literal at every call: the caller's branch is the one finding
        ("# range: 11-15\nimport numpy as np\ndef shape_cmd(a, jitter):\n    if jitter:\n        a = a * 0.5\n"
        "    return a\n\ndef main(stream, send):\n    jitter = False\n    for obs in stream:\n"
        "        a = np.tanh(obs)\n        if a.sum() > 0:  # error\n            jitter = True\n"
        "        send(shape_cmd(a, jitter))\n        jitter = False\n"),
        # a helper answers with constants the data picks (True or None): the caller's branch follows the data
        ("import numpy as np\nclass Tracker:\n    def near(self):\n        if np.abs(self.pos).max() < 0.1:  # error\n"
         "            return True\n        return None\n    def step(self, pos):\n        self.pos = pos * 1.0\n"
         "        if self.near():  # error\n            pos = -pos\n        return pos * 2.0\n"),
        # ... or a bool the data picks, the other answer falling off the end (None)
        ("import numpy as np\nLIMIT = 2.0\nclass Arm:\n    def saturated(self):\n        for x in self.v:\n"
         "            if abs(x) > LIMIT:  # error\n                return True\n    def step(self, v):\n"
         "        self.v = np.tanh(v)\n        if self.saturated():  # error\n            v = v * 0.5\n        return v\n"),
    ),
)
