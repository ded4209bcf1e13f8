import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def check(node: ast.Name, ctx):
    fn = ctx.fn
    rebinding = fn.fed_after.get(node.id)
    if rebinding is None or not isinstance(node.ctx, ast.Load):
        return
    first = min((n.lineno, n.col_offset) for n in fn.nodes
                if isinstance(n, ast.Name) and n.id == node.id and isinstance(n.ctx, ast.Load))
    if (node.lineno, node.col_offset) != first:
        return   # one finding per value
    # reported where the loop rebinds it (after the range): the read inside is often a line other findings name
    yield Hit(rebinding, f"`{show(rebinding)}` rebinds `{node.id}` after the range from what the range computes, and "
                         f"the range reads it (line {node.lineno}) on the next iteration: the value one iteration "
                         "leaves for the next is computed outside the export (recurrent state kept by the host loop)",
              f"end the range after line {rebinding.end_lineno} so that `{node.id}` is the range's own state "
              "(`generate` declares it as LEAPP state), or keep this line on the host and feed the value in as an "
              "input on every call")


RULE = Rule(
    code="LCM705", name="state-fed-after-range", category="inplace-state", severity="warning",
    summary="an inline range reads a value the loop rebinds after it from the range's outputs",
    what="In a pipeline written inline in a driver loop (`--entry FILE:START-END`), flags the rebinding of a name "
         "the range reads but does not assign, when the loop rebinds it after the range's end, every time by array arithmetic of "
         "the range's outputs (`last = np.clip(action, -1, 1)` below the range): the next iteration reads what "
         "this one computed, so the value is loop-carried state, and its update sits outside the range. The finding "
         "is on the rebinding (outside the range), and names the range's first read. A "
         "rebinding by a call on an object of the loop (`obs = env.step(cmd)`, `img = cam.read()`) is a new "
         "reading, not flagged; nor a name the loop also rebinds before the range.",
    why="The export takes the value as an input and never updates it: the feedback (last action, filter memory) "
        "lives in host code the deployment has to reproduce exactly, or the policy sees a stale value. A range "
        "that ends after the rebinding makes it state that `generate` declares.",
    fix="Move the end of the range past the rebinding (it becomes the range's state), or keep the host line and "
        "pass the value in on every call.",
    example="while True:\n    obs = np.concatenate([read(), last])   # range starts here\n    action = policy(obs)\n"
            "    send(action)\n    last = np.clip(action, -1.0, 1.0)   # after the range",
    fixed_example="# the range extended through the `last = ...` line: `last` is its state",
    node_types=(ast.Name,), check=check,
    valid=(
        # a new reading after the range is an input, not state
        ("# range: 8-9\nimport numpy as np\nimport torch\nnet = torch.nn.Linear(3, 3)\ndef main(env):\n"
         "    obs = env.reset()\n    while True:\n        x = torch.as_tensor(obs, dtype=torch.float32)\n"
         "        act = net(x).detach().numpy()\n        obs = env.step(act)\n"),
    ),
    invalid=(
        ("# range: 9-10\nimport numpy as np\nimport torch\nnet = torch.nn.Linear(6, 3)\ndef main(env):\n"
         "    obs = env.reset()\n    prev = np.zeros(3)\n    while True:\n"
         "        x = torch.as_tensor(np.concatenate([obs, prev]), dtype=torch.float32)\n"
         "        act = net(x).detach().numpy()\n        obs = env.step(act)\n"
         "        prev = np.clip(act, -1.0, 1.0)  # error\n"),
    ),
)
