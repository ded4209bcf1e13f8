import ast
from pathlib import PurePath

from leapp_codemod.analysis.infer.context import parent_map
from leapp_codemod.knowledge.io import OUTSIDE_INPUT_TEXT
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def check(node: ast.Attribute | ast.Name, ctx):
    if _runs(node, ctx):
        return   # `self.model(obs)` after a key handler swapped the model: code the step runs, no value it reads
    fill = ctx.filled_outside(node)
    if fill is None or ctx.in_error_handler(node):
        return   # in an `except` block: a fallback; the traced call raised nothing, the export is not this path
    module = ctx.project.modules.get(fill.module)
    column = module.column(fill.line, fill.column) if module is not None else fill.column + 1
    where = f"{PurePath(fill.path).name}:{fill.line}"
    note = (f"`{fill.writer}` writes `{fill.name}` here, outside the step (registered to run between its calls): "
            "the value the step reads")
    read = show(node) + (f".{fill.name.partition('.')[2]}" if "." in fill.name else "")   # `self.pad.lx`
    yield Hit(node, f"`{read}` {OUTSIDE_INPUT_TEXT}: `{fill.writer}` writes it ({where}), registered to run "
                    "between the step's calls: an input of the step that the boundary must declare (undeclared, "
                    "it is no traced input and the export keeps the value it held while tracing)",
              _fix(read), related=((fill.path, fill.line, column, note),))


def _runs(node: ast.AST, ctx) -> bool:
    """Is the read the callee of a call or the receiver of a `forward` (`self.model(x)`, `self.model.forward(x)`)?"""
    parents = parent_map(ctx.fn)
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call) and parent.func is node:
        return True
    call = parents.get(id(parent))
    return isinstance(parent, ast.Attribute) and parent.attr == "forward" and isinstance(call, ast.Call) \
        and call.func is parent


def _fix(read: str) -> str:
    """What serves the input: `generate` serves a field of the step's own object (HELD); a global it cannot."""
    if read.startswith("self."):
        return (f"`generate` declares `{read.split('.')[1]}` a held input (HELD: read before each call and traced "
                "as an input; `run` names a field it cannot serve, such as a message object or a Python number); "
                "a boundary written by hand reads it in the host loop and passes it as an argument")
    return (f"read `{read}` in the host loop and pass it to the step as an argument (an input of the boundary, "
            "declared with the step's other inputs); keep only a check that it arrived (`is None`) in the step")


RULE = Rule(
    code="LCM903", name="outside-filled-input", category="io-in-pipeline", severity="info",
    summary="the step reads a value a callback, listener, thread or handler fills between its calls",
    what="Flags, in the pipeline, the first read (per function, name and part read off it) of an attribute of "
         "self or a module global that code registered to run outside the step writes, when the read feeds what "
         "the function computes. Each part of a stored value is its own input: the field path read off it, "
         "through indexing (`self.low_state.motor_state[i].q`, `.motor_state[i].dq` and `.imu_state.gyroscope` "
         "are three reads; the `.x`/`.y`/`.z`/`.w` components of one vector are one), at most one report per "
         "statement; a copy into an attribute no scanned code reads (`self.last_stamp = self.odom.header.stamp`) "
         "is no input. Such a value is the step's input for the other rules too: what is built from it is pipeline "
         "data (a TorchScript helper called on it is LCM111), and its fields are message fields, so a tensor built "
         "from them is reported here once, not again as a list of Python numbers. Registered code is a method of self or a function handed to a registration: a ROS 1/ROS 2 "
         "subscription, timer or service, `Thread(target=...)`/`Process`, a keyboard or mouse listener "
         "(`Listener(on_press=...)`, `keyboard.on_press(...)`), `signal.signal`, a MuJoCo viewer's "
         "`key_callback=`, a GUI `bind`/`after`/`connect`, `asyncio.create_task`, a server or handler class; a "
         "handler defined inside a method and handed over (a closure over self); the helpers of self such code "
         "calls. Writes through an object such code holds count per field: a call handing values to the object's "
         "method (`self.pad.update(msg.axes)`, whose `update` stores them) or a write into its field "
         "(`self.env.depth = buf`) fills that field, whether the step reads it through the holder (`self.pad.lx`) "
         "or is a method of the object itself (`self.depth`). A write is an assignment or an item, augmented or "
         "container-mutator write (`append`, `put`, an in-place `copy_`); any other method call on an attribute "
         "(`self.env.get_commands(c)`, `self.names.index(n)`) reads it. Module globals count wherever that code lives: a global it declares (`global VEL`) or whose items "
         "it writes (`VEL[0] = msg.linear.x`), or another project module's global written through its import "
         "(`shared.pose = msg.pose`), read by the step as a bare name, through the module's import "
         "(`shared.pose`) or as a name imported from it (`from shared import VEL`). "
         "A callback method's writes count only when they carry data (a message field, a device read; "
         "constants, settings, clocks and counters fill nothing); a handler's or a listener's writes always count "
         "(an operator's input). A read that only gates (`if self.js is None: return`, a truth test, `len`, "
         "`hasattr`) is no data. Writers the step itself runs are pipeline state (LCM701/LCM702), not this rule; so are the "
         "writes on the lines of an inline range the step is, read by a helper the range calls (the registered "
         "callback the range is cut from writes them, but inside the step). "
         "The finding's related location is the write.",
    why="LEAPP 0.7.2 traces only the tensors handed to `input_tensors` (and the state declared with "
        "`state_tensors`); a value the step reads from an attribute or a global is not traced and is baked into "
        "the export as a constant, the command or message seen while tracing (leapp-guide.md: anything that is "
        "not a traced value and flows into a traced op is baked in as a constant). No code of the step falls "
        "out of the trace: the value is an input the boundary has to declare, so the finding's severity is "
        "`info` (not counted as a hazard; `--fail-on info` makes it fail).",
    fix="Declare it as an input of the boundary. For a field of the step's own object `generate` does: it lists "
        "the field in HELD, `run` reads it before each call and traces it as an input (and names a field it "
        "cannot serve: a message object, a Python number). By hand, or for a module global: read the value in "
        "the host loop (where the callback stored it) and pass it to the step as an argument; the step keeps at "
        "most a check that a first message arrived.",
    example="def on_key(self, key):\n    self.cmd[0] += 0.1\n\ndef step(self, obs):\n"
            "    return self.policy(np.concatenate([obs, self.cmd]))",
    fixed_example="def step(self, obs, cmd):\n    return self.policy(np.concatenate([obs, cmd]))\n\n"
                  "action = node.step(obs, node.cmd.copy())    # host loop",
    node_types=(ast.Attribute, ast.Name), check=check,
    in_libraries=False, reads_value=True,   # an installed library's own bookkeeping between calls is not the application's input
    valid=(
        # only a gate: the step returns early until the first message arrived
        "import torch\nclass Node:\n    def __init__(self):\n        self.js = None\n"
        "        self.create_subscription(object, 'js', self.on_js, 10)\n\n    def on_js(self, msg):\n"
        "        self.js = msg\n\n    def step(self, obs):\n        if self.js is None:\n            return None\n"
        "        return obs * 2\n",
        # the step's own state, written by the step: not filled outside
        "import torch\nclass Filter:\n    def __init__(self):\n        self.prev = torch.zeros(3)\n\n"
        "    def step(self, obs):\n        out = 0.5 * obs + 0.5 * self.prev\n        self.prev = out\n"
        "        return out\n",
        # a subscription callback that only stores a constant in a global: it fills no input
        "import torch\nREADY = 0.0\nclass Watch:\n    def __init__(self):\n"
        "        self.create_subscription(object, 'hb', self.on_beat, 10)\n\n    def on_beat(self, msg):\n"
        "        global READY\n        READY = 1.0\n\ndef step(obs):\n    return obs * READY\n",
        # a handler that only counts frames for a log: nothing the step turns into data
        "import signal\nFRAMES = 0\n\ndef on_usr1(sig, frame):\n    global FRAMES\n    FRAMES += 1\n\n"
        "signal.signal(signal.SIGUSR1, on_usr1)\n\ndef step(obs):\n    print(FRAMES)\n    return obs * 2\n",
        # the callback only looks a name up in a table the step reads: a read, no write
        "import torch\nclass Legs:\n    def __init__(self):\n        self.names = ['a', 'b']\n"
        "        self.scale = torch.ones(2)\n        self.create_subscription(object, 'f', self.on_force, 10)\n\n"
        "    def on_force(self, msg):\n        self.scale.mul(1.0)\n        i = self.names.index(msg.name)\n\n"
        "    def step(self, obs):\n        return obs * self.scale\n",
    ),
    invalid=(
        "import numpy as np\nimport torch\nclass Node:\n    def __init__(self):\n        self.js = None\n"
        "        self.create_subscription(object, 'js', self.on_js, 10)\n\n    def on_js(self, msg):\n"
        "        self.js = msg\n\n    def step(self, obs):\n        if self.js is None:\n            return None\n"
        "        q = np.array(self.js.position)  # error\n        return obs + torch.from_numpy(q)\n",
        # two parts of one stored message: two inputs (the components of each part are one)
        "import numpy as np\nimport torch\nclass Rover:\n    def __init__(self):\n        self.odom = None\n"
        "        self.create_subscription(object, 'odom', self.on_odom, 10)\n\n    def on_odom(self, msg):\n"
        "        self.odom = msg\n\n    def step(self, goal):\n"
        "        here = np.array([self.odom.pose.x, self.odom.pose.y])  # error\n"
        "        vel = np.array([self.odom.twist.x, self.odom.twist.y])  # error\n"
        "        return torch.from_numpy(goal - here + vel)\n",
        # a subscription callback method fills the items of a global list the step (a function) reads
        "import torch\nWIND = [0.0, 0.0]\nclass Anemometer:\n    def __init__(self):\n"
        "        self.create_subscription(object, 'wind', self.on_wind, 10)\n\n    def on_wind(self, msg):\n"
        "        WIND[0] = msg.x\n        WIND[1] = msg.y\n\ndef step(obs):\n"
        "    return torch.cat([obs, torch.tensor(WIND)])  # error\n",
        "import signal\nimport torch\nSPEED = 0.0\n\ndef faster(sig, frame):\n    global SPEED\n    SPEED += 0.1\n\n"
        "signal.signal(signal.SIGUSR1, faster)\n\ndef step(obs):\n"
        "    return torch.cat([obs, torch.tensor([SPEED])])  # error\n",
        "import numpy as np\nfrom pynput import keyboard\nclass Teleop:\n    def __init__(self):\n"
        "        self.cmd = np.zeros(3)\n\n    def start(self):\n        def on_press(key):\n"
        "            self.cmd[0] += 0.1\n        keyboard.Listener(on_press=on_press).start()\n\n"
        "    def step(self, obs):\n        return np.concatenate([obs, self.cmd])  # error\n",
        # the holder's thread hands each reading to the object whose method is the step
        "import threading\nimport torch\nclass Arm:\n    def __init__(self):\n        self.load = torch.zeros(1)\n\n"
        "    def set_load(self, value):\n        self.load = value\n\n    def step(self, q):\n"
        "        return q * self.load  # error\n\nclass Scale:\n    def __init__(self, arm: Arm, dev):\n"
        "        self.arm = arm\n        self.dev = dev\n"
        "        threading.Thread(target=self.poll).start()\n\n    def poll(self):\n"
        "        self.arm.set_load(self.dev.read())\n",
    ),
)
