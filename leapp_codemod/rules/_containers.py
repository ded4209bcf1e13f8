"""The emptiness of a Python container held on self (`if not self.queue:`, `if len(self.frames) == 0:`): a test
of its length, a Python number, never of a tensor's values. Shared by the branch rules."""
import ast

from leapp_codemod.analysis.infer.context import is_self_attr

_CONTAINER_CALLS = frozenset({"list", "dict", "set", "tuple", "deque", "OrderedDict", "defaultdict"})
_CONTAINER_LITERALS = (ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set, ast.SetComp, ast.Tuple)


def _emptiness_operand(test: ast.expr) -> ast.expr | None:
    """`x` of `x`, `not x`, `len(x)`, `len(x) == 0`, `len(x) > 0`, `len(x) != 0`, `len(x) >= 1`, `0 < len(x)`."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if isinstance(left, ast.Constant):
            left, right = right, left
        if not (isinstance(right, ast.Constant) and right.value in (0, 1) and not isinstance(right.value, bool)):
            return None
        if right.value == 1 and not isinstance(test.ops[0], (ast.GtE, ast.Lt)):
            return None
        test = left
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "len" \
            and len(test.args) == 1:
        test = test.args[0]
    return test


def _builds_container(value: ast.expr) -> bool:
    if isinstance(value, _CONTAINER_LITERALS):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Mult, ast.Add)):
        return _builds_container(value.left) or _builds_container(value.right)
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name in _CONTAINER_CALLS
    return False


def held_container_emptiness(test: ast.expr, ctx) -> str | None:
    """For a test of the emptiness of `self.<attr>`, every binding of which in the class, its bases and
    subclasses builds a Python container: "filled" when the pipeline fills it with its data (empty on the first
    call only: state that changes between calls), "held" otherwise (its length is the host's business: a
    queue a callback fills, a list of names from the settings). None for any other test."""
    operand = _emptiness_operand(test)
    if operand is None or not is_self_attr(operand, ctx.self_name) or ctx.cls is None:
        return None
    family = ctx.project.mro(ctx.cls)
    values = [v for klass in family for _, v in klass.attr_values.get(operand.attr, ())]
    if not values or not all(_builds_container(v) for v in values):
        return None
    filled = ctx.self_attr_is_data(operand.attr) or any(
        operand.attr in ctx.facts.container_attrs.get(klass.id, ()) for klass in family)
    return "filled" if filled else "held"
