import ast

from leapp_codemod.analysis.infer.context import parent_map
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.inplace_state import carried_fix, closure_fix, held_fix
from leapp_codemod.rules.base import Hit, Rule, written_state


_GLOBAL_FIX = ("keep `{attr}` on an object as a tensor attribute (or pass it in and return it) so it can be declared "
               "as LEAPP state")


def _reads(test: ast.expr, self_name: str, attr: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name)
               and n.value.id == self_name for n in ast.walk(test))


def _computes(block: list[ast.stmt]) -> bool:
    """The block assigns something (a buffer fill, a history update), not only logs."""
    return any(isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) for stmt in block for n in ast.walk(stmt))


def flipped_flag(node, ctx) -> ast.If | None:
    """`self.first_run = False` in the step, after `if self.first_run:` chose between two computations, with
    another literal set elsewhere in the class (the constructor, a reset): the flag the step flips is state."""
    self_name = ctx.self_name
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, bool) and isinstance(node.targets[0], ast.Attribute)
            and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == self_name
            and ctx.cls is not None and self_name is not None):
        return None
    attr = node.targets[0].attr
    others = [v for k in ctx.project.mro(ctx.cls) for m, v in k.attr_values.get(attr, ()) if m != ctx.fn.name]
    if not any(isinstance(v, ast.Constant) and v.value is not node.value.value for v in others):
        return None
    return next((n for n in ctx.fn.nodes if isinstance(n, ast.If) and n.lineno < node.lineno
                 and _reads(n.test, self_name, attr) and _computes(n.body) and _computes(n.orelse)), None)


_LEAVES = (ast.Return, ast.Raise, ast.Yield, ast.YieldFrom, ast.Break, ast.Continue)


def _single_target(stmt: ast.AST) -> ast.expr | None:
    """The one target of a plain assignment with a value (`a = v`, `a: T = v`), else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        return stmt.targets[0]
    return stmt.target if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else None


def overwritten_later(node: ast.Assign | ast.AnnAssign, fn) -> bool:
    """Does every path from the write on rebind the same target before the call ends (`if self.last is None:
    self.last = x` followed by `self.last = y` at the function's level)? Then the value written is used within
    the call only; the later write is the one the next call reads."""
    target = _single_target(node)
    if target is None:
        return False
    text = ast.unparse(target)
    parents = parent_map(fn)
    holder: ast.AST = node
    while id(holder) in parents and holder is not fn.node:
        parent = parents[id(holder)]
        block = next((b for name in ("body", "orelse", "finalbody")
                      if isinstance(b := getattr(parent, name, None), list) and holder in b), None)
        for later in block[block.index(holder) + 1:] if block is not None else ():
            rebound = _single_target(later)
            if rebound is not None and ast.unparse(rebound) == text:
                return True
            if any(isinstance(n, _LEAVES) for n in ast.walk(later)):
                return False
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef,
                               ast.Lambda, ast.ClassDef)) and parent is not fn.node:
            return False     # a loop may end after the write; a handler may skip the rest
        holder = parent
    return False


def _cadence_note(node, ctx) -> str:
    """`if self.t % self.k == 0: self.plan = model(obs)`: the step counter that decides when the state is
    refreshed, named once here (its tests and updates are not findings of their own)."""
    guard = ctx.cadence_guard(node)
    if guard is None:
        return ""
    branch, counters, lines = guard
    names = ", ".join(f"`self.{c}`" for c in counters)
    return (f"; it is refreshed only when `{show(branch.test)}` (line {branch.lineno}): the Python step counter "
            f"{names} (lines {', '.join(map(str, lines))}) picks the calls, and the export keeps the traced call's "
            "choice")


def check(node, ctx):
    write = ctx.state_write(node)
    if write is None:
        guard = flipped_flag(node, ctx)
        if guard is not None:
            attr = node.targets[0].attr
            yield Hit(node, f"`{show(node)}` flips the flag `self.{attr}` that `{show(guard.test)}` (line "
                            f"{guard.lineno}) reads before it: the next call takes the other branch, and the export "
                            "keeps only the branch the traced call took (recurrent state)",
                      f"keep `{attr}` as a tensor and select with `torch.where`, declared as LEAPP state; or run "
                      "the first-call branch outside the exported step")
        return
    if write[1] != "reassigned" or overwritten_later(node, ctx.fn):
        return
    attr = write[0]
    if ctx.is_loop_carried(attr):
        yield Hit(node, f"`{show(node)}` stores pipeline data in `{attr}`, which the driver loop's next iteration "
                        "reads (recurrent state)", carried_fix(attr))
        return
    if attr in ctx.declared_globals():
        yield Hit(node, f"`{show(node)}` stores pipeline data in the module global `{attr}`, which the next call "
                        "reads (recurrent state)", _GLOBAL_FIX.format(attr=attr))
        return
    if attr.rpartition(".")[2] in ctx.closure_cells() and attr == ctx.closure_state(attr.rpartition(".")[2]):
        name = attr.rpartition(".")[2]
        yield Hit(node, f"`{show(node)}` stores pipeline data in `{name}`, a variable of the enclosing "
                        f"{attr.rpartition('.')[0]} that the closure keeps from one call to the next (recurrent state)",
                  closure_fix(attr))
        return
    if isinstance(node.targets[0] if isinstance(node, ast.Assign) else node.target, ast.Attribute) \
            and ctx.held_path(node.targets[0] if isinstance(node, ast.Assign) else node.target) == attr:
        yield Hit(node, f"`{show(node)}` stores pipeline data in `self.{attr}`, kept by an object `self` holds, which "
                        "the next call reads (recurrent state)", held_fix(attr))
        return
    if "." in attr:
        yield Hit(node, f"`{show(node)}` stores pipeline data in the function attribute `{attr}`, which the next "
                        "call reads (recurrent state kept on a function object)",
                  f"keep `{attr}` on an object as a tensor attribute (or pass it in and return it) so it can be "
                  "declared as LEAPP state")
        return
    yield Hit(node, f"`{show(node)}` stores pipeline data in `self.{attr}`, which the next call reads (recurrent state)"
                    + _cadence_note(node, ctx),
              f"declare `{attr}` as LEAPP state (`state_tensors`/`update_state` around the call, or "
              f"`annotate.module(node, model, buffer_names=['{attr}'])`); `generate` writes it")


RULE = Rule(
    code="LCM702", name="state-reassignment", category="inplace-state", severity="error",
    summary="pipeline data stored on `self` and read back on the next call",
    what="Flags `self.x = <pipeline data>` in the step when the pipeline reads `self.x` before that write (earlier "
         "in the same function, on the same line, or in another reachable function), so the next call sees the new "
         "value: a recurrent hidden state, a last action, a filter memory, or a constant a branch on pipeline data "
         "picks (`if norm(cmd) < eps: self.freq = 0.0`). The same for a value kept on a module function's object "
         "(`handler.filtered = a * x + (1 - a) * handler.filtered`), and for a module global the step declares `global`, "
         "reads and rebinds (`vel = obs - prev; prev = obs`), for a field of an object self holds that is read "
         "before the write (`leg.last_cmd = cmd` with `for leg in self.legs.values()`, read by the leg's own method), "
         "and for a variable a closure that outlives its maker rebinds with `nonlocal`. A scratch attribute written and then read "
         "within one call is not flagged, nor a cache filled once under `if self.c is None:` from attributes of self "
         "only (`self.c = (self._var + eps) ** -0.5`). Also a Python flag the step flips with a literal "
         "(`self.first_run = False`) after a branch on it chose between two computations, when the class sets "
         "the other literal elsewhere (the constructor, a reset): a warn-once flag that guards only a log is not. "
         "A write that every path rebinds before the call ends is not flagged (a first-call latch `if self.last is None: "
         "self.last = x` before `self.last = y` at the function's level): the later write is the state. "
         "A write in one arm of an `if` never covers a read in the other: the history rolled in the `else` of a first-call branch (`if self.first: self.h = seed(x) else: self.h = cat(self.h[1:], x)`) reads what the last call left. A write in one arm of a test on a setting only the constructor sets, read only in the other arm, is not "
         "carried (an object keeps its mode). A step counter read only by tests and row reads of a plan it paces "
         "(`self.t += 1`, `self.t = 0`) is no finding of its own: the plan's finding names it and its lines.",
    why="Without a state declaration the exported graph reads `self.x` as the constant it held while tracing, and "
        "the new value is dropped: the model forgets between calls. `annotate.module` can turn reassigned buffers "
        "into state, but its compile-time validation reports false failures with several traced calls.",
    fix="Declare the attribute as explicit state around the pipeline call (`state_tensors` before, `update_state` "
        "after); `generate` writes it for every attribute found.",
    example="def forward(self, obs):\n    out, h = self.gru(obs, self.hidden)\n    self.hidden = h\n    return out",
    fixed_example="model.hidden = annotate.state_tensors(NODE, {'hidden': model.hidden})\n"
                  "out = model(obs)\nannotate.update_state(NODE, {'hidden': model.hidden})",
    node_types=(ast.Assign, ast.AnnAssign), check=check, state_writes=written_state,
    valid=(
        "import torch\nclass P:\n    def __init__(self):\n        self.last = torch.zeros(1)\n"
        "    def step(self, obs):\n        self.debug_copy = obs\n        return obs * 2\n",
        # a global written before any read: a scratch value, no state
        "import numpy as np\nlast = None\n\ndef step(obs):\n    global last\n    last = np.tanh(obs)\n"
        "    return last * 2\n",
        # a cache filled once from the module's own buffers, not from the input
        "import torch\nclass Norm(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer('var', torch.ones(3))\n        self.inv = None\n\n    def observe(self, x):\n"
        "        self.var = 0.9 * self.var + 0.1 * x * x\n        self.inv = None\n\n"
        "    def forward(self, obs, learn=True):\n        if learn:\n            self.observe(obs)\n"
        "        if self.inv is None:\n            self.inv = (self.var + 1e-2) ** -0.5\n        return obs * self.inv\n\n"
        "class P:\n    def __init__(self):\n        self.norm = Norm()\n\n    def step(self, obs):\n"
        "        return self.norm(obs, learn=False)\n",
        # a warn-once flag: the guarded block only logs
        "import torch\nclass P:\n    def __init__(self):\n        self.warned = False\n"
        "    def step(self, obs):\n        if not self.warned:\n            print('first call')\n"
        "            self.warned = True\n        return obs * 2\n",
    ),
    invalid=(
        "import torch\nclass P:\n    def __init__(self):\n        self.h = torch.zeros(1, 8)\n"
        "    def step(self, obs):\n        h = torch.tanh(obs + self.h)\n        self.h = h  # error\n        return h\n",
        "def step(obs):\n    if not hasattr(step, 'peak'):\n        step.peak = obs\n"
        "    step.peak = 0.9 * step.peak + 0.1 * obs  # error\n    return step.peak\n",
        # a module global the step declares `global`, reads and rebinds
        "import numpy as np\nprev = np.zeros(3)\n\ndef step(obs):\n    global prev\n    vel = obs - prev\n"
        "    prev = obs  # error\n    return vel * 2\n",
        # a first-call latch rebound at the end of every call: only the last write is what the next call reads
        "class LowPass:\n    def __init__(self):\n        self.last = None\n    def step(self, x):\n"
        "        if self.last is None:\n            self.last = x\n        y = 0.5 * x + 0.5 * self.last\n"
        "        self.last = y  # error\n        return y\n",
        # a first-call switch: fill the whole history once, then roll it (the else arm reads the last call's)
        "import numpy as np\nclass P:\n    def __init__(self):\n        self.first = True\n"
        "        self.hist = np.zeros((4, 3))\n    def step(self, obs):\n        if self.first:\n"
        "            self.hist[:] = obs\n            self.first = False  # error\n        else:\n"
        "            self.hist = np.roll(self.hist, -1, axis=0)  # error\n        return self.hist.sum(axis=0)\n",
    ),
)
