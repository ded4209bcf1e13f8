import ast

from leapp_codemod.knowledge.library_internals import SIZED_BY_VALUES
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


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
    if _sized_by_values(node, ctx) and not ctx.only_logged(node):
        yield Hit(node, f"`{show(node)}` has no class count: torch sizes the one-hot result by the largest index "
                        f"in the pipeline data; LEAPP records the first sample's width and a sample with another "
                        f"largest index fails ('Reentering ... with new i/o')",
                  "pass the number of classes (`num_classes=N`), a setting of the pipeline")


RULE = Rule(
    code="LCM112", name="value-sized-result", category="shape-specialization", severity="error",
    summary="A library call that sizes its result by the values of pipeline data (`one_hot` without a class count)",
    what="Flags library calls known to decide a result's shape from the values they are handed, installed or not: "
         "`torch.nn.functional.one_hot` (and `torch.one_hot`) on pipeline data without `num_classes` (or with -1). "
         "Not flagged: `one_hot(..., num_classes=N)`. Not flagged either, by decision: the argument checks of "
         "`torch.distributions` (`Normal(mu, std)` built from pipeline data with validation on). Their Python "
         "branch only raises on invalid parameters, so the traced side is the one every valid input takes; LEAPP "
         "logs a tensor in a boolean context, and the export validates (checked, "
         "tests/test_leapp_library_internals.py). It carries no check, as with any `if bad: raise` guard.",
    why="Checked with the installed leapp 0.7.2 and torch 2.13 (tests/test_leapp_library_internals.py): `one_hot` "
        "without `num_classes` exports the first sample's width and fails with 'Reentering ... with new i/o' on a "
        "sample whose largest index differs; with `num_classes=` it traces and validates.",
    fix="Give `one_hot` its `num_classes` (a setting of the pipeline).",
    example="code = F.one_hot(scores.argmax(-1)).float()",
    fixed_example="code = F.one_hot(scores.argmax(-1), num_classes=4).float()",
    node_types=(ast.Call,), check=check,
    valid=(
        "import torch.nn.functional as F\ndef step(obs):\n    return F.one_hot(obs.argmax(-1), num_classes=4).float()\n",
        "import torch\nfrom torch import distributions as D\ndef step(mean, cov):\n"
        "    return D.MultivariateNormal(mean, cov).mean\n",
        "import torch.nn.functional as F\ndef step(obs):\n    print(F.one_hot(obs.argmax(-1)))\n    return obs\n",
    ),
    invalid=(
        "import torch\ndef step(obs):\n    return torch.nn.functional.one_hot(obs.argmax(-1)).float()  # error\n",
        "import torch.nn.functional as F\ndef step(obs):\n    return F.one_hot(obs.argmax(-1), -1).float()  # error\n",
    ),
)
