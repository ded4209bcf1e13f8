import ast

from leapp_codemod.analysis.infer.context import iter_nodes
from leapp_codemod.rules.base import Hit, Rule


def check(node: ast.Name | ast.Attribute, ctx):
    if isinstance(node, ast.Attribute):
        yield from _self_counter(node, ctx)
        return
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


def _self_counter(node: ast.Attribute, ctx):
    """`self.timestep * self.dt`, with `self.timestep += 1` in a method of the class outside the exported step
    (a callback run after it): a Python counter read into arithmetic, frozen at its traced value. A counter
    the step advances itself is state (LCM701), and one only compared or used as an index (a replan test, a
    slot in a chunk) is left to the state rules."""
    if not (isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) and node.value.id == ctx.self_name
            and ctx.cls is not None) or ctx.self_attr_is_data(node.attr) or ctx.holds_counter(node.attr):
        return   # a counter the exported step advances itself is state, declared around the call (LCM701)
    where = _advanced_by(node.attr, ctx)
    if where is None:
        return
    reads = _arithmetic_reads(node.attr, ctx)
    if not reads or node is not reads[0]:
        return   # one finding per counter and function, at its first read into arithmetic
    yield Hit(node, f"`{ctx.self_name}.{node.attr}` is a Python counter ({where} advances it from call to call) read "
                    "into arithmetic; the export takes it as a constant, so what is computed from it (a phase, a "
                    "time) is frozen at its traced value",
              f"pass the counter (or the phase computed from it) into the pipeline as an array input, or keep "
              f"`{node.attr}` as a tensor the step advances and declare it as LEAPP state")


def _advanced_by(attr: str, ctx) -> str | None:
    """The method of the class (or a base) that advances `self.<attr>` by a number (`+= 1`, `-= dt`)."""
    key = ("counter advances", ctx.cls.id, len(ctx.project.modules))   # per class, as `project.mro` keys it
    found = ctx.project.memo.get(key)
    if found is None:
        found = ctx.project.memo[key] = _advances(ctx.project.mro(ctx.cls))
    return found.get(attr)


def _advances(classes) -> dict[str, str]:
    """attr -> the first method (in method resolution order) that advances `self.<attr>` by a number."""
    found: dict[str, str] = {}
    for klass in classes:
        for method in klass.methods.values():
            self_name = method.positional_params[0] if method.is_method and method.positional_params else None
            for n in method.nodes:
                if isinstance(n, ast.AugAssign) and isinstance(n.op, (ast.Add, ast.Sub)) \
                        and isinstance(n.target, ast.Attribute) and n.target.attr not in found \
                        and isinstance(n.target.value, ast.Name) and n.target.value.id == self_name \
                        and _numeric(n.value):
                    found[n.target.attr] = f"`{method.qualname}`"
    return found


def _numeric(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool) \
        or isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name)   # `+= self.dt`


def _arithmetic_reads(attr: str, ctx) -> list[ast.Attribute]:
    """Reads of `self.<attr>` that are an operand of arithmetic outside any test, index or counter update."""
    excluded: set[int] = set()
    for n in ctx.fn.nodes:
        for part in ((n.test,) if isinstance(n, (ast.If, ast.While, ast.IfExp, ast.Assert)) else
                     (n.slice,) if isinstance(n, ast.Subscript) else (n,) if isinstance(n, ast.Compare) else
                     (n.target, n.value) if isinstance(n, ast.AugAssign) else
                     (n.value,) if isinstance(n, ast.Assign) and any(
                         isinstance(t, ast.Attribute) and t.attr == attr for t in n.targets) else ()):
            excluded.update(id(x) for x in ast.walk(part))
    found = []
    for n in ctx.fn.nodes:
        if isinstance(n, ast.BinOp) and id(n) not in excluded:
            for side in (n.left, n.right):
                if isinstance(side, ast.Attribute) and side.attr == attr and isinstance(side.value, ast.Name) \
                        and side.value.id == ctx.self_name and id(side) not in excluded:
                    found.append(side)
    return sorted(found, key=lambda a: (a.lineno, a.col_offset))


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
         "(`for step in range(n)`), a clock. A name every binding of which is the same literal (`B = 1` at the top of "
         "every pass of the loop) is a constant, not flagged. Only inline entries: a function entry's parameters are "
         "its caller's. "
         "A use that only feeds a local nothing reads (`elapsed = counter * dt`, unused), or locals that only such "
         "dead locals read (`phase = elapsed % p; s = np.sin(phase)`, `s` unused), is not flagged. In any entry, also "
         "the first read into arithmetic of a counter on self that a method of the class outside the pipeline "
         "advances by a number (`self.timestep += 1` in a callback run after the step): `phase = self.timestep * "
         "dt`. A counter the step advances itself is state (LCM701); one only compared or used as an index (a "
         "replan test) is left to the state rules.",
    why="LEAPP traces tensors and arrays. The integration's input boundary passes any other value through "
        "unchanged, so a number is a constant of the graph: a gait phase computed from a step counter is the "
        "phase of the traced iteration forever.",
    fix="Choose a range whose inputs are arrays (start it after the number has become part of an array), or "
        "export the function that receives the value as an array.",
    example="counter = 0\nwhile True:\n    counter += 1\n    phase = counter * dt % 1.0   # range starts here\n"
            "    obs = np.concatenate([sensors(), [np.sin(phase)]])",
    fixed_example="# range starting at the `obs = ...` line, with `phase` made an array before it:\n"
                  "phase = np.array([counter * dt % 1.0])",
    node_types=(ast.Name, ast.Attribute), check=check,
    valid=(
        "import numpy as np\ndef step(obs, counter):\n    return np.tanh(obs) * counter\n",
        # a setting that is the same on every iteration is no hazard, and branching on it is no tensor branch
        ("# range: 7-9\nimport numpy as np\ndef main(sensors):\n    log_every = 10\n    while True:\n"
        "        x = sensors()\n        y = np.tanh(x)\n        if log_every > 5:\n            y = y * 2\n"
        "        print(y)\n"),
        # a value computed from the counter that nothing reads reaches no output
        ("# range: 7-9\nimport numpy as np\ndef main(sensors):\n    counter = 0\n    while counter < 10:\n"
        "        counter += 1\n        x = sensors()\n        elapsed = counter * 0.02\n        y = np.tanh(x)\n"
        "        print(y)\n"),
        # a number the loop rebinds to the same literal on every pass is a constant
        ("# range: 7-8\nimport numpy as np\ndef main(sensors):\n    b = 1\n    while True:\n        b = 1\n"
        "        x = sensors()\n        y = np.tanh(x) * b\n        print(y)\n"),
        # a chain of locals computed from the counter that ends unread
        ("# range: 7-11\nimport numpy as np\ndef main(sensors):\n    counter = 0\n    while counter < 10:\n"
        "        counter += 1\n        x = sensors()\n        elapsed = counter * 0.02\n        phase = elapsed % 0.8\n"
        "        s = np.sin(phase)\n        y = np.tanh(x)\n        print(y)\n"),
    ),
    invalid=(
        ("import numpy as np\nclass Gait:\n    def __init__(self):\n        self.tick = 0\n"
        "    def after_step(self):\n        self.tick += 1\n"
        "    def step(self, obs):\n        phase = self.tick * 0.02  # error\n"
        "        return np.concatenate([obs, np.sin(np.array([phase]))])\n"),
        ("# range: 7-8\nimport numpy as np\ndef main(sensors):\n    counter = 0\n    while counter < 10:\n"
        "        counter += 1\n        phase = counter * 0.02  # error\n"
        "        obs = np.concatenate([sensors(), np.sin(np.array([phase]))])\n        print(obs)\n"),
    ),
)
