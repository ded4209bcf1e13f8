import ast

from leapp_codemod.knowledge.library_internals import PIL_CONVERSIONS, key_of
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def _is_class(name: str) -> bool:
    return name.rsplit(".", 1)[-1][:1].isupper()


def _named_anywhere(project) -> bool:
    """Does any loaded module spell a PIL conversion's name (`ToPILImage`, `to_pil_image`)? A cheap filter before a
    call's library callables are read (kept per project, renewed when more modules are loaded)."""
    key = ("pil-conversion-named", len(project.modules))
    found = project.memo.get(key)
    if found is None:
        names = {name for _, name in PIL_CONVERSIONS}
        found = project.memo[key] = any(
            isinstance(n, ast.Attribute) and n.attr in names or isinstance(n, ast.Name) and n.id in names
            or isinstance(n, ast.alias) and n.name.rsplit(".", 1)[-1] in names
            for module in list(project.modules.values()) for n in module.nodes)
    return found


def check(node: ast.Call, ctx):
    if not _named_anywhere(ctx.project) or not ctx.args_data(node) or ctx.only_logged(node):
        return
    direct = ctx.call_name(node)
    if direct and key_of(direct) in PIL_CONVERSIONS and not _is_class(direct):   # `TF.to_pil_image(frame)`
        yield Hit(node, f"`{show(node)}` converts pipeline data into a PIL image with `{direct}`; PIL keeps its "
                        f"own copy of the numbers, which LEAPP does not trace: what is computed from the image is "
                        f"a constant of the export", FIX)
        return
    built = ctx.library_callables(node.func)
    at = next((i for i, b in enumerate(built) if key_of(b.name) in PIL_CONVERSIONS and _is_class(b.name)), None)
    if at is None:
        return
    conversion, after = built[at], [b.name.rsplit(".", 1)[-1] for b in built[at + 1:]]
    then = f"; what follows it ({', '.join(dict.fromkeys(after))}) works on the image outside the trace" if after else ""
    yield Hit(node, f"`{show(node)}` runs torchvision's `{conversion.name.rsplit('.', 1)[-1]}` (built at "
                    f"{conversion.where}) on pipeline data: it turns the values into a PIL image, which LEAPP does "
                    f"not trace{then}; the export holds the traced sample's result as a constant", FIX)


FIX = ("keep the image a tensor: drop `ToPILImage` and use the tensor forms of the steps (`torchvision.transforms."
       "v2` and `torch.nn.functional.interpolate` work on tensors), or run this preprocessing on the host before the "
       "exported pipeline and declare its output as the input")


RULE = Rule(
    code="LCM113", name="library-untraced-conversion", category="foreign-library", severity="error",
    summary="A library call that converts pipeline data into an object LEAPP does not trace (torchvision "
            "`ToPILImage`)",
    what="Flags a call on pipeline data that runs a library callable known to hand the values to untraced native "
         "objects: torchvision's `ToPILImage` transform and `to_pil_image` function, called directly, through a "
         "transform object bound to a local, a module global or an attribute, inside a transform pipeline "
         "(`Compose([...])`, `nn.Sequential`, also a list spliced into it), or returned by a project helper "
         "(`make_transform()(frame)`). The library does not have to be installed: the scan reads only how the "
         "object was built. Not flagged: the same transforms built but not called on pipeline data, pipelines "
         "without a conversion (tensor-only `v2` transforms), and calls that only feed a log line.",
    why="torchvision documents that `ToPILImage` and `to_pil_image` return a `PIL.Image.Image`; PIL copies the "
        "numbers into its own native image, which LEAPP 0.7.2 does not trace (checked with Pillow: what comes back "
        "out of a PIL image is a constant of the export that fails validation on the next sample, "
        "tests/test_leapp_pil_image.py). Every transform after the conversion (`Resize` on the image, `ToTensor`) "
        "computes on untraced data. This fact is the library's documented behaviour: torchvision itself was not "
        "run (it is not installed where the facts were checked).",
    fix="Keep the image a tensor through the preprocessing (tensor `v2` transforms, `torch.nn.functional."
        "interpolate`), or move the preprocessing to the host before the exported pipeline and declare its result "
        "as the pipeline's input.",
    example="from torchvision import transforms as T\n"
            "prep = T.Compose([T.ToPILImage(), T.Resize((96, 96)), T.ToTensor()])\n...\nimg = prep(frame)",
    fixed_example="img = torch.nn.functional.interpolate(frame.permute(2, 0, 1)[None].float() / 255, size=(96, 96))",
    node_types=(ast.Call,), check=check,
    valid=(
        # a tensor-only pipeline: no conversion into PIL
        "import torch\nfrom torchvision.transforms import v2\nPREP = v2.Compose([v2.Resize((64, 64)), "
        "v2.ToDtype(torch.float32, scale=True)])\ndef step(frame):\n    return PREP(frame)\n",
        # built with a conversion but called only on a constant image
        "import torch\nfrom torchvision import transforms as T\ndef step(obs):\n    tf = T.Compose([T.ToPILImage()])\n"
        "    blank = tf(torch.zeros(3, 8, 8))\n    return obs * 2.0\n",
    ),
    invalid=(
        "from torchvision.transforms import functional as TF\ndef step(frame):\n"
        "    return TF.to_pil_image(frame)  # error\n",
        "import torchvision.transforms as T\nclass Camera:\n    def __init__(self):\n"
        "        self.prep = T.Compose([T.ToPILImage(), T.CenterCrop(80), T.ToTensor()])\n"
        "    def step(self, frame):\n        return self.prep(frame).unsqueeze(0)  # error\n",
        "from torchvision.transforms import v2\ndef make(extra=[]):\n"
        "    return v2.Compose([v2.ToPILImage()] + extra + [v2.ToImage()])\n"
        "def step(frame):\n    return make()(frame)  # error\n",
    ),
)
