import ast

from leapp_codemod.knowledge.leapp import SCRIPT_DECORATORS
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def _scripted(fn, ctx) -> bool:
    """Is the project function compiled by TorchScript where it is defined (`@torch.jit.script`)?"""
    module = ctx.project.modules.get(fn.module)
    if module is None:
        return False
    for decorator in fn.node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = ctx.project.qualify(target, module)
        if name and ctx.project.external_name(name) in SCRIPT_DECORATORS:
            return True
    return False


def _decorated_names(project) -> frozenset[str]:
    """Names of the loaded functions with a decorator spelled like a script decorator: a cheap filter before a
    call is resolved (kept per project, renewed when more modules are loaded)."""
    key = ("script-decorated", len(project.modules))
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = frozenset(
            fn.node.name for fn in project.functions()
            if any(ast.unparse(d.func if isinstance(d, ast.Call) else d).endswith("script")
                   for d in fn.node.decorator_list))
    return found


def check(node: ast.Call, ctx):
    if not _decorated_names(ctx.project) or _scripted(ctx.fn, ctx):
        return   # inside a scripted body the call is compiled with it: the call into the outer one is the finding
    if not any(ctx.is_data(a) for a in (*node.args, *(k.value for k in node.keywords))) or ctx.only_logged(node):
        return
    callees = ctx.resolve_call(node)
    if callees and all(_scripted(fn, ctx) for fn in callees):
        yield Hit(node, f"`{show(node)}` calls the TorchScript function `{callees[0].qualname}` on pipeline data; "
                        f"LEAPP 0.7.2 does not trace into a ScriptFunction: its answer is a plain tensor outside "
                        f"the trace, a constant of the export (LEAPP's output check rejects it when it is returned)",
                  f"drop `@torch.jit.script` from `{callees[0].qualname}` for the export (LEAPP traces the Python "
                  f"body; a branch on values inside it then needs `torch.where`), or FunctionPatch it")


RULE = Rule(
    code="LCM111", name="script-function-call", category="scalar-extraction", severity="error",
    summary="A `@torch.jit.script` function called on pipeline data",
    what="Flags a call on pipeline data of a project function decorated with `@torch.jit.script` (every function "
         "the call may run is one), also under another name (`self.task_policy(obs)` after a setter stored the "
         "scripted `policy`). Not flagged: calls of scripted modules (`torch.jit.script(Net())`, "
         "`torch.jit.load(path)`), which LEAPP exports as modules when they hold no branch on values, scripted "
         "functions called only on constants or only for a log line, and calls inside a scripted function (the call "
         "into the outer one is the finding).",
    why="Checked with the installed leapp 0.7.2 (knowledge/leapp.py): a ScriptFunction runs its compiled graph "
        "on the plain tensor behind LEAPP's traced one, so its answer is a plain tensor: `output_tensors` rejects "
        "it ('received non-traced tensors'), even for a body with no branch (`torch.tanh(x) * 2.0`), and mixed "
        "into traced values it is a constant of the export. A scripted module's `forward` is exported as a module "
        "when it has no branch on values; with one, tracing raises NotImplementedError.",
    fix="Remove `@torch.jit.script` from the function for the export (LEAPP traces its Python body; replace a "
        "branch on values inside it with `torch.where`), or give LEAPP a FunctionPatch with a plain replacement.",
    example="@torch.jit.script\ndef wrap_angle(a):\n    return torch.remainder(a + 3.1416, 6.2832) - 3.1416\n"
            "...\nheading = wrap_angle(obs[:, 2])",
    fixed_example="def wrap_angle(a):   # plain Python: LEAPP traces it\n"
                  "    return torch.remainder(a + 3.1416, 6.2832) - 3.1416",
    node_types=(ast.Call,), check=check,
    valid=(
        # a scripted helper called inside a scripted function is compiled with it
        "import torch\n@torch.jit.script\ndef unit(v):\n    return v / v.norm()\n@torch.jit.script\n"
        "def step(v):\n    return unit(v) * 2.0\n",
        "import torch\ndef wrap(a):\n    return torch.remainder(a, 6.28)\ndef step(obs):\n    return wrap(obs)\n",
        "import torch\n@torch.jit.script\ndef gain(n: int):\n    return torch.ones(n) * 2.0\n"
        "def step(obs):\n    return obs * gain(3)\n",
    ),
    invalid=(
        "import torch\n@torch.jit.script\ndef wrap(a):\n    return torch.remainder(a, 6.28)\n"
        "def step(obs):\n    return wrap(obs) * 2.0  # error\n",
        "from torch import jit\nimport torch\n@jit.script\ndef clip_norm(v, m: float):\n"
        "    return v * torch.clamp(m / (v.norm() + 1e-6), max=1.0)\n"
        "class Agent:\n    def step(self, obs):\n        return clip_norm(torch.tanh(obs), 1.0)  # error\n",
        # stored by a setter and called through a field of another name
        ("import torch\n@torch.jit.script\ndef policy(x):\n    return torch.tanh(x)\nclass Node:\n"
         "    def register(self, fn):\n        self.task_policy = fn\n    def step(self, obs):\n"
         "        return self.task_policy(obs) * 2.0  # error\n"
         "def main(obs):\n    node = Node()\n    node.register(policy)\n    return node.step(obs)\n"),
    ),
)
