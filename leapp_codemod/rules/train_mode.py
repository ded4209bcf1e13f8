"""LCM706: a model whose layers depend on the training flag, called by the pipeline and never put in evaluation
mode (`analysis.model.train_mode`; the LEAPP fact: `knowledge.leapp.TRAIN_MODE_EXPORT`)."""
import ast
from pathlib import PurePath

from leapp_codemod.analysis.infer.context import eval_marks, train_sensitive
from leapp_codemod.knowledge.leapp import TRAIN_MODE_EXPORT
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def _receiver(call: ast.Call) -> ast.expr:
    """The object a call runs: `self.actor` of `self.actor(x)` and of `self.actor.act_inference(x)`."""
    func = call.func
    return func.value if isinstance(func, ast.Attribute) else func


def _class(ctx, type_name: str):
    """The project class a type names: `module:Class`, or the dotted name lint mode gives (`pkg.mod.Class`)."""
    found = ctx.class_for_type(type_name)
    if found is None and ":" not in type_name:
        found = ctx.project.lookup(type_name)
    return found if hasattr(found, "base_exprs") else None


def _inside_module(ctx) -> bool:
    """Is the call in a method of a torch module class (one that defines `forward` counts, whatever its bases
    resolve to)?"""
    cls = ctx.cls
    return cls is not None and (ctx.project.is_nn_module(cls)
                                or any("forward" in k.methods for k in ctx.project.mro(cls)))


def _chain(expr: ast.expr) -> list[str]:
    names = []
    while isinstance(expr, ast.Attribute):
        names.insert(0, expr.attr)
        expr = expr.value
    return [expr.id, *names] if isinstance(expr, ast.Name) else []


def check(node: ast.Call, ctx):
    marks = eval_marks(ctx.project)
    if marks.anything or _inside_module(ctx):
        return     # a module's own sub-modules follow its flag: the call of the outer module is reported
    for receiver in dict.fromkeys((node.func, _receiver(node))):
        chain = _chain(receiver)
        if not chain or chain == [ctx.self_name] or {n for n in chain if n != ctx.self_name} & marks.names \
                or not ctx.args_data(node):
            continue
        classes = [_class(ctx, t) for t in ctx.types_of(receiver)]
        if not classes or any(c is None or not ctx.project.is_nn_module(c) for c in classes):
            continue
        if any(k.id in marks.classes for c in classes for k in ctx.project.mro(c)):
            return
        key = ("train-mode", ".".join(chain))
        if ctx.fn.walks.get(key, node) is not node:
            return      # reported at the first call of this model in the function
        ctx.fn.walks[key] = node
        sensitive = train_sensitive(ctx.project, classes[0])
        if sensitive is None:
            return
        where = f"{PurePath(sensitive.path).name}:{sensitive.line}"
        yield Hit(node, f"`{show(receiver)}` ({classes[0].name}) is called in training mode: nothing in the project "
                        f"calls `.eval()` on it, and {sensitive.what} ({where}) depends on the flag; "
                        f"{TRAIN_MODE_EXPORT}",
                  f"call `{show(receiver)}.eval()` once after building or loading it (before the loop), or "
                  "`.train(False)`",
                  related=((sensitive.path, sensitive.line, 1, "depends on the training flag"),))
        return


RULE = Rule(
    code="LCM706", name="train-mode-model", category="inplace-state", severity="error",
    summary="a model with BatchNorm, Dropout or a `self.training` branch that is never put in evaluation mode",
    what="Flags the pipeline's first call (per function) of a project torch module (`self.actor(obs)`, "
         "`policy.act(obs)`) when a part of it depends on the training flag and no code of the application puts "
         "it in evaluation mode. A part depends on the flag when a method of the class or of a base tests "
         "`self.training` (a running-mean normaliser), or its constructor builds `nn.BatchNorm*` or `nn.Dropout*` "
         "with a non-zero rate, directly, inside `nn.Sequential`, or in a project module class it builds (3 "
         "levels). Evaluation mode is any `.eval()` or `.train(False)` call on a receiver ending in one of the "
         "names the model is reached through (`agent.actor.eval()` covers `self.actor`), `self.eval()` in the "
         "class, or `.eval()` chained where the model is bound; when some call's receiver has no name (a parameter, a loop "
         "over a list of modules) the rule says nothing. Not a TorchScript or ONNX model loaded from a file.",
    why="Checked with the installed LEAPP 0.7.2 (tests/test_leapp_train_mode.py): traced in training mode, a "
        "BatchNorm model normalises each traced call with its batch's statistics while the export uses the "
        "running statistics those calls moved; Dropout stays in the exported graph (two runs on one input "
        "differ); a normaliser that updates its statistics under `if self.training:` is exported with the values "
        "of one call. Validation fails in all three; the same models in evaluation mode export and match.",
    fix="Put the model in evaluation mode once after building or loading it (`policy.eval()`), before the step "
        "runs; a normaliser that must keep adapting is state the step should receive and return explicitly.",
    example="actor = Actor(cfg)\nactor.load_state_dict(torch.load(path))\nfor _ in range(n):\n"
            "    act = actor(obs)",
    fixed_example="actor = Actor(cfg)\nactor.load_state_dict(torch.load(path))\nactor.eval()\nfor _ in range(n):\n"
                  "    act = actor(obs)",
    node_types=(ast.Call,), check=check,
    valid=(
        # put in evaluation mode where it is built
        "import torch\nfrom torch import nn\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.body = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.2))\n\n"
        "    def forward(self, x):\n        return self.body(x)\n\nclass Runner:\n    def __init__(self):\n"
        "        self.net = Net().eval()\n\n    def step(self, obs):\n        return self.net(obs)\n",
        # nothing depends on the flag
        "import torch\nfrom torch import nn\nclass Mlp(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.l = nn.Linear(4, 2)\n\n    def forward(self, x):\n"
        "        return torch.tanh(self.l(x))\n\nNET = Mlp()\n\ndef step(obs):\n    return NET(obs)\n",
    ),
    invalid=(
        "import torch\nfrom torch import nn\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.l = nn.Linear(4, 4)\n        self.bn = nn.BatchNorm1d(4)\n\n"
        "    def forward(self, x):\n        return self.bn(self.l(x))\n\nclass Runner:\n    def __init__(self):\n"
        "        self.net = Net()\n\n    def step(self, obs):\n        return self.net(obs)  # error\n",
    ),
)
