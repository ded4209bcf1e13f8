import ast

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


def check(node: ast.Subscript, ctx):
    if not isinstance(node.ctx, ast.Load) or not isinstance(node.value, ast.Name):
        return
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
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
    summary="a constant table (list of numbers, NumPy array of literals) indexed by pipeline data",
    what="Flags reads of a module-level constant table, a list or tuple literal of numbers or a NumPy array built "
         "from literals (`np.array([[0.4, 0.0], [0.2, 0.6]])`), at an index computed from pipeline data: a "
         "discrete action picking a command (`COMMANDS[int(q.argmax())]`), a grid cell computed from a traced "
         "position (`HEIGHTS[ix, iy]`).",
    why="The table is a plain Python or NumPy value: its `__getitem__` converts a traced index to a plain number "
        "(`__index__`, `__array__`), so LEAPP records no gather and the entry seen while tracing becomes a "
        "constant of the export. Nothing is logged.",
    fix="Gather from the table as a tensor or a traced array (`torch.as_tensor(TABLE)[index]`); `generate` writes "
        "a twin that does it (`twin_take`).",
    example="action = int(q_values.argmax())\ncommand = DRIVE[action]",
    fixed_example="action = q_values.argmax()\ncommand = torch.as_tensor(DRIVE)[action]",
    node_types=(ast.Subscript,), check=check,
    valid=(
        "import numpy as np\nGAINS = np.array([1.0, 2.0])\ndef step(obs):\n    return obs * GAINS[0]\n",
        "LIMITS = [0.5, 1.0]\ndef step(obs, cfg):\n    return obs * LIMITS[cfg.mode]\n",
        "import numpy as np\ndef step(obs, table):\n    return table[int(obs.argmax())]\n",
    ),
    invalid=(
        "import numpy as np\nDRIVE = np.array([[0.4, 0.0], [0.2, 0.6]])\ndef step(q):\n"
        "    return DRIVE[int(q.argmax())]  # error\n",
        "import numpy as np\nHEIGHTS = np.zeros((4, 4))\ndef step(pos):\n    ix = np.floor(pos / 0.5).astype(int)\n"
        "    return HEIGHTS[ix[0], ix[1]]  # error\n",
    ),
)
