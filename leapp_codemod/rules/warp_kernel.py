import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

# Warp calls that put a kernel, or data crossing into or out of Warp, inside the pipeline.
WARP_CALLS = {
    "warp.launch": "launches a Warp kernel",
    "warp.launch_tiled": "launches a Warp kernel",
    "warp.from_torch": "hands a tensor to Warp",
    "warp.to_torch": "hands a Warp array back to torch",
    "warp.from_numpy": "hands an array to Warp",
}
# What LEAPP's Warp support needs, said once for the message, the fix and the docs.
WARP_SETUP = ("initialize Warp (`wp.init()`) before `leapp.start(..., global_patching=True)`, run the Warp "
              "path at least twice in the session (discovery, then capture), and export with Dynamo ONNX "
              "(`onnx`) or `pt2` only")


def _kernel(node: ast.Call) -> str:
    target = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "kernel"), None)
    return f" `{show(target)}`" if target is not None else ""


def check(node: ast.Call, ctx):
    name = ctx.call_name(node)
    what = WARP_CALLS.get(name or "")
    if what is None:
        return
    if name != "warp.launch" and name != "warp.launch_tiled" and not ctx.args_data(node):
        return
    kernel = _kernel(node) if what == "launches a Warp kernel" else ""
    yield Hit(node, f"`{show(node)}` {what}{kernel} inside the pipeline; a LEAPP export of Warp code needs "
                    "its Warp runtime (CUDA and the warp extra)",
              f"{WARP_SETUP}; `generate` writes that setup and limits the exporters to onnx then pt2")


RULE = Rule(
    code="LCM402", name="warp-kernel", category="warp-kernel", severity="warning",
    summary="Warp kernel launch or torch/Warp hand-over in the pipeline",
    what="Flags `wp.launch` (a Warp kernel, usually a `@wp.kernel` function, runs inside the pipeline) and "
         "`wp.from_torch` / `wp.to_torch` / `wp.from_numpy` on pipeline data, through any import alias of `warp`.",
    why="LEAPP records a Warp kernel only through its Warp backend, which needs CUDA, the `warp-cu12`/`warp-cu13` "
        "extra and its native runtime (`leapp-build-warp-runtime`); without them the kernel runs untraced and its "
        "result is a constant or a 'received non-traced tensors' error. With them, Warp must be initialized "
        "before `leapp.start(global_patching=True)`, the Warp path must run at least twice in one session (the "
        "first pass discovers the kernels, the second captures them; `compile_graph` refuses a node that "
        "discovered Warp segments but never ran again), and only Dynamo ONNX and PT2 carry the kernels.",
    fix="Use the module `generate` writes: it calls `wp.init()` before `leapp.start`, traces at least two calls "
        "and tries only the onnx and pt2 exporters. Run it on a machine with CUDA and the Warp extra.",
    example="import warp as wp\nwp.launch(scale_kernel, dim=n, inputs=[wp.from_torch(obs), gain])",
    fixed_example="# unchanged: export through the generated module on a CUDA machine with the Warp extra",
    node_types=(ast.Call,), check=check,
    valid=(
        "import warp as wp\nimport torch\ndef step(obs):\n    wp.init()\n    return torch.tanh(obs)\n",
        "import warp as wp\ndef step(obs, cfg):\n    table = wp.from_numpy(cfg.table)\n    return obs * 2.0\n",
    ),
    invalid=(
        "import warp as wp\n\n@wp.kernel\ndef scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):\n"
        "    i = wp.tid()\n    y[i] = 2.0 * x[i]\n\ndef step(obs, out):\n"
        "    x = wp.from_torch(obs)  # error\n    wp.launch(scale, dim=4, inputs=[x, wp.from_torch(out)])  # error\n"
        "    return wp.to_torch(x)  # error\n",
        "import warp\ndef step(obs, kernel):\n    warp.launch(kernel=kernel, dim=obs.shape[0], inputs=[obs])  # error\n"
        "    return obs\n",
    ),
)
