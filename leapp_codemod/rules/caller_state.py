import ast
import os

from leapp_codemod.rules.base import Hit, Rule


def check(node: ast.Name, ctx):
    held = ctx.facts.caller_state.get(ctx.fn.id, {}).get(node.id)
    if held is None or not isinstance(node.ctx, ast.Load):
        return
    loads = [(n.lineno, n.col_offset) for n in ctx.fn.nodes
             if isinstance(n, ast.Name) and n.id == node.id and isinstance(n.ctx, ast.Load)]
    if not loads or (node.lineno, node.col_offset) != min(loads):
        return   # one finding per parameter, at its first read
    path, _, driver = held.driver.rpartition(":")
    where = os.path.normpath(path)
    through = "" if held.name == node.id else f" (inside what `{node.id}` receives)"
    kind = f"a {held.kind}" if held.kind else "a value"
    lines = ("lines " if len(held.updates) > 1 else "line ") + ", ".join(str(n) for n in held.updates)
    whole = (f"; a LEAPP boundary also passes a {held.kind} through as a constant" if held.kind == "deque" else "")
    yield Hit(node,
              f"`{node.id}` carries `{held.name}`{through}, {kind} the driver loop `{driver}` ({where}) builds at "
              f"line {held.built} and updates between calls from its previous content ({lines}): recurrent "
              f"state held by the caller, which the step's own code never updates; the export takes it as a plain "
              f"input of each call{whole}",
              f"keep the update in the pipeline: move it into the step and hold `{held.name}` as LEAPP state the step "
              f"updates, or export with it as an array input and keep {where} {lines} in the host code that runs "
              "the exported model")


RULE = Rule(
    code="LCM704", name="caller-held-state", category="inplace-state", severity="warning",
    summary="a function entry receives state its driver loop holds and updates between calls",
    what="For a function entry, reads the loops of the project code that imports it and calls it by name: an "
         "argument that is, or is built from (a list or tuple of it, a call it is passed to), a value the driver "
         "builds before the loop and updates from its own previous content between calls (`frames.append(obs)` on "
         "a deque, `stack = np.roll(stack, 1, axis=0)`, `stack[:-1] = stack[1:]`) is recurrent state the step's "
         "view misses. Flagged at the entry's first read of the parameter, naming the driver's lines. A value the "
         "loop rebinds to a fresh reading, or fills whole, is not state.",
    why="LEAPP exports what the step computes; a frame stack the driver rolls outside the step is a plain input of "
        "the export, so whatever runs the exported model has to repeat the driver's update, and a deque reaches "
        "the boundary as a constant (LCM108's fact).",
    fix="Move the update into the step and hold the stack as LEAPP state, or export with the stack as an array "
        "input and keep the driver's update lines in the host code.",
    example="frames = deque([obs] * 3, maxlen=3)\nwhile True:\n    act = step(frames)   # `step` is the entry\n"
            "    frames.append(env.observe())",
    fixed_example="# the step keeps the stack itself, as state:\nclass Step:\n    def __call__(self, obs):\n"
                  "        self.frames = torch.cat([self.frames[1:], obs[None]])\n        return self.net(self.frames)",
    node_types=(ast.Name,), check=check,
    valid=(
        # the driver hands a fresh reading to every call: nothing is held between calls
        ("import numpy as np\ndef step(frames):\n    return np.tanh(frames).sum(0)\n"
         "def main(cam):\n    frames = np.zeros((3, 4))\n    for _ in range(5):\n        frames = cam()\n"
         "        print(step(frames))\n"),
    ),
    invalid=(
        ("import numpy as np\ndef step(frames):\n    return np.tanh(frames).sum(0)  # error\n"
         "def main(cam):\n    frames = np.zeros((3, 4))\n    for _ in range(5):\n"
         "        frames = np.roll(frames, 1, axis=0)\n        frames[0] = cam()\n        print(step(frames))\n"),
    ),
)
