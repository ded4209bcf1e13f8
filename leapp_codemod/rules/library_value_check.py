import ast

from leapp_codemod.knowledge.library_internals import (
    DISTRIBUTIONS_MODULE, SAMPLE_CHECKING_METHODS, SIZED_BY_VALUES, VALIDATE_KEYWORD, VALIDATE_SWITCH,
    VALIDATING_DISTRIBUTIONS,
)
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def _validating(name: str | None) -> bool:
    """A `torch.distributions` class that checks its arguments (under any module path that exports it)."""
    return bool(name) and name.startswith(DISTRIBUTIONS_MODULE + ".") \
        and name.rsplit(".", 1)[-1] in VALIDATING_DISTRIBUTIONS


def _turned_off(call: ast.Call) -> bool:
    """`Normal(mu, std, validate_args=False)`."""
    return any(k.arg == VALIDATE_KEYWORD and isinstance(k.value, ast.Constant) and k.value.value is False
               for k in call.keywords)


def _switched_off(project) -> bool:
    """`Distribution.set_default_validate_args(False)` anywhere in the scanned code: checks off for every
    distribution (read once per project, and only when a distribution is built on pipeline data)."""
    key = ("validate-args-off", project.own_module_count())
    if key not in project.memo:
        project.memo[key] = any(
            isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == VALIDATE_SWITCH
            and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value is False
            for name, module in list(project.modules.items()) if not project.is_library(name)
            for node in ast.walk(module.tree))
    return project.memo[key]


def _distribution_of(node: ast.Call, ctx) -> str | None:
    """The validating distribution class a constructor call builds: the library class itself, or a project
    subclass of one (`class FixedNormal(Normal)`; its constructor hands the arguments on)."""
    name = ctx.call_name(node)
    if _validating(name):
        return name
    qualified = ctx.project.qualify(node.func, ctx.module)
    cls = ctx.project.class_of(qualified) if qualified else None
    if cls is None:
        return None
    chain = ctx.project.mro(cls)
    if any(_hands_on_unchecked(klass) for klass in chain):
        return None
    for klass in chain:
        for base in ctx.project.bases(klass):
            if isinstance(base, str) and _validating(base):
                return base
    return None


def _hands_on_unchecked(klass) -> bool:
    """The subclass's constructor calls its base's with `validate_args=False` (`super().__init__(loc, scale,
    validate_args=False)`, `Normal.__init__(self, ...)`): its checks are off whatever the caller passes."""
    init = klass.methods.get("__init__")
    return init is not None and any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"
        and _turned_off(node) for node in init.nodes)


def _checked_sample(node: ast.Call, ctx) -> str | None:
    """`prior.log_prob(z)` on a distribution built from values that are not pipeline data (its construction is
    not reported): the method checks the pipeline value it is handed."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in SAMPLE_CHECKING_METHODS or ctx.is_data(func.value):
        return None
    if not any(ctx.is_data(a) for a in (*node.args, *(k.value for k in node.keywords))):
        return None
    built = [b for b in ctx.library_callables(func.value) if _validating(b.name)]
    if built:
        return None if any(_turned_off(b.call) for b in built) else built[0].name
    named = [t for t in ctx.types_of(func.value) if _validating(t)]
    return named[0] if named else None


def _sized_by_values(node: ast.Call, ctx) -> bool:
    """`F.one_hot(idx)` with no class count: torch sizes the result by the largest index."""
    keyword, position = SIZED_BY_VALUES.get(ctx.call_name(node) or "", (None, 0))
    if keyword is None or not node.args or not ctx.is_data(node.args[0]):
        return False
    given = next((k.value for k in node.keywords if k.arg == keyword), None)
    if given is None and len(node.args) > position:
        given = node.args[position]
    return given is None or (isinstance(given, ast.UnaryOp) and isinstance(given.op, ast.USub))


def check(node: ast.Call, ctx):
    if ctx.only_logged(node):
        return
    if _sized_by_values(node, ctx):
        yield Hit(node, f"`{show(node)}` has no class count: torch sizes the one-hot result by the largest index "
                        f"in the pipeline data; LEAPP records the first sample's width and a sample with another "
                        f"largest index fails ('Reentering ... with new i/o')",
                  "pass the number of classes (`num_classes=N`), a setting of the pipeline")
        return
    distribution = _distribution_of(node, ctx)
    if distribution is not None and ctx.args_data(node) and not _turned_off(node) and not _switched_off(ctx.project):
        short = distribution.rsplit(".", 1)[-1]
        yield Hit(node, f"`{show(node)}` builds a `{short}` from pipeline data with argument validation on (the "
                        f"default): torch checks the parameters with `if not valid.all(): raise`, a branch on "
                        f"traced values; LEAPP logs a tensor in a boolean context and the export never checks them",
                  FIX)
        return
    sampled = _checked_sample(node, ctx)
    if sampled is not None and not _switched_off(ctx.project):
        yield Hit(node, f"`{show(node)}` checks the pipeline value against the support of a "
                        f"`{sampled.rsplit('.', 1)[-1]}` with a Python branch (argument validation is on by default); "
                        f"LEAPP logs a tensor in a boolean context and the export drops the check", FIX)


FIX = ("pass `validate_args=False` where the distribution is built (or call `torch.distributions.Distribution."
       "set_default_validate_args(False)` before tracing); clamp the parameters with torch ops if they need it")


RULE = Rule(
    code="LCM112", name="library-value-check", category="tensor-branch", severity="error",
    summary="A library call whose own code branches on the values of pipeline data (`torch.distributions` "
            "argument checks, `one_hot` sized by its input)",
    what="Flags library calls known to decide something in Python or C++ from the values they are handed: a "
         "`torch.distributions` distribution built from pipeline data with argument validation on (the default), "
         "directly or through a project subclass (`class FixedNormal(Normal)`); `log_prob`/`cdf`/`icdf` of such a "
         "distribution built from settings and handed pipeline data (`self.prior.log_prob(z)`); "
         "`torch.nn.functional.one_hot` without `num_classes`. Known from the library, installed or not. Not "
         "flagged: `validate_args=False` at the constructor, `Distribution.set_default_validate_args(False)` "
         "anywhere in the scanned code, distributions without checks of their own (`Independent`, "
         "`TransformedDistribution`), `one_hot(..., num_classes=N)`. Sampling (`.sample()`) is LCM801's.",
    why="Checked with the installed leapp 0.7.2 and torch 2.13 (tests/test_leapp_library_internals.py): building "
        "`Normal`, `MultivariateNormal`, `Categorical`, `Beta` ... from traced tensors, or `log_prob` of a traced "
        "value, runs torch's `if not valid.all()`; LEAPP logs 'Attempted to use TracedTensor ... in a boolean "
        "context' (the branch of the traced samples is recorded, the check is not exported); with "
        "`validate_args=False` nothing is logged. `one_hot` without `num_classes` exports the first sample's width "
        "and fails with 'Reentering ... with new i/o' on a sample whose largest index differs.",
    fix="Build the distribution with `validate_args=False` (or turn validation off globally before tracing); give "
        "`one_hot` its `num_classes`.",
    example="dist = torch.distributions.Normal(mu, log_std.exp())\naction = dist.mean",
    fixed_example="dist = torch.distributions.Normal(mu, log_std.exp(), validate_args=False)\naction = dist.mean",
    node_types=(ast.Call,), check=check,
    valid=(
        "import torch\nfrom torch.distributions import Normal\ndef step(mu):\n"
        "    return Normal(mu, torch.ones(2), validate_args=False).mean\n",
        "import torch\nimport torch.distributions as D\nD.Distribution.set_default_validate_args(False)\n"
        "def step(logits):\n    return D.Categorical(logits=logits).probs\n",
        "import torch.nn.functional as F\ndef step(obs):\n    return F.one_hot(obs.argmax(-1), num_classes=4).float()\n",
        "import torch\nfrom torch.distributions import Normal\ndef step(obs):\n"
        "    prior = Normal(torch.zeros(2), torch.ones(2), validate_args=False)\n    return prior.log_prob(obs)\n",
    ),
    invalid=(
        "import torch\nfrom torch import distributions as D\ndef step(mean, cov):\n"
        "    return D.MultivariateNormal(mean, cov).mean  # error\n",
        "import torch\nfrom torch.distributions.normal import Normal\nclass FixedNormal(Normal):\n"
        "    def mode(self):\n        return self.mean\n"
        "class Head:\n    def step(self, mu, log_std):\n        return FixedNormal(mu, log_std.exp()).mode()  # error\n",
        "import torch\nfrom torch.distributions import Normal\nclass Scorer:\n    def __init__(self):\n"
        "        self.prior = Normal(torch.zeros(3), torch.ones(3))\n"
        "    def step(self, z):\n        return self.prior.log_prob(z).sum(-1)  # error\n",
        "import torch\ndef step(obs):\n    return torch.nn.functional.one_hot(obs.argmax(-1)).float()  # error\n",
    ),
)
