import ast

from leapp_codemod.knowledge.library_internals import FUNCTION_TRANSFORMS, key_of
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def _named_anywhere(project) -> bool:
    """Does any loaded module spell a transform's name (`vmap`, `jacrev`, ...)? A cheap filter before a call's
    library callables are read (kept per project, renewed when more modules are loaded)."""
    key = ("function-transform-named", len(project.modules))
    found = project.memo.get(key)
    if found is None:
        names = {name for _, name in FUNCTION_TRANSFORMS}
        found = project.memo[key] = any(
            isinstance(n, ast.Attribute) and n.attr in names or isinstance(n, ast.alias)
            and n.name.rsplit(".", 1)[-1] in names
            for module in list(project.modules.values()) for n in module.nodes)
    return found


def _transform(func: ast.expr, ctx):
    """The transform that built the called function (`torch.vmap(f)(x)`, `self.vmap(x)` after `self.vmap =
    torch.vmap(f)`, a helper's returned `vmap(...)`), or None."""
    built = ctx.library_callables(func)
    return next((b for b in built if key_of(ctx.project.external_name(b.name)) in FUNCTION_TRANSFORMS
                 or key_of(b.name) in FUNCTION_TRANSFORMS), None)


def check(node: ast.Call, ctx):
    if not _named_anywhere(ctx.project) or not ctx.args_data(node) or ctx.only_logged(node):
        return
    made = _transform(node.func, ctx)
    if made is None:
        return
    kind = made.name.rsplit(".", 1)[-1]
    built = "" if made.call is node.func else f" (made at {made.where})"
    related = () if made.call is node.func else (
        (made.path, made.call.lineno, made.call.col_offset + 1, f"`{kind}` makes the function called here"),)
    yield Hit(node, f"`{show(node)}` calls a function made by `{kind}`{built} on pipeline data: LEAPP 0.7.2 "
                    f"does not trace through torch.func transforms, so its answer is a plain tensor outside the "
                    f"trace (LEAPP's output check rejects it; mixed into traced values it is a constant of the "
                    f"export)", FIX, related=related)


FIX = ("for the export, compute without the transform: loop over the ensemble's members (`torch.stack([m(x) for m "
       "in members])`) or batch the weights by hand (`torch.einsum`/`bmm` over stacked parameters), and keep "
       "`vmap` for training")


RULE = Rule(
    code="LCM115", name="function-transform-call", category="scalar-extraction", severity="error",
    summary="A function made by `torch.vmap` or another torch.func transform called on pipeline data",
    what="Flags a call on pipeline data of a function a torch.func transform built: `torch.vmap`, "
         "`torch.func.vmap`, `functorch.vmap`, `grad`, `grad_and_value`, `jacrev`, `jacfwd`, `hessian` (any import "
         "path). The transformed function is found where it was built: called at once (`torch.vmap(f)(x)`), "
         "bound to a local or a module global, kept on an attribute (a vectorised ensemble module's "
         "`self.vmap = torch.vmap(fn, ...)` called in its `forward`), or returned by a project helper. Not flagged: "
         "`torch.func.functional_call` alone (it traces), transforms called only on constants or only for a log "
         "line.",
    why="Checked with leapp 0.7.2 and torch 2.13 (tests/test_leapp_function_transform.py): the transforms run the "
        "wrapped function on functorch's own batched or gradient tensors, which LEAPP's traced tensor does not "
        "survive. A plain `torch.vmap` over rows, `torch.func.vmap` over stacked weights, the stacked-ensemble "
        "idiom `vmap(functional_call(base, (params, buffers), x))` and `jacrev` all answer a plain `torch.Tensor`, "
        "and `output_tensors` raises 'received non-traced tensors'; `functional_call` alone and a Python loop over "
        "the members trace and validate.",
    fix="Compute the exported path without the transform: a Python loop over the members "
        "(`torch.stack([m(x) for m in self.members])`), or the batched matmul written out over the stacked "
        "parameters; keep the vectorised form for training.",
    example="class QEnsemble(nn.Module):\n    def __init__(self, heads):\n"
            "        fn, params, _ = combine_state_for_ensemble(heads)\n"
            "        self.run = torch.vmap(fn, in_dims=(0, 0, None))\n"
            "        self.params = nn.ParameterList(params)\n\n"
            "    def forward(self, z):\n        return self.run(list(self.params), (), z)",
    fixed_example="    def forward(self, z):\n        return torch.stack([head(z) for head in self.heads])",
    node_types=(ast.Call,), check=check,
    valid=(
        # functional_call alone traces
        "import torch\nfrom torch.func import functional_call\nnet = torch.nn.Linear(4, 2)\n"
        "def step(obs):\n    return functional_call(net, dict(net.named_parameters()), (obs,))\n",
        # a vmapped function called on constants only
        "import torch\nTABLE = torch.vmap(torch.sin)(torch.arange(4.0))\ndef step(obs):\n    return obs * TABLE\n",
        # a Python loop over the members: the fix
        "import torch\nclass Heads(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.heads = torch.nn.ModuleList([torch.nn.Linear(4, 1) for _ in range(3)])\n\n"
        "    def step(self, z):\n        return torch.stack([h(z) for h in self.heads])\n",
    ),
    invalid=(
        "import torch\ndef step(obs):\n    return torch.vmap(lambda row: row.norm())(obs)  # error\n",
        "from torch.func import jacrev\nimport torch\nENERGY = jacrev(lambda q: (q ** 2).sum())\n"
        "def step(q):\n    return -ENERGY(q)  # error\n",
        "import torch\nfrom functorch import vmap\nclass Critic:\n    def __init__(self, fn):\n"
        "        self.batched = vmap(fn, in_dims=(0, None))\n        self.w = torch.randn(3, 4)\n\n"
        "    def step(self, z):\n        return self.batched(self.w, z).min(0).values  # error\n",
    ),
)
