import ast

from leapp_codemod.analysis.infer.context import CONSTRUCTION, is_self_attr
from leapp_codemod.rules._helpers import number_literal, numpy_constant, show
from leapp_codemod.rules.base import Hit, Rule
from leapp_codemod.rules.scalar_list_join import from_data


def constant_table(name: str, ctx) -> bool:
    """`name` is a module global bound to a constant table: a list or tuple literal of numbers, or a NumPy
    array built from literals and other module constants (not shadowed in the function)."""
    if name in ctx.fn.params or ctx.fn.assigned(name):
        return False
    value = ctx.module.globals.get(name)
    if value is None:
        return False
    if number_literal(value):
        return True
    numpy_names = {local for local, target in ctx.module.imports.items() if target == "numpy"}
    constants = {n for n, v in ctx.module.globals.items() if n != name and (number_literal(v) or is_number_expr(v))}
    return isinstance(value, ast.Call) and numpy_constant(value, numpy_names, constants)


def is_number_expr(value: ast.expr) -> bool:
    """Arithmetic on number literals only (`CELL = 0.5`, `STEP = 1 / 50`)."""
    allowed = (ast.Constant, ast.UnaryOp, ast.BinOp, ast.unaryop, ast.operator)
    return isinstance(value, allowed[:3]) and all(isinstance(n, allowed) for n in ast.walk(value))


def loaded_once(table: ast.expr, ctx) -> bool:
    """A table the step only reads, bound before it runs: an attribute of self every binding of which is in a
    constructor (`self.clip = np.load(path)`), or, in an inline range, a value from before the range that is
    neither a Python number nor carried from one iteration to the next (`ref_pos = motion["joint_pos"]`)."""
    if is_self_attr(table, ctx.self_name) and ctx.cls is not None:
        writes = [m for klass in ctx.project.mro(ctx.cls) for m, _ in klass.attr_values.get(table.attr, ())]
        return bool(writes) and all(m in CONSTRUCTION for m in writes) and not ctx.holds_counter(table.attr) \
            and not ctx.is_data(table) and not _filled_later(table.attr, ctx)
    if isinstance(table, ast.Name):
        name = table.id
        return name in ctx.fn.outer_values and name not in ctx.fn.numbers and name not in ctx.fn.carried \
            and not ctx.fn.assigned(name) and not ctx.is_data(table)
    return False


def _filled_later(attr: str, ctx) -> bool:
    """Does a method of the class other than a constructor write into `self.<attr>` (`self.dones[self.step] =
    ...`, `self.buf[i].copy_(x)`)? Then it is a buffer the class fills, not a table loaded once."""
    key = ("filled attrs", ctx.cls.id, attr, len(ctx.project.modules))   # per class, as `project.mro` keys it
    found = ctx.project.memo.get(key)
    if found is None:
        found = ctx.project.memo[key] = _writes_into(attr, ctx)
    return found


def _writes_into(attr: str, ctx) -> bool:
    for klass in ctx.project.mro(ctx.cls):
        for name, method in klass.methods.items():
            if name in CONSTRUCTION:
                continue
            self_name = method.positional_params[0] if method.is_method and method.positional_params else None
            for n in method.nodes:
                target = n.value if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) else \
                    n.func.value if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and n.func.attr.endswith("_") else None
                while isinstance(target, ast.Subscript):
                    target = target.value
                if isinstance(target, ast.Attribute) and target.attr == attr and isinstance(target.value, ast.Name) \
                        and target.value.id == self_name:
                    return True
    return False


def counter_source(index: ast.expr, ctx, depth: int = 0) -> str | None:
    """The counter a Python index is computed from, through locals, arithmetic and calls (`frame_of(t)`,
    `min(int(self.frame * rate), n - 1)`): a number on self the step advances (`self.frame += 1`), or, in an
    inline range, a Python number from before the range that changes between iterations (a step counter)."""
    if depth > 4:
        return None
    if is_self_attr(index, ctx.self_name):
        return f"{ctx.self_name}.{index.attr}" if ctx.holds_counter(index.attr) else None
    if isinstance(index, ast.Name):
        if ctx.fn.numbers.get(index.id) or _advanced_counter(index.id, ctx):
            return index.id   # a step counter from before the range, advanced after it or by the range itself
        bound = [n.value for n in ctx.fn.nodes if isinstance(n, ast.Assign) and n.lineno < index.lineno
                 and any(isinstance(t, ast.Name) and t.id == index.id for t in n.targets)]
        return counter_source(bound[-1], ctx, depth + 1) if bound else None
    if isinstance(index, ast.Call):
        parts = [*index.args, *(k.value for k in index.keywords)]
    elif isinstance(index, ast.BinOp):
        parts = [index.left, index.right]
    elif isinstance(index, (ast.UnaryOp,)):
        parts = [index.operand]
    elif isinstance(index, ast.IfExp):
        parts = [index.body, index.orelse]
    else:
        return None
    return next((found for p in parts if (found := counter_source(p, ctx, depth + 1))), None)


def _advanced_counter(name: str, ctx) -> bool:
    """`frame = 0` before an inline range, `frame += 1` in it: a Python number the range advances from its
    own value by numbers and settings alone (a step counter carried to the next pass)."""
    start = ctx.fn.outer_values.get(name)
    if name not in ctx.fn.carried or not number_literal(start):
        return False
    updates = [n for n in ctx.fn.nodes if isinstance(n, (ast.Assign, ast.AugAssign)) and any(
        isinstance(t, ast.Name) and t.id == name for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    return bool(updates) and all(not any(isinstance(n, ast.Call) or isinstance(n, ast.Name) and n.id != name
                                         and ctx.is_data(n) for n in ast.walk(u.value)) for u in updates)


def _state_driven(node: ast.Subscript, parts: list[ast.expr], ctx):
    """`self.clip[index]` with `index` computed from a counter: the lookup is state-driven."""
    counter = next((c for p in parts if not isinstance(p, ast.Slice) and (c := counter_source(p, ctx))), None)
    if counter is None or not loaded_once(node.value, ctx) or ctx.only_logged(node):
        return
    yield Hit(node, f"`{show(node)}` looks up `{show(node.value)}`, a table loaded before the step, at an index "
                    f"computed from the counter `{counter}` (a state-driven lookup): the index is a Python number, "
                    "so the export keeps the entry of the traced call and replays it on every later one",
              f"make the looked-up entry (or the table and the counter as a tensor) an input of the exported step: "
              f"index the table on the host with `{counter}` and pass the row in")


def _loaded_table(node: ast.Subscript, parts: list[ast.expr], ctx):
    """`self.bins[idx]` with `self.bins = np.linspace(-1, 1, 256)` bound only by the constructor and `idx`
    computed from pipeline data: a plain NumPy table read at a traced index, like a module constant table."""
    computed = next((p for p in parts if not isinstance(p, ast.Slice) and from_data(p, ctx)), None)
    if computed is None or not is_self_attr(node.value, ctx.self_name) or ctx.cls is None \
            or not loaded_once(node.value, ctx) or not _plain_table(node.value, ctx) or ctx.only_logged(node):
        return
    yield Hit(node, f"`{show(node)}` indexes `{show(node.value)}`, a plain NumPy table the constructor builds, with "
                    f"`{show(computed)}`, computed from pipeline data: the table reads the index as plain numbers, "
                    "so the export keeps the entry chosen while tracing",
              f"keep the table as a tensor (`torch.as_tensor(...)`, a registered buffer) and gather from it")


def _plain_table(table: ast.Attribute, ctx) -> bool:
    """Is every binding of `self.<attr>` a NumPy call or a literal of numbers (no tensor, no loaded object)?"""
    values = [v for klass in ctx.project.mro(ctx.cls) for _, v in klass.attr_values.get(table.attr, ())]
    return bool(values) and all(number_literal(v) or isinstance(v, ast.Call)
                                and (ctx.call_name(v) or "").startswith("numpy.") for v in values)


def check(node: ast.Subscript, ctx):
    if not isinstance(node.ctx, ast.Load):
        return
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if not isinstance(node.value, ast.Name) or not constant_table(node.value.id, ctx):
        found = list(_state_driven(node, parts, ctx))
        yield from found or _loaded_table(node, parts, ctx)
        return
    computed = next((p for p in parts if not isinstance(p, ast.Slice) and from_data(p, ctx)), None)
    if computed is None or not constant_table(node.value.id, ctx) or ctx.only_logged(node):
        return
    yield Hit(node, f"`{show(node)}` indexes the constant table `{node.value.id}` with `{show(computed)}`, computed "
                    "from pipeline data: indexing a Python list or a plain NumPy array reads the index as plain "
                    "numbers, so the export keeps the entry chosen while tracing",
              f"gather from the table as a tensor (`torch.as_tensor({node.value.id})[index]`), or let `generate` "
              "write the twin (`twin_take`)")


RULE = Rule(
    code="LCM106", name="constant-table-index", category="scalar-extraction", severity="error",
    summary="a constant table indexed by pipeline data, or a table loaded before the step read at a counter-derived index",
    what="Flags reads of a module-level constant table, a list or tuple literal of numbers or a NumPy array built "
         "from literals (`np.array([[0.4, 0.0], [0.2, 0.6]])`), at an index computed from pipeline data: a "
         "discrete action picking a command (`COMMANDS[int(q.argmax())]`), a grid cell computed from a traced "
         "position (`HEIGHTS[ix, iy]`). Also a state-driven lookup: a table loaded before the step (an attribute of "
         "self only the constructor binds, `self.clip = np.load(path)`; in an inline range a value from before the "
         "range that is no number and not carried) read at an index computed from a counter (a number on self the "
         "step advances, `self.frame += 1`; in an inline range a step counter from before it, or one the range "
         "advances), through locals, arithmetic and calls (`idx = frame_of(t)`, `min(int(self.frame * rate), "
         "n - 1)`); and a plain NumPy table only the constructor builds (`self.bins = np.linspace(-1, 1, 256)`) "
         "read at an index computed from pipeline data.",
    why="The table is a plain Python or NumPy value: its `__getitem__` converts a traced index to a plain number "
        "(`__index__`, `__array__`), so LEAPP records no gather and the entry seen while tracing becomes a "
        "constant of the export. Nothing is logged. A counter-derived index is a Python number: the lookup runs "
        "eagerly and the row of the traced call is a constant of the export (checked with the installed leapp "
        "0.7.2: `x + TABLE[self.t % 10]` with `self.t += 1` traces silently, validation passes the first sample "
        "and reports a mismatch on every later one).",
    fix="Gather from the table as a tensor or a traced array (`torch.as_tensor(TABLE)[index]`); `generate` writes "
        "a twin that does it (`twin_take`).",
    example="action = int(q_values.argmax())\ncommand = DRIVE[action]",
    fixed_example="action = q_values.argmax()\ncommand = torch.as_tensor(DRIVE)[action]",
    node_types=(ast.Subscript,), check=check,
    valid=(
        "import numpy as np\nGAINS = np.array([1.0, 2.0])\ndef step(obs):\n    return obs * GAINS[0]\n",
        "LIMITS = [0.5, 1.0]\ndef step(obs, cfg):\n    return obs * LIMITS[cfg.mode]\n",
        "import numpy as np\ndef step(obs, table):\n    return table[int(obs.argmax())]\n",
        # a buffer the class fills at the counter's slot is state, not a table loaded once
        "import numpy as np\nclass S:\n    def __init__(self):\n        self.obs = np.zeros((8, 3))\n        self.t = 0\n"
        "    def add(self, x):\n        self.obs[self.t] = x\n    def step(self, x):\n        self.t += 1\n"
        "        return x + self.obs[self.t % 8]\n",
        # a table the constructor loads, read at a setting's index: the same entry on every call
        "import numpy as np\nclass P:\n    def __init__(self, path, k):\n        self.ref = np.load(path)\n"
        "        self.k = k\n    def step(self, obs):\n        return obs + self.ref[self.k]\n",
    ),
    invalid=(
        # a NumPy table the constructor builds, read at an index the data decides
        "import numpy as np\nclass D:\n    def __init__(self):\n        self.bins = np.linspace(-1, 1, 256)\n"
        "    def step(self, logits):\n        idx = logits.argmax(-1).numpy()\n"
        "        return self.bins[idx]  # error\n",
        # a table the constructor loads, read at an index computed from a counter the step advances
        "import numpy as np\nclass P:\n    def __init__(self, path):\n        self.ref = np.load(path)\n"
        "        self.t = 0\n    def step(self, obs):\n        self.t += 1\n"
        "        return obs + self.ref[self.t % 50]  # error\n",
        "import numpy as np\nDRIVE = np.array([[0.4, 0.0], [0.2, 0.6]])\ndef step(q):\n"
        "    return DRIVE[int(q.argmax())]  # error\n",
        "import numpy as np\nHEIGHTS = np.zeros((4, 4))\ndef step(pos):\n    ix = np.floor(pos / 0.5).astype(int)\n"
        "    return HEIGHTS[ix[0], ix[1]]  # error\n",
    ),
)
