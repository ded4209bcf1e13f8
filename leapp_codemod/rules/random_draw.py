import ast

from leapp_codemod.knowledge.draws import (
    DISTRIBUTION_DRAWS, DISTRIBUTION_MODULES, GENERATOR_DRAWS, GENERATOR_TYPES, NOISY_SCHEDULERS, NOT_DRAWS,
    RANDOM_INPLACE_METHODS, RANDOM_MODULES, RNG_NAMES, SCHEDULER_LIBRARIES, SCIPY_DRAWS, STDLIB_DRAWS, TORCH_RANDOM,
)
from leapp_codemod.knowledge.vocab import DISTRIBUTION_WORDS
from leapp_codemod.analysis.infer.context import iter_nodes, parent_map
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

def _is_generator_type(type_name: str) -> bool:
    return type_name in GENERATOR_TYPES


def _is_distribution(project, type_name: str) -> bool:
    """A `torch.distributions` class or `scipy.stats` distribution (frozen or not), or a project class deriving
    from one (`class Squashed(D.Normal)`)."""
    if type_name.startswith(DISTRIBUTION_MODULES):
        return True
    module_name, sep, qualname = type_name.partition(":")
    module = project.modules.get(module_name) if sep else None
    cls = module.classes.get(qualname) if module is not None else None
    if cls is None:
        return False
    return any(isinstance(base, str) and base.startswith(DISTRIBUTION_MODULES)
               for klass in project.mro(cls) for base in project.bases(klass))


def _named_distribution(receiver: ast.expr) -> bool:
    """`dist.sample()` where `dist` comes from a callable the scan cannot type (`dist = self.dist_fn(logits)`,
    a distribution class chosen by a config): the name says what it is."""
    name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    return any(part in DISTRIBUTION_WORDS for part in name.lower().split("_"))


def _inactive_dropout(node: ast.Call, ctx) -> bool:
    """`F.dropout(x, p, training=False)` (or `training=self.training`, False in eval) is the identity."""
    flag = next((k.value for k in node.keywords if k.arg == "training"), node.args[2] if len(node.args) > 2 else None)
    if isinstance(flag, ast.Constant):
        return flag.value is False
    return isinstance(flag, ast.Attribute) and flag.attr == "training"


def draw_kind(node: ast.Call, ctx) -> str | None:
    name = ctx.call_name(node)
    if name == "torch.nn.functional.dropout" and _inactive_dropout(node, ctx):
        return None
    if name in TORCH_RANDOM or name in STDLIB_DRAWS:
        return name
    if name and name.startswith(RANDOM_MODULES) and name not in NOT_DRAWS:
        return name
    if name and name.startswith("scipy.stats.") and name.rpartition(".")[2] in SCIPY_DRAWS:
        return name   # `scipy.stats.norm.rvs(0, 1)`
    func = node.func
    if not isinstance(func, ast.Attribute):
        return None
    receiver_types = ctx.types_of(func.value)
    if func.attr in DISTRIBUTION_DRAWS and any(_is_distribution(ctx.project, t) for t in receiver_types):
        return f"torch.distributions sampling `.{func.attr}()`"
    if func.attr in SCIPY_DRAWS and (any(_is_distribution(ctx.project, t) for t in receiver_types)
                                     or not any(":" in t for t in receiver_types)):
        return f"sampling `.{func.attr}()` from a scipy.stats distribution"   # `self.noise.rvs(size=3)`
    if func.attr in ("sample", "rsample") and _named_distribution(func.value) and ctx.is_data(func.value) \
            and not any(":" in t for t in receiver_types):
        return f"sampling `.{func.attr}()` from a distribution built at run time"
    if func.attr in GENERATOR_DRAWS:
        if any(_is_generator_type(t) for t in receiver_types):
            return f"random generator draw `.{func.attr}()`"
        receiver = func.value.attr if isinstance(func.value, ast.Attribute) else getattr(func.value, "id", "")
        if receiver and receiver.lower().endswith(RNG_NAMES):
            return f"random generator draw `.{func.attr}()`"
    if func.attr in RANDOM_INPLACE_METHODS:
        return f"in-place random fill `.{func.attr}()`"
    scheduler = next((t for t in sorted(receiver_types) if t.startswith(SCHEDULER_LIBRARIES)
                      and NOISY_SCHEDULERS & set(t.split("."))), None)
    if func.attr == "step" and scheduler is None and _named_scheduler(func.value):
        imported = _imported_schedulers(ctx.project)   # the scan cannot type it: the classes the project imports
        scheduler = sorted(imported)[0] if imported and imported <= NOISY_SCHEDULERS else None
    if func.attr == "step" and scheduler is not None:
        return f"the noise `{scheduler}.step` adds to the sample"   # DDPM's variance term, drawn every step
    return None


def _named_scheduler(receiver: ast.expr) -> bool:
    name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    return name.lower().endswith("scheduler")


def _imported_schedulers(project) -> frozenset[str]:
    """The diffusion scheduler classes the project's modules import (`from diffusers import DDPMScheduler`)."""
    key = ("imported schedulers", project.own_module_count())
    if key not in project.memo:
        project.memo[key] = frozenset(
            target.rpartition(".")[2] for name, module in project.modules.items() if not project.is_library(name)
            for target in module.imports.values()
            if target.startswith(SCHEDULER_LIBRARIES) and target.endswith("Scheduler"))
    return project.memo[key]


def _unused(node: ast.Call, ctx) -> bool:
    """`eps = torch.randn_like(x) * s` where no code of the function that runs reads `eps` (only a block the
    callers' constants rule out does): the draw never reaches an output."""
    parents = parent_map(ctx.fn)
    child, parent = node, parents.get(id(node))
    while isinstance(parent, ast.expr):
        child, parent = parent, parents.get(id(parent))
    if not (isinstance(parent, ast.Assign) and parent.value is child
            and all(isinstance(t, ast.Name) for t in parent.targets)):
        return False
    names = {t.id for t in parent.targets}
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) and names & set(n.names) for n in ctx.fn.nodes):
        return False
    live = iter_nodes(ctx.fn, ctx.facts.param_constants.get(ctx.fn.id))
    return not any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names for n in live)


def check(node: ast.Call, ctx):
    kind = draw_kind(node, ctx)
    if kind is None or _unused(node, ctx):
        return
    yield Hit(node, f"`{show(node)}` draws random numbers inside the pipeline ({kind})",
              "export the deterministic part (e.g. the distribution mean) and draw noise on the host after inference, "
              "or feed the noise in as an extra input")


RULE = Rule(
    code="LCM801", name="random-draw", category="random-in-pipeline", severity="error",
    summary="random number generation inside the exported step",
    what="Flags torch RNG calls (`torch.randn`, `randn_like`, in-place `normal_`), `torch.distributions` "
         "sampling (also `.sample()`/`.rsample()` on a value named as a distribution, `dist`, `action_distrib`, "
         "`pi`, `probs`, built by a callable the scan cannot type), `scipy.stats` draws (`.rvs()` of a frozen "
         "distribution kept on self, `stats.norm.rvs(...)`), NumPy `np.random.*` and Generator draws "
         "(`rng.normal(...)`, `np.random.default_rng().normal(...)`), `jax.random` draws, and the stdlib "
         "`random` module and `random.Random` instances inside the pipeline, and the `step` of an ancestral "
         "diffusion scheduler (`diffusers` DDPM, Euler/KDPM2 ancestral, SDE solvers: it adds fresh noise to the "
         "sample; when the scan cannot type the scheduler, the scheduler classes the project imports decide) "
         "(one vocabulary: "
         "`knowledge/draws.py`). A draw bound to a local that no code which runs reads (only a block the callers' "
         "constants rule out, e.g. `if gamma > 0:` with `gamma` 0 for the values callers pass) is not reported.",
    why="A draw without traced arguments (`torch.randn(shape)`, any NumPy draw) becomes a constant: the export "
        "repeats the noise sampled while tracing. Draws on traced tensors (`randn_like`, `Normal(...).sample()`) "
        "are exported as ONNX random ops, so the model is nondeterministic and no validation can match it.",
    fix="Export the deterministic policy (the mean action) and sample on the host, or pass the noise as an input "
        "of the pipeline. The run report marks such a pipeline `partial`.",
    example="action = torch.distributions.Normal(mean, std).sample()",
    fixed_example="action = mean  # exported; sample Normal(mean, std) in the host runtime",
    node_types=(ast.Call,), check=check,
    valid=(
        "import torch\ndef step(obs):\n    return torch.tanh(obs)\n\ndef build(seed):\n    torch.manual_seed(seed)\n",
        "def step(obs, replay):\n    batch = replay.sample(32)\n    return obs + batch\n",
    ),
    invalid=(
        "import torch\ndef step(obs):\n    return obs + 0.01 * torch.randn_like(obs)  # error\n",
        "import numpy as np\ndef step(obs):\n    return obs + np.random.normal(0.0, 0.1, size=3)  # error\n",
        "import torch\ndef step(obs, gen):\n    noise = torch.empty(3).normal_(generator=gen)  # error\n    return obs + noise\n",
        "import torch\nfrom torch import distributions as D\n\nclass Clipped(D.Normal):\n    pass\n\n"
        "def step(mu):\n    return Clipped(mu, 0.2).rsample()  # error\n",
        "def step(logits, head):\n    action_dist = head(logits)\n    return action_dist.sample()  # error\n",
        "class Agent:\n    def __init__(self, model):\n        self.model = model\n\n    def step(self, obs):\n"
        "        action_distrib, value = self.model(obs)\n        return action_distrib.sample()  # error\n",
        # a frozen scipy.stats distribution kept on self, and a stdlib Random instance
        "import random\nfrom scipy import stats\nclass Jitter:\n    def __init__(self):\n"
        "        self.shake = stats.t(df=3, scale=0.1)\n        self.coin = random.Random(7)\n"
        "    def step(self, obs):\n        j = self.shake.rvs(size=3)  # error\n"
        "        k = self.coin.triangular(0.0, 1.0)  # error\n        return obs + j * k\n",
    ),
)
