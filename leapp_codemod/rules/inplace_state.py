import ast

from leapp_codemod.rules._helpers import empty_container, show
from leapp_codemod.rules.base import Hit, Rule, written_state


def carried_fix(name: str) -> str:
    return (f"`{name}` is recurrent state of the inline pipeline: `generate` declares it as LEAPP state around each "
            "iteration (a list or deque of arrays has to become one array first)")


def held_fix(path: str) -> str:
    return (f"`self.{path}` is state kept inside another object, which LEAPP state cannot name: keep it in one "
            "tensor attribute of the stepping object (e.g. stack the items' buffers) so `generate` can declare it, "
            "or declare each buffer from the integration module with `state_tensors`/`update_state`")


def closure_fix(state: str) -> str:
    return (f"`{state}` lives in a closure cell, which LEAPP state cannot name: keep it on an object as a tensor "
            "attribute (or pass it in and return it) so `generate` can declare it as LEAPP state")


def kept_fix(state: str) -> str:
    return (f"`{state}` lives in an object the caller keeps and passes again on every call, which LEAPP state "
            "cannot name: keep it as a tensor attribute of the stepping object (or pass it in and return it) so "
            "`generate` can declare it as LEAPP state")


def kept_hit(node, state: str) -> Hit:
    return Hit(node, f"`{show(node)}` writes pipeline data into `{state}`, an object the caller keeps and passes "
                     "again on the next call, which reads it back (recurrent state outside `self`); the export "
                     "freezes or drops it", kept_fix(state))


def _target_root(node) -> ast.expr | None:
    """The expression a write lands in, under subscripts and chained in-place calls."""
    target = node.target if isinstance(node, ast.AugAssign) else node.targets[0] if isinstance(node, ast.Assign) \
        else node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else None
    while isinstance(target, ast.Subscript) or isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute):
        target = target.value if isinstance(target, ast.Subscript) else target.func.value
    return target


def check(node, ctx):
    write = ctx.state_write(node)
    if write is None or write[1] != "inplace" or isinstance(node, ast.Assign) and empty_container(node.value):
        return   # `self.hist[k] = deque(maxlen=4)`: setup; the appends into it are the writes
    attr = write[0]
    if ctx.is_kept_state(attr):
        yield kept_hit(node, attr)
        return
    if ctx.is_loop_carried(attr):
        rebinds = isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)   # `t += dt`: a new value
        yield Hit(node, f"`{show(node)}` {'updates' if rebinds else 'mutates'} `{attr}`"
                        f"{'' if rebinds else ' in place'}, which the driver loop carries into its next "
                        "iteration; the export freezes or drops it", carried_fix(attr))
        return
    if attr.rpartition(".")[2] in ctx.closure_cells() and attr == ctx.closure_state(attr.rpartition(".")[2]):
        yield Hit(node, f"`{show(node)}` mutates `{attr.rpartition('.')[2]}` in place, a variable of the enclosing "
                        f"{attr.rpartition('.')[0]} that the closure keeps from one call to the next; the export "
                        "freezes or drops it", closure_fix(attr))
        return
    if ctx.held_path(_target_root(node)) == attr:
        yield Hit(node, f"`{show(node)}` mutates `self.{attr}` in place, an array an object held by `self` keeps "
                        "from call to call; the export freezes or drops it", held_fix(attr))
        return
    owner = ctx.state_owner(attr)
    where = f"self.{attr}" if ":" in owner else attr
    yield Hit(node, f"`{show(node)}` mutates persistent state `{where}` in place; the export freezes or drops it",
              f"declare it as state around the pipeline call: `state_tensors(node, {{'{attr}': obj.{attr}}})` before "
              f"and `update_state(node, {{'{attr}': obj.{attr}}})` after (`generate` writes this for "
              f"`{owner.split(':')[-1]}.{attr}`)")


RULE = Rule(
    code="LCM701", name="inplace-state-write", category="inplace-state", severity="error",
    summary="in-place write to tensor state that persists across calls",
    what="Flags in-place updates of tensors stored on `self` by the step: `self.buf.copy_(...)`, "
         "`self.state.mul_(a).add_(b)`, `self.h += x`, `self.hist[:, -1] = obs`; also of arrays kept by objects "
         "self holds, directly or in a container (`self.est.cov.mul_(a)`, `self.pads[2].level += x`, "
         "`for leg in self.legs.values(): leg.window[-1] = q`), reported as `self.legs[].window` (LEAPP state "
         "cannot name them: not declared by `generate`), and of arrays a closure keeps from one call to the "
         "next (a closure returned by its maker, or the entry closure its maker calls again and again: `peaks[:] = "
         "...` on a variable of the maker), and writes of "
         "pipeline data into an object the caller keeps: a dict, list, array or object the driver builds once "
         "and passes to the step on every iteration of its loop (`mem[\"prev\"] = act` read back as "
         "`mem[\"prev\"]` next call, `cmd[3] = a[0]` into an array handed down from it) or a module-level "
         "container the step fills and reads (`HIST[\"last\"] = x`). A dict attribute's entries are told apart by "
         "their constant keys: a write into `self.win[\"acc\"]` does not make a later read of `self.win[\"gyro\"]` "
         "see this call's value, so the history shifted in that entry is still state. A container the step only "
         "fills (`self.log[\"q\"].append(q)`) that no code reads as a value is no state: code the step runs reads "
         "it, or code outside it that does more than report it (a method writing it to a file) or ask its size "
         "(`len(...)`); a method of that name called on something else (`t.log()`) reads no field.",
    why="LEAPP sees a persistent tensor as a constant. In-place updates are never detected as state: `mul_`/`add_`/"
        "`lerp_`/`+=` freeze the pre-trace state silently, and `copy_` of a traced value into it makes torch.export "
        "fail with 'Expected meta != nullptr'. The exported model forgets its memory.",
    fix="Declare the tensor as explicit LEAPP state from the integration layer: before the call "
        "`obj.buf = annotate.state_tensors(node, {'buf': obj.buf})`, after it "
        "`annotate.update_state(node, {'buf': obj.buf})`. `generate` writes both, with reset handling.",
    example="class Smoother:\n    def __call__(self, a):\n        self.state.mul_(0.7).add_(0.3 * a)\n        return self.state.clone()",
    fixed_example="# integration module (the application stays unchanged)\n"
                  "smoother.state = annotate.state_tensors(NODE, {'state': smoother.state})\n"
                  "out = policy.act(obs)\n"
                  "annotate.update_state(NODE, {'state': smoother.state})",
    node_types=(ast.Call, ast.AugAssign, ast.Assign), check=check, state_writes=written_state,
    valid=(
        "import torch\nclass P:\n    def __init__(self):\n        self.count = 0\n"
        "    def step(self, obs):\n        self.count += 1\n        out = obs * 2\n        out.clamp_(-1, 1)\n        return out\n",
    ),
    invalid=(
        "import torch\nclass P:\n    def __init__(self):\n        self.buf = torch.zeros(1, 4)\n"
        "    def step(self, obs):\n        self.buf.copy_(obs)  # error\n        return self.buf * 2\n",
        "import torch\nclass P:\n    def __init__(self):\n        self.acc = torch.zeros(1, 4)\n"
        "    def step(self, err):\n        self.acc += 0.1 * err  # error\n        return self.acc\n",
        "import torch\nclass P:\n    def reset(self, dev):\n        self.votes = torch.zeros(8, 3).to(dev)\n"
        "    def step(self, logits, t: int):\n        self.votes[t % 8] = logits  # error\n"
        "        return self.votes.mean(0)\n",
        "# range: 6-8\nimport numpy as np\ndef main(read, policy):\n    level = np.zeros(2)\n    for _ in range(5):\n"
        "        x = read()\n        level += x * 0.1  # error\n        y = policy(level)\n        print(y)\n",
        # a module global the step declares `global` and adds to
        "import numpy as np\ntotal = np.zeros(3)\n\ndef step(obs):\n    global total\n    total += obs  # error\n"
        "    return total * 0.5\n",
        # a history in one entry of a dict attribute, shifted after a write into another entry
        "import numpy as np\nclass P:\n    def __init__(self):\n"
        "        self.win = {'acc': np.zeros((4, 3)), 'gyro': np.zeros((4, 3))}\n"
        "    def step(self, acc, gyro):\n        self.win['acc'][:, 0] = acc  # error\n"
        "        self.win['gyro'][:-1] = self.win['gyro'][1:]  # error\n        self.win['gyro'][-1] = gyro  # error\n"
        "        return np.tanh(self.win['acc'] + self.win['gyro'])\n",
        # per-camera frame buffers updated through a loop alias of the attribute's items
        "import numpy as np\nclass P:\n    def __init__(self):\n        self.frames = [np.zeros((4, 8)), np.zeros((4, 8))]\n"
        "    def step(self, images):\n        for buf, image in zip(self.frames, images):\n"
        "            buf[:-1] = buf[1:]  # error\n            buf[-1] = image  # error\n"
        "        return np.stack(self.frames).mean(axis=1)\n",
    ),
)
