import ast

from leapp_codemod.analysis.infer.context import iter_nodes
from leapp_codemod.rules.base import Hit, Rule


def check(node: ast.Name, ctx):
    fn = ctx.fn
    if not fn.numbers.get(node.id) or not isinstance(node.ctx, ast.Load) or node.id in fn.carried:
        return  # not a number, or one that is the same on every iteration (a setting)
    nodes = list(iter_nodes(fn, ctx.facts.param_constants.get(fn.id)))
    dead = _dead_uses(nodes)
    live = [(n.lineno, n.col_offset) for n in nodes
            if isinstance(n, ast.Name) and n.id == node.id and isinstance(n.ctx, ast.Load) and id(n) not in dead]
    if not live or (node.lineno, node.col_offset) != min(live):
        return  # one finding per input, at its first use that something reads
    bound = fn.outer_values[node.id]
    yield Hit(node, f"`{node.id}` is a Python number from before the range (line {bound.lineno}); the LEAPP boundary "
                    "passes numbers through as constants, so what the range computes from it is frozen at its "
                    "traced value",
              f"start the range where `{node.id}` has become part of an array, or export the function that receives "
              "it as an array; a number that only counts iterations can stay outside the pipeline")


def _dead_uses(nodes: list[ast.AST]) -> set[int]:
    """ids of the name reads inside assignments to locals nothing reads, or that only dead assignments read
    (`count = counter * dt; phase = count % p; s = np.sin(phase)` with `s` never used): what they compute
    reaches no output."""
    assigns = [n for n in nodes if isinstance(n, ast.Assign) and all(isinstance(t, ast.Name) for t in n.targets)]
    loads: dict[str, list[int]] = {}
    for n in nodes:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads.setdefault(n.id, []).append(id(n))
    reads = {id(a): {id(x) for x in ast.walk(a.value) if isinstance(x, ast.Name)} for a in assigns}
    dead: set[int] = set()       # ids of the dead assignments
    out: set[int] = set()        # ids of the name reads inside them
    changed = True
    while changed:
        changed = False
        for a in assigns:
            if id(a) not in dead and all(set(loads.get(t.id, ())) <= out for t in a.targets):
                dead.add(id(a))
                out |= reads[id(a)]
                changed = True
    return out


RULE = Rule(
    code="LCM103", name="python-number-input", category="scalar-extraction", severity="error",
    summary="an inline range reads a Python number that changes between iterations",
    what="In a pipeline written inline in a driver loop (`--entry FILE:START-END`), flags the first use of a "
         "value from before the range that is a Python number: a step counter (`counter += 1`), a loop index "
         "(`for step in range(n)`), a clock. Only inline entries: a function entry's parameters are its caller's. "
         "A use that only feeds a local nothing reads (`elapsed = counter * dt`, unused), or locals that only such "
         "dead locals read (`phase = elapsed % p; s = np.sin(phase)`, `s` unused), is not flagged.",
    why="LEAPP traces tensors and arrays. The integration's input boundary passes any other value through "
        "unchanged, so a number is a constant of the graph: a gait phase computed from a step counter is the "
        "phase of the traced iteration forever.",
    fix="Choose a range whose inputs are arrays (start it after the number has become part of an array), or "
        "export the function that receives the value as an array.",
    example="counter = 0\nwhile True:\n    counter += 1\n    phase = counter * dt % 1.0   # range starts here\n"
            "    obs = np.concatenate([sensors(), [np.sin(phase)]])",
    fixed_example="# range starting at the `obs = ...` line, with `phase` made an array before it:\n"
                  "phase = np.array([counter * dt % 1.0])",
    node_types=(ast.Name,), check=check,
    valid=(
        "import numpy as np\ndef step(obs, counter):\n    return np.tanh(obs) * counter\n",
        # a setting that is the same on every iteration is no hazard, and branching on it is no tensor branch
        "# range: 7-9\nimport numpy as np\ndef main(sensors):\n    log_every = 10\n    while True:\n"
        "        x = sensors()\n        y = np.tanh(x)\n        if log_every > 5:\n            y = y * 2\n"
        "        print(y)\n",
        # a value computed from the counter that nothing reads reaches no output
        "# range: 7-9\nimport numpy as np\ndef main(sensors):\n    counter = 0\n    while counter < 10:\n"
        "        counter += 1\n        x = sensors()\n        elapsed = counter * 0.02\n        y = np.tanh(x)\n"
        "        print(y)\n",
        # a chain of locals computed from the counter that ends unread
        "# range: 7-11\nimport numpy as np\ndef main(sensors):\n    counter = 0\n    while counter < 10:\n"
        "        counter += 1\n        x = sensors()\n        elapsed = counter * 0.02\n        phase = elapsed % 0.8\n"
        "        s = np.sin(phase)\n        y = np.tanh(x)\n        print(y)\n",
    ),
    invalid=(
        "# range: 7-8\nimport numpy as np\ndef main(sensors):\n    counter = 0\n    while counter < 10:\n"
        "        counter += 1\n        phase = counter * 0.02  # error\n"
        "        obs = np.concatenate([sensors(), np.sin(np.array([phase]))])\n        print(obs)\n",
    ),
)
