import ast

from leapp_codemod.knowledge.io import WRAPPER_READ_TEXT, WRAPPER_SEND_TEXT
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

CLOCK_FIX = "pass the time in as an input of the pipeline (read the clock in the host loop and hand it over)"


def check(node: ast.Call, ctx):
    if ctx.runs_once():
        return  # a cached function (`@functools.lru_cache()`): its reads happen once, their values are constants
    clock = ctx.clock_kind(node)
    if clock is not None and (ctx.host_timing(node) or not ctx.reaches_output(node)):
        return  # `t0 = time.time()` ... `log.info(time.time() - t0)`: timing the host, no value the export keeps
    if clock is not None:
        yield Hit(node, f"`{show(node)}` reads the clock inside the pipeline ({clock}); the exported model keeps "
                        f"the time read while tracing", CLOCK_FIX)
        return
    kind = ctx.io_kind(node)
    wrapper = ctx.wrapper_read(node) if kind is None else None
    if wrapper is not None and not ctx.in_error_handler(node):
        yield Hit(node, f"`{show(node)}` {WRAPPER_READ_TEXT} `{wrapper}` inside the pipeline; "
                        f"the exported model keeps the value read while tracing",
                  "read it in the host runtime before the pipeline call and pass the value in as an input")
        return
    sender = ctx.wrapper_send(node) if kind is None else None
    if sender is not None and not ctx.in_error_handler(node) and not ctx.in_bail_out(node):
        yield Hit(node, f"`{show(node)}` {WRAPPER_SEND_TEXT} `{sender}` inside the pipeline; "
                        f"the exported model drops the send",
                  "return the value from the pipeline and send it from the host runtime after the call")
        return
    if kind is None or ctx.in_error_handler(node) or ctx.in_bail_out(node):
        return  # a warning in an `except` block: the traced call raised nothing, the export is not this path
    if (kind == "logging" or ctx.builtin(node) == "print") and (
            _fixed_text(node) or not _reports_data(node, ctx)):
        return  # `log.debug("loop running")`, `print(f"{time.time() - t0:.3f} s")`: fixed text or host values (a
        # clock, a counter, a setting); the export loses nothing of the pipeline's values
    yield Hit(node, f"`{show(node)}` performs I/O inside the pipeline ({kind}); the exported model drops it",
              "keep I/O in the host runtime: read inputs before the pipeline call and pass them in, log after it")


def _reported_values(node: ast.Call) -> list[ast.expr]:
    """The values a print or log call reports: its arguments, with the fields of f-strings taken out."""
    out, todo = [], [*node.args, *(k.value for k in node.keywords)]
    while todo:
        value = todo.pop()
        if isinstance(value, ast.JoinedStr):
            todo.extend(part.value for part in value.values if isinstance(part, ast.FormattedValue))
        else:
            out.append(value)
    return out


def _reports_data(node: ast.Call, ctx) -> bool:
    """Does the print or log report pipeline data: a name or field holding it anywhere in what it reports
    (`out.max().item()` reports `out`), or a local the function derives from it, through Python numbers too
    (`peak = out.max().item()`, `notes.append(f"{peak}")`)? A tick count the step carries is no such data."""
    derived = _derived_locals(ctx)
    return any(_data_part(part, ctx, derived) for value in _reported_values(node) for part in ast.walk(value))


def _data_part(part: ast.AST, ctx, derived: set[str]) -> bool:
    if isinstance(part, ast.Name) and part.id in derived:
        return True
    return isinstance(part, (ast.Name, ast.Attribute)) and ctx.is_data(part) and not _counter(part, ctx)


def _derived_locals(ctx) -> set[str]:
    """Locals of the function bound or filled (`notes.append(v)`) from pipeline data or from such locals, in any
    order of the function's statements (to a fixed point)."""
    flows: list[tuple[list[str], ast.AST]] = []
    for stmt in ast.walk(ctx.fn.node):
        if isinstance(stmt, ast.For):
            flows.append((_bound(stmt.target), stmt.iter))
        elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            flows.append(([name for t in targets for name in _bound(t)], stmt.value))
        elif isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) \
                and isinstance(stmt.func.value, ast.Name) and stmt.func.attr in ("append", "extend", "insert", "add"):
            flows.append(([stmt.func.value.id], ast.Tuple(elts=[*stmt.args], ctx=ast.Load())))
    derived: set[str] = set()
    grew = True
    while grew:
        grew = False
        for names, source in flows:
            if set(names) <= derived or not any(_data_part(part, ctx, derived) for part in ast.walk(source)):
                continue
            derived.update(names)
            grew = True
    return derived


def _bound(target: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _counter(value: ast.expr, ctx) -> bool:
    """`self.steps`: a Python number the step carries (a tick count); reporting it shows the host's progress."""
    return (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == ctx.self_name
            and ctx.holds_counter(value.attr))


def _fixed_text(node: ast.Call) -> bool:
    """Are the report's arguments fixed text and settings written in the call (no name, field, call or item)?"""
    return not any(isinstance(part, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
                   for arg in (*node.args, *(k.value for k in node.keywords)) for part in ast.walk(arg))


RULE = Rule(
    code="LCM901", name="io-call", category="io-in-pipeline", severity="warning",
    summary="printing, logging, file or network I/O inside the exported step",
    what="Flags `print`, `open`, logging calls (module loggers and ROS 2 `get_logger()` included), `pathlib` reads "
         "and writes, `np.save`/`torch.load`, network and subprocess calls, robot middleware (LCM `publish`, DDS "
         "`Write`, ROS 2 publishers, also held in a container and reached by index, key or loop (`self.pubs[name]"
         ".publish(m)`, `for pub, v in zip(self.pubs, act)`, a module-level tuple of ROS 1 publishers), sockets, "
         "serial ports, `.send()`/`.write()` or a method named as a send (`Move`, `publish_pose`, "
         "`set_joint_targets`) of a client object of a library neither scanned nor installed, also one a module "
         "global holds that a function binds under `global`) and clock reads (`time.time()`, "
         "`node.get_clock().now()`, `.now()` of a clock kept on self) inside the pipeline. Output in an `except` block (a warning that a "
         "fallback ran) is not flagged: a traced call that raised is no export. Nor is I/O in a "
         "cached function (`@functools.lru_cache()`, `@cached_property`) called without pipeline data: it runs once. "
         "Nor is a clock read that only times the host (its value reaches only a log or print, a rate gate that "
         "orders it against settings, clock stamps and step counters, a wait loop whose "
         "body only sleeps, or a timing field of a message the step publishes, nested too: `msg.header.stamp`), "
         "or whose value nothing uses (a "
         "local never read, an attribute no code of the project reads, or one every read of which, in any later "
         "call, reaches only logs, prints or other such attributes: a period logged by another timer): nothing "
         "the export computes depends on it. "
         "Nor is I/O inside a project I/O wrapper, the pipeline's boundary: a method of another object whose job is "
         "I/O, decided by what it does (its calls are I/O, value calls, message construction and its object's "
         "other wrapper methods; it writes nothing the step reads back). A send wrapper the step hands its result "
         "to (a robot interface's `set_action`, a publisher, a sender's queue) returns nothing or a status and only "
         "packs what it is handed (converts, indexes, formats it into a message; one that scales or clips it first "
         "is pipeline code): its call in the step is the one finding, as the export drops the send. A read wrapper takes nothing of the pipeline and returns what it read (the "
         "latest message a subscription callback stored, a device or socket read): its call in the step is the "
         "one finding, as the value read while tracing is frozen. Neither wrapper's body is pipeline code. Nor is "
         "a report in a bail-out guard (`if self.policy is None: log.warn(...); return`, `if len(action) != 12: "
         "log.error(...); return None`): one side only reports and leaves without a result (or raises), under a "
         "test on settings or fixed sizes. "
         "`rospy.Time(...)`/`rospy.Duration(...)` build values and are no I/O; a rate's `sleep()` only paces the host. "
         "Nor is a print or a log of fixed text "
         "(`log.debug(\"control loop running\", throttle_duration_sec=2.0)`) or of host values only (a clock, a "
         "step counter, a setting, a fixed size: `print(f\"step {i}: {time.time() - t0:.3f} s\")`): the export "
         "drops text that says nothing of the pipeline's values. A print or log of pipeline data is flagged.",
    why="The exported graph contains only tensor operations. A read that feeds the computation (a file, a "
        "message, the clock) is frozen to the value read while tracing; a write (telemetry, a published command, a "
        "debug print) silently disappears from the deployed model. The run report marks such a pipeline `partial`.",
    fix="Move the I/O to the host runtime: read the command before calling the pipeline and pass it as an input; "
        "log the returned outputs after the call.",
    example="def act(self, proprio):\n    cmd = json.loads(Path(self.path).read_text())\n    ...",
    fixed_example="cmd = reader.latest()          # host runtime\naction = exported_policy(proprio, cmd)",
    node_types=(ast.Call,), check=check,
    valid=(
        "import logging\nlog = logging.getLogger(__name__)\ndef step(obs):\n    return obs * 2\n\n"
        "def build():\n    log.info('ready')\n",
        # fixed text: the export drops nothing of the pipeline's values
        "class Node:\n    def step(self, obs):\n        self.get_logger().debug('control loop running', "
        "throttle_duration_sec=2.0)\n        print('tick')\n        return obs * 2\n",
        # a rate's sleep paces the host loop: the export loses no value without it
        "import rospy\nclass Loop:\n    def __init__(self):\n        self.rate = rospy.Rate(20)\n"
        "    def step(self, obs):\n        out = obs * 2\n        self.rate.sleep()\n        return out\n",
        "import time\ndef step(obs, stamp):\n    return obs * stamp\n\ndef loop(policy, obs):\n"
        "    return policy(obs, time.time())\n",
        "from unitree_sdk2py.utils.crc import CRC\ndef step(obs, cmd):\n    cmd.crc = CRC().Crc(cmd)\n    return obs\n",
        ("import warnings\nimport numpy as np\ndef step(parts):\n    try:\n        return np.stack(parts)\n"
         "    except ValueError:\n        warnings.warn('ragged parts')\n        return np.concatenate(parts)\n"),
        # a cached property reads its configuration once: a constant of every later call
        "import functools\nimport json\nclass Arm:\n    @property\n    @functools.lru_cache()\n"
        "    def offset(self):\n        with open('offset.json') as f:\n            return json.load(f)['z']\n\n"
        "    def step(self, obs):\n        return obs + self.offset\n",
        # the clock read feeds only an attribute another method logs: state kept for people, not for the step
        "import logging\nimport time\nlog = logging.getLogger(__name__)\nclass Pump:\n    def __init__(self, net):\n"
        "        self.net = net\n        self.last = None\n        self.gap = 0.0\n\n    def step(self, obs):\n"
        "        now = time.monotonic()\n        if self.last is not None:\n            self.gap = now - self.last\n"
        "        self.last = now\n        return self.net(obs)\n\n    def report(self):\n"
        "        log.info('gap %.3f s', self.gap)\n",
        # host values only: a wall-clock duration, a step counter, a setting
        "import time\nclass Loop:\n    def __init__(self, rate):\n        self.rate = rate\n        self.i = 0\n\n"
        "    def step(self, obs):\n        t0 = time.time()\n        out = obs * 2\n        self.i += 1\n"
        "        print(f'step {self.i} at {self.rate} Hz took {time.time() - t0:.3f} s')\n        return out\n",
    ),
    invalid=(
        "def step(obs):\n    print(obs)  # error\n    return obs\n",
        # the clock read only stamps a nested field of the message the step publishes: reported at the send
        "class Node:\n    def __init__(self):\n        self.pub = self.create_publisher(object, 'cmd', 10)\n"
        "    def step(self, obs, msg):\n        msg.header.stamp = self.get_clock().now().to_msg()\n"
        "        msg.data = obs * 2\n        self.pub.publish(msg)  # error\n        return obs * 2\n",
        # pipeline data in an f-string field
        "def step(obs):\n    out = obs * 2\n    print(f'out={out[0]:.3f}')  # error\n    return out\n",
        # a note built from pipeline data through a Python number, logged later in the step
        "import logging\nlog = logging.getLogger(__name__)\ndef step(obs):\n    notes = []\n    out = obs * 2\n"
        "    peak = out.max().item()\n    notes.append(f'peak {peak:.2f}')\n"
        "    log.info('; '.join(notes))  # error\n    return out\n",
        # a publisher per joint, kept in a dict and reached by key
        "class Legs:\n    def __init__(self, names):\n"
        "        self.pubs = {n: self.create_publisher(object, n, 10) for n in names}\n\n"
        "    def step(self, act):\n        self.pubs['hip'].publish(act * 2.0)  # error\n        return act\n",
        "import logging\nlog = logging.getLogger(__name__)\ndef step(obs):\n    log.info('obs %s', obs)  # error\n    return obs\n",
        "import time\nimport torch\ndef step(obs):\n    t = time.perf_counter()  # error\n    return obs * torch.sin(torch.tensor(t))\n",
        "import lcm\nclass Bridge:\n    def __init__(self):\n        self.lc = lcm.LCM()\n"
        "    def step(self, obs):\n        self.lc.publish('cmd', obs.tobytes())  # error\n        return obs\n",
        "class Node:\n    def __init__(self):\n        self.pub = self.create_publisher(object, 'cmd', 10)\n"
        "    def step(self, obs):\n        self.get_logger().info(f'step {obs.sum()}')  # error\n"
        "        self.pub.publish(obs)  # error\n        return obs\n",
        "import torch\nclass Node:\n    def __init__(self):\n        self.clock = self.get_clock()\n"
        "    def step(self, obs):\n        stamp = self.clock.now()  # error\n"
        "        return obs * torch.tensor(stamp.nanoseconds * 1e-9)\n",
        # a send through a client of a library neither scanned nor installed
        "from robot_link import Link\nclass Arm:\n    def __init__(self):\n        self.link = Link('10.0.0.2')\n"
        "    def step(self, obs):\n        self.link.send(obs * 2)  # error\n        return obs\n",
        # a send wrapper of another object (returns a status): its call in the step is the one finding
        "import serial\nclass Valve:\n    def __init__(self):\n        self.port = serial.Serial('/dev/ttyS0')\n\n"
        "    def open_to(self, level) -> bool:\n        if len(level) != 1:\n            return False\n"
        "        self.port.write(bytes([int(level[0])]))\n        return True\n\nclass Doser:\n"
        "    def __init__(self):\n        self.valve = Valve()\n\n    def step(self, flow):\n"
        "        level = flow * 2\n        self.valve.open_to(level)  # error\n        return level\n",
        # a read through a project I/O wrapper: the reading is frozen at its traced value
        "import socket\nimport torch\nclass Scale:\n    def __init__(self):\n        self.sock = socket.socket()\n"
        "    def weight(self):\n        return float(self.sock.recv(16))\n\nclass Filler:\n"
        "    def __init__(self):\n        self.scale = Scale()\n\n    def step(self, obs):\n"
        "        w = self.scale.weight()  # error\n        return obs * torch.tensor(w)\n",
    ),
)
