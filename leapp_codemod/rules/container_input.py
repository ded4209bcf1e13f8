import ast

from leapp_codemod.rules.base import Hit, Rule


def check(node: ast.Name, ctx):
    found = ctx.fn.undeclarable.get(node.id)
    if found is None or not isinstance(node.ctx, ast.Load):
        return
    loads = [(n.lineno, n.col_offset) for n in ctx.fn.nodes
             if isinstance(n, ast.Name) and n.id == node.id and isinstance(n.ctx, ast.Load)]
    if not loads or (node.lineno, node.col_offset) != min(loads):
        return   # one finding per input, at its first read in the range
    filled = f", filled at line {', '.join(map(str, found.filled))}" if found.filled else ""
    effect = ("passes it through as a constant, so what the range computes from it is frozen at its traced value"
              if found.passed_whole else
              "gives each item a port of its own, so the next call with another length fails when the boundary is "
              "re-entered")
    message = (f"`{node.id}` enters the range as {found.what} (built at line {found.built}{filled}); a LEAPP boundary "
               f"declares tensors and arrays only (also inside lists, tuples and dicts of one fixed structure) and "
               f"{effect}")
    if found.start_after is not None and found.stacked:
        names = ", ".join(f"`{n}`" for n in found.stacked)
        fix = (f"start the range at line {found.start_after}, after the lines that stack `{node.id}` into arrays: the "
               f"range's inputs are then {names}")
    else:
        fix = (f"stack `{node.id}` into one array before the range (`np.stack(...)`, `np.asarray(..., "
               f"dtype=np.float32)`) and read that array in the range, or widen the range to include the lines that "
               f"build it from arrays (line {found.built})")
    yield Hit(node, message, fix)


RULE = Rule(
    code="LCM108", name="undeclarable-input", category="scalar-extraction", severity="error",
    summary="an inline range reads a value a LEAPP boundary cannot declare as an input",
    what="In a pipeline written inline in a driver loop (`--entry FILE:START-END`), flags the first read of an input "
         "the code before the range builds as a value LEAPP's input boundary does not declare: a `deque` (whatever "
         "it holds), a list or dict whose items are Python numbers (`float(...)`, `.item()`, `.tolist()`, number "
         "literals), or a list the loop appends to, so that its length changes from one iteration to the next. "
         "Lists, tuples and dicts of arrays of one fixed structure are declared item by item and are not flagged; "
         "neither is a value built by a call whose result the scan cannot see.",
    why="LEAPP 0.7.2's `annotate.input_tensors` declares torch tensors and NumPy arrays, and recurses into lists, "
        "tuples and dicts to declare the arrays inside them (one port per item). Anything else is passed through "
        "as a constant of the graph (\"Non-tracable input ... will be passed through as a constant\"): a deque, a "
        "number, a list of numbers, an object. A list whose length changes gets a new port on the next call, and "
        "LEAPP fails with \"Reentering ... with new i/o\" (checked by tracing each kind: tests/test_leapp_boundary_types.py).",
    fix="Start the range after the lines that stack the value into arrays (those arrays become the inputs), or "
        "stack it into an array before the range, or widen the range to include the lines that build it from arrays.",
    example="frames = deque([read()] * 3, maxlen=3)\nwhile True:\n    x = np.stack(list(frames))   # range starts here\n"
            "    act = policy(x)\n    frames.append(read())",
    fixed_example="# range starting after the stacking: `x` is an array input\nx = np.stack(list(frames))\n"
                  "act = policy(x)   # range: this line on",
    node_types=(ast.Name,), check=check,
    valid=(
        # a list of arrays of one fixed length is declared item by item
        ("# range: 6-7\nimport numpy as np\ndef main(cams, policy):\n    while True:\n"
         "        views = [np.asarray(cams[0]()), np.asarray(cams[1]())]\n        x = np.concatenate(views)\n"
         "        print(policy(x))\n"),
        # a value built by a call the scan cannot see into is not judged
        ("# range: 6-7\nimport numpy as np\ndef main(robot, policy):\n    while True:\n"
         "        state = robot.observe()\n        x = np.asarray(state, dtype=np.float32)\n"
         "        print(policy(x))\n"),
    ),
    invalid=(
        ("# range: 7-8\nimport collections\nimport numpy as np\ndef main(cam, policy):\n"
         "    frames = collections.deque([cam()] * 2, maxlen=2)\n    while True:\n"
         "        x = np.stack(list(frames))  # error\n        print(policy(x))\n        frames.append(cam())\n"),
        ("# range: 7-8\nimport numpy as np\ndef main(arm, policy):\n    while True:\n"
         "        obs = {'q': [float(v) for v in arm.joints()], 'grip': [arm.width()]}\n"
         "        obs['grip'].append(float(arm.force()))\n"
         "        x = np.array(obs['q'] + obs['grip'])  # error\n        print(policy(x))\n"),
    ),
)
