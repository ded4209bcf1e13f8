import ast

from leapp_codemod.rules._helpers import show
from leapp_codemod.rules._text_values import text_test
from leapp_codemod.rules.base import Hit, Rule



def _converted(node, ctx) -> bool:
    """Does Python turn pipeline data into a bool here: the operand of `not`, or any operand of `and`/`or` but
    the last (whose value is returned as it is)?"""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _tested(node.operand, ctx) or _converted(node.operand, ctx)
    if isinstance(node, ast.BoolOp):
        return any(_tested(v, ctx) for v in node.values[:-1]) or any(_converted(v, ctx) for v in node.values)
    return False


def _tested(operand: ast.expr, ctx) -> bool:
    """Pipeline data whose truth Python takes: not a name that already holds a Python bool (`has_x = not a`
    earlier: converted, and reported, there)."""
    if isinstance(operand, ast.Name):
        bound = ctx.fn.assigned(operand.id)
        if bound and all(_boolean(v) for v in bound):
            return False
    return ctx.is_data(operand)


def _boolean(value: ast.expr) -> bool:
    """`not a`, `(not a) or (not b)`: an expression whose value is a Python bool whatever its operands."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        return True
    return isinstance(value, ast.BoolOp) and all(_boolean(v) for v in value.values)


def _toggle(node, ctx) -> bool:
    """`self.on = not self.on`, `flags[i] = not flags[i]`: a Python flag flipped in place, not a tensor."""
    if not isinstance(node, ast.UnaryOp):
        return False
    operand = ast.dump(node.operand, annotate_fields=False)
    return any(isinstance(n, ast.Assign) and n.value is node and len(n.targets) == 1
               and ast.dump(n.targets[0], annotate_fields=False).replace("Store", "Load") == operand
               for n in ctx.fn.nodes if isinstance(n, ast.Assign) and n.lineno == node.lineno)


def _in_test(node, ctx) -> bool:
    """Is `node` inside a larger `not`/`and`/`or` (reported there), or inside the test of an `if`, `while`,
    `assert`, conditional expression or comprehension filter (LCM201 and this rule's own branches report it)?"""
    where = _span(node)
    return any(start <= where[0] and where[1] <= end and (start, end) != where
               or (start, end) == where and kind == "test" for start, end, kind in _bool_contexts(ctx.fn))


def _span(node) -> tuple[tuple[int, int], tuple[int, int]]:
    return (node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0)


def _bool_contexts(fn) -> list:
    """(start, end, kind) of the tests (`if`/`while`/`assert`/ternary/comprehension filters, kind 'test') and
    of the `not`/`and`/`or` expressions (kind 'bool') of one function, found once."""
    found = fn.walks.get("bool_contexts")
    if found is None:
        found = []
        for n in fn.nodes:
            if isinstance(n, (ast.If, ast.While, ast.Assert, ast.IfExp)):
                found.append((*_span(n.test), "test"))
            elif isinstance(n, ast.comprehension):
                found += [(*_span(c), "test") for c in n.ifs]
            elif isinstance(n, ast.BoolOp) or isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
                found.append((*_span(n), "bool"))
        fn.walks["bool_contexts"] = found
    return found


# Comparisons that answer with a Python bool, never a tensor: on pipeline data the answer is fixed while tracing.
BOOL_ANSWERS = frozenset({"torch.equal", "torch.allclose", "torch.is_nonzero", "numpy.array_equal",
                          "numpy.allclose", "numpy.array_equiv"})
BOOL_METHODS = frozenset({"equal", "allclose"})


def _bool_answer(node: ast.Call, ctx) -> bool:
    """`torch.equal(key, value)`, `a.allclose(b)` on pipeline data: a Python bool by contract."""
    name = ctx.call_name(node)
    if name in BOOL_ANSWERS:
        return ctx.args_data(node)
    func = node.func
    return isinstance(func, ast.Attribute) and func.attr in BOOL_METHODS and len(node.args) >= 1 \
        and not name and ctx.is_data(func.value) and not ctx.is_numpy(func.value)


def check(node, ctx):
    if isinstance(node, ast.Call) and _bool_answer(node, ctx) and not _in_test(node, ctx):
        yield Hit(node, f"`{show(node)}` answers with a Python bool about pipeline data; the export keeps the "
                        "answer seen while tracing",
                  "compare with tensor operations that stay in the graph (`(a == b).all()`, "
                  "`torch.isclose(a, b).all()`) and select with `torch.where`")
        return
    if isinstance(node, (ast.BoolOp, ast.UnaryOp)):
        if (isinstance(node, ast.BoolOp) or isinstance(node.op, ast.Not)) and _converted(node, ctx) \
                and not _in_test(node, ctx) and not _toggle(node, ctx):
            yield Hit(node, f"`{show(node)}` turns pipeline data into a Python bool (`not`/`and`/`or` call "
                            "`bool()` on it); the export keeps the value seen while tracing",
                      "compute the flag with tensor operations (`~mask`, `torch.logical_and/or`, `torch.where`) "
                      "and keep it a tensor")
    elif isinstance(node, ast.IfExp) and ctx.is_data(node.test) and not ctx.decided_by_settings(node) \
            and not text_test(node.test, ctx):
        yield Hit(node, f"conditional expression `{show(node)}` picks a value with Python on pipeline data",
                  "use `torch.where(cond, a, b)` so both outcomes stay in the graph")
    elif isinstance(node, ast.comprehension):
        for cond in node.ifs:
            if ctx.is_data(cond):
                yield Hit(cond, f"comprehension filter `if {show(cond)}` on pipeline data fixes the kept elements",
                          "use a boolean mask with `torch.where` instead of filtering in Python")
    elif isinstance(node, ast.Call) and ctx.builtin(node) in ("min", "max") and len(node.args) >= 2 \
            and any(ctx.is_data(a) for a in node.args):
        name = ctx.builtin(node)
        yield Hit(node, f"Python `{name}()` in `{show(node)}` compares pipeline data with Python control flow",
                  f"use `torch.{'minimum' if name == 'min' else 'maximum'}` or `torch.clamp`")


RULE = Rule(
    code="LCM202", name="tensor-select", category="tensor-branch", severity="error",
    summary="ternary, comprehension filter, Python `min`/`max` or a bool-valued comparison decided by pipeline data",
    what="Flags `a if cond else b`, comprehension `if` filters and the builtins `min`/`max` when the decision "
         "depends on pipeline data; also `not`/`and`/`or` applied to pipeline data outside a test "
         "(`moving = not torch.all(v == 0)`, `return ready and x.any()`), which turn it into a Python bool; and "
         "comparisons that answer with a Python bool whatever their use (`same = torch.equal(k, v)`, "
         "`torch.allclose`, `np.array_equal`), reported where they are called unless a test already holds them.",
    why="All three evaluate `bool(tensor)` in Python. LEAPP records only the outcome seen while tracing, so the "
        "export always returns the same branch. LEAPP's compile-time validation misses it whenever the traced "
        "samples agree (corpus-style gain schedules pass validation and fail on fresh inputs). `torch.equal` and "
        "`torch.allclose` on traced tensors return a Python bool, so whatever they decide is fixed at the traced "
        "outcome (the export fails validation; `(a == b).all()` with `torch.where` passes: checked with the "
        "installed leapp 0.7.2).",
    fix="Select with `torch.where(cond, a, b)`; replace `min`/`max` with `torch.minimum`/`torch.maximum`/`torch.clamp`.",
    example="gain = cfg.high if vel.norm() > cfg.switch else cfg.low",
    fixed_example="gain = torch.where(vel.norm() > cfg.switch, cfg.high, cfg.low)",
    node_types=(ast.IfExp, ast.comprehension, ast.Call, ast.BoolOp, ast.UnaryOp), check=check,
    valid=(
        "def step(obs, cfg):\n    gain = 1.0 if cfg.fast else 0.5\n    return obs * gain\n",
        "def step(obs, cfg):\n    return obs * max(cfg.a, cfg.b)\n",
        # the comparison stays a tensor
        "import torch\ndef step(k, v):\n    same = torch.isclose(k, v).all()\n    return torch.where(same, k, v)\n",
    ),
    invalid=(
        "def step(vel, cfg):\n    return 1.0 if vel.norm() > 0.5 else 0.2  # error\n",
        "def step(obs):\n    return max(obs.sum(), 0.0)  # error\n",
        "import torch\ndef step(vel):\n    still = not torch.any(vel != 0)  # error\n    return vel, still\n",
        # a bool-valued comparison, kept in a name and used later
        "import torch\ndef step(k, v):\n    same = torch.equal(k, v)  # error\n    out = k * 2\n"
        "    return out, same\n",
    ),
)
