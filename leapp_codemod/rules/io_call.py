import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

IO_BUILTINS = frozenset({"print", "open", "input", "breakpoint"})
IO_FUNCTIONS = frozenset({
    "json.load", "json.dump", "pickle.load", "pickle.dump", "numpy.save", "numpy.savez", "numpy.savez_compressed",
    "numpy.load", "numpy.loadtxt", "numpy.savetxt", "numpy.genfromtxt", "numpy.fromfile", "torch.save", "torch.load",
    "cv2.imwrite", "cv2.imread", "cv2.imshow", "cv2.waitKey", "cv2.VideoCapture", "sys.stdout.write",
    "sys.stderr.write", "warnings.warn", "os.system", "os.read", "os.write", "os.remove", "yaml.safe_load",
    "yaml.load", "yaml.dump", "yaml.safe_dump", "PIL.Image.open", "imageio.imread", "imageio.imwrite",
    "pprint.pprint",
})
IO_ROOTS = ("requests.", "urllib.", "http.", "socket.", "subprocess.", "shutil.", "csv.", "sqlite3.", "zmq.",
            "rclpy.", "rospy.", "wandb.", "mlflow.", "tensorboardX.", "torch.utils.tensorboard.",
            # robot middleware and device links: LCM, DDS, Unitree SDK, serial ports, CAN, MQTT, cameras
            "lcm.", "cyclonedds.", "unitree_sdk2py.core.channel.", "serial.", "can.", "paho.", "pyrealsense2.", "ecal.")
# Clock reads: the value read while tracing becomes a constant of the exported model.
CLOCK_FUNCTIONS = frozenset({"time.time", "time.time_ns", "time.perf_counter", "time.perf_counter_ns",
                             "time.monotonic", "time.monotonic_ns", "time.process_time", "datetime.datetime.now",
                             "datetime.datetime.utcnow", "datetime.now", "datetime.utcnow"})
# Middleware handles built by a factory method of a node object (`self.create_publisher(...)`).
MIDDLEWARE_FACTORIES = frozenset({"create_publisher", "create_subscription", "create_client", "create_service",
                                  "advertise", "Publisher", "ChannelPublisher", "ChannelSubscriber"})
CLOCK_FIX = "pass the time in as an input of the pipeline (read the clock in the host loop and hand it over)"
LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "fatal"})
PATH_IO_METHODS = frozenset({"read_text", "read_bytes", "write_text", "write_bytes", "open", "unlink", "touch",
                             "mkdir", "exists", "iterdir", "glob"})
FILE_METHODS = frozenset({"read", "readline", "readlines", "write", "writelines", "flush"})


def clock_kind(node: ast.Call, ctx) -> str | None:
    """`time.time()`, `node.get_clock().now()`: an external input frozen at trace time."""
    name = ctx.call_name(node)
    if name in CLOCK_FUNCTIONS:
        return f"`{name}`"
    func = node.func
    if (isinstance(func, ast.Attribute) and func.attr == "now" and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Attribute) and func.value.func.attr == "get_clock"):
        return "the node clock"
    return None


def _factory_made(receiver: ast.expr, ctx) -> bool:
    """`self.pub` assigned from `self.create_publisher(...)` / `ChannelPublisher(...)` anywhere in its class."""
    if not (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and ctx.cls is not None):
        return False
    for klass in ctx.project.mro(ctx.cls):
        for _, value in klass.attr_values.get(receiver.attr, ()):
            if isinstance(value, ast.Call):
                func = value.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if name in MIDDLEWARE_FACTORIES:
                    return True
    return False


def io_kind(node: ast.Call, ctx) -> str | None:
    builtin = ctx.builtin(node)
    if builtin in IO_BUILTINS:
        return f"`{builtin}()`"
    name = ctx.call_name(node)
    if name:
        if name in IO_FUNCTIONS or name.startswith(IO_ROOTS):
            return f"`{name}`"
        if name.startswith("logging.") and name.rsplit(".", 1)[-1] in LOGGING_METHODS:
            return "logging"
    func = node.func
    if not isinstance(func, ast.Attribute):
        return None
    types = ctx.types_of(func.value)
    if func.attr in LOGGING_METHODS and any(t in ("logging.getLogger", "logging.Logger") for t in types):
        return "logging"
    if (func.attr in LOGGING_METHODS and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Attribute)
            and func.value.func.attr == "get_logger"):
        return "logging"  # ROS 2 `self.get_logger().info(...)`
    if _factory_made(func.value, ctx):
        return f"middleware `.{func.attr}()`"
    if func.attr in PATH_IO_METHODS and any(t in ("pathlib.Path", "pathlib.PurePath", "Path") for t in types):
        return f"file access `.{func.attr}()`"
    if func.attr in FILE_METHODS and any(t in ("open", "io.open", "builtins.open") for t in types):
        return f"file access `.{func.attr}()`"
    if any(t.startswith(IO_ROOTS) for t in types):
        return f"`{sorted(types)[0]}.{func.attr}`"
    return None


def only_io(statements: list[ast.stmt], ctx) -> bool:
    """Statements that do nothing but I/O (`print(...)`, `log.info(...)`, `pass`): a branch around
    them decides what the export drops anyway, so the I/O is the one finding."""
    return bool(statements) and all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                                    and io_kind(s.value, ctx) is not None) for s in statements)


def only_logged(node: ast.AST, ctx) -> bool:
    """Is `node` part of a statement that does nothing but I/O (`logger.log({'v': x.item()})`,
    `print(float(x))`)? What it computes leaves with the I/O the export drops anyway."""
    if ctx.io_statements is None:
        ctx.io_statements = {}
        for stmt in ast.walk(ctx.fn.node):
            if isinstance(stmt, ast.Expr) and only_io([stmt], ctx):
                span = ((stmt.lineno, stmt.col_offset), (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0))
                for line in range(stmt.lineno, span[1][0] + 1):
                    ctx.io_statements.setdefault(line, []).append(span)
    where = (node.lineno, node.col_offset)
    return any(start <= where < end for start, end in ctx.io_statements.get(node.lineno, ()))


def check(node: ast.Call, ctx):
    clock = clock_kind(node, ctx)
    if clock is not None:
        yield Hit(node, f"`{show(node)}` reads the clock inside the pipeline ({clock}); the exported model keeps "
                        f"the time read while tracing", CLOCK_FIX)
        return
    kind = io_kind(node, ctx)
    if kind is None:
        return
    yield Hit(node, f"`{show(node)}` performs I/O inside the pipeline ({kind}); the exported model drops it",
              "keep I/O in the host runtime: read inputs before the pipeline call and pass them in, log after it")


RULE = Rule(
    code="LCM901", name="io-call", category="io-in-pipeline", severity="warning",
    summary="printing, logging, file or network I/O inside the exported step",
    what="Flags `print`, `open`, logging calls (module loggers and ROS 2 `get_logger()` included), `pathlib` reads "
         "and writes, `np.save`/`torch.load`, network and subprocess calls, robot middleware (LCM `publish`, DDS "
         "`Write`, ROS 2 publishers, sockets, serial ports) and clock reads (`time.time()`, "
         "`node.get_clock().now()`) inside the pipeline.",
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
        "import time\ndef step(obs, stamp):\n    return obs * stamp\n\ndef loop(policy, obs):\n"
        "    return policy(obs, time.time())\n",
        "from unitree_sdk2py.utils.crc import CRC\ndef step(obs, cmd):\n    cmd.crc = CRC().Crc(cmd)\n    return obs\n",
    ),
    invalid=(
        "def step(obs):\n    print(obs)  # error\n    return obs\n",
        "import logging\nlog = logging.getLogger(__name__)\ndef step(obs):\n    log.info('obs %s', obs)  # error\n    return obs\n",
        "import time\nimport torch\ndef step(obs):\n    t = time.perf_counter()  # error\n    return obs * torch.sin(torch.tensor(t))\n",
        "import lcm\nclass Bridge:\n    def __init__(self):\n        self.lc = lcm.LCM()\n"
        "    def step(self, obs):\n        self.lc.publish('cmd', obs.tobytes())  # error\n        return obs\n",
        "class Node:\n    def __init__(self):\n        self.pub = self.create_publisher(object, 'cmd', 10)\n"
        "    def step(self, obs):\n        self.get_logger().info('step')  # error\n"
        "        self.pub.publish(obs)  # error\n        return obs\n",
    ),
)
