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
            "rclpy.", "rospy.", "wandb.", "mlflow.", "tensorboardX.", "torch.utils.tensorboard.")
LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "fatal"})
PATH_IO_METHODS = frozenset({"read_text", "read_bytes", "write_text", "write_bytes", "open", "unlink", "touch",
                             "mkdir", "exists", "iterdir", "glob"})
FILE_METHODS = frozenset({"read", "readline", "readlines", "write", "writelines", "flush"})


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
    if func.attr in PATH_IO_METHODS and any(t in ("pathlib.Path", "pathlib.PurePath", "Path") for t in types):
        return f"file access `.{func.attr}()`"
    if func.attr in FILE_METHODS and any(t in ("open", "io.open", "builtins.open") for t in types):
        return f"file access `.{func.attr}()`"
    if any(t.startswith(IO_ROOTS) for t in types):
        return f"`{sorted(types)[0]}.{func.attr}`"
    return None


def check(node: ast.Call, ctx):
    kind = io_kind(node, ctx)
    if kind is None:
        return
    yield Hit(node, f"`{show(node)}` performs I/O inside the pipeline ({kind}); the exported model drops it",
              "keep I/O in the host runtime: read inputs before the pipeline call and pass them in, log after it")


RULE = Rule(
    code="LCM901", name="io-call", category="io-in-pipeline", severity="warning",
    summary="printing, logging, file or network I/O inside the exported step",
    what="Flags `print`, `open`, logging calls (module loggers included), `pathlib` reads and writes, "
         "`np.save`/`torch.load`, network and subprocess calls inside the pipeline.",
    why="The exported graph contains only tensor operations. A read that feeds the computation is frozen to "
        "the value read while tracing; a write (telemetry, debug print) silently disappears from the deployed "
        "model. The run report marks such a pipeline `partial`.",
    fix="Move the I/O to the host runtime: read the command before calling the pipeline and pass it as an input; "
        "log the returned outputs after the call.",
    example="def act(self, proprio):\n    cmd = json.loads(Path(self.path).read_text())\n    ...",
    fixed_example="cmd = reader.latest()          # host runtime\naction = exported_policy(proprio, cmd)",
    node_types=(ast.Call,), check=check,
    valid=(
        "import logging\nlog = logging.getLogger(__name__)\ndef step(obs):\n    return obs * 2\n\n"
        "def build():\n    log.info('ready')\n",
    ),
    invalid=(
        "def step(obs):\n    print(obs)  # error\n    return obs\n",
        "import logging\nlog = logging.getLogger(__name__)\ndef step(obs):\n    log.info('obs %s', obs)  # error\n    return obs\n",
    ),
)
