"""Small helpers shared by rule modules."""
from __future__ import annotations

import ast

from leapp_codemod.knowledge.vocab import NUMPY_TABLE_BUILDERS, PYTHON_SEQUENCE_CALLS

_MAX_SHOWN = 60


def show(node: ast.AST) -> str:
    """The expression as source text, shortened for a one-line message."""
    try:
        text = ast.unparse(node)
    except (ValueError, TypeError, RecursionError):
        return "<expression>"
    text = " ".join(text.split())
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def condition_operands(test: ast.expr) -> list[ast.expr]:
    """The operands of a condition joined by `and`/`or`/`not` (`a > 1 and not b` -> `a > 1`, `b`)."""
    operands, stack = [], [test]
    while stack:
        e = stack.pop()
        if isinstance(e, ast.BoolOp):
            stack.extend(e.values)
        elif isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            stack.append(e.operand)
        else:
            operands.append(e)
    return operands


def enclosing_name(fn_qualname: str) -> str:
    return fn_qualname.rsplit(".", 1)[-1]


def is_negative_number(node: ast.expr | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float)) \
            and node.operand.value > 0
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and node.value < 0


def is_number(node: ast.expr | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return is_number(node.operand)
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def last_dimension(node: ast.expr, ctx, depth: int = 0) -> bool:
    """A dimension a pipeline fixes whatever the batch: the rank (`x.ndim`, `x.dim()`, `len(x.shape)`) or the
    last dimension (`x.shape[-1]`, `x.size(-1)`: an action dimension, a feature width) of pipeline data, a name
    bound only to one of those (`width = feats.shape[-1]`, `nd = len(x.shape)`), or arithmetic and tuples of
    them with numbers (`nd - 1`, `(1,) * (nd - 1) + (x.shape[-1],)`: a broadcast shape for per-feature
    statistics). The rank is fixed for a pipeline: its inputs have one layout, so a rank test or a shape built
    from the rank takes the same value on every call (a rank that does vary, one function fed 2-D and 3-D
    arrays by different callers, would still trace one arm per export, which the callers' own shapes decide)."""
    if isinstance(node, ast.Name):
        values = ctx.fn.assigned(node.id)
        if not values and node.id not in ctx.fn.params:
            return _unpacked_last(ctx.fn, node.id)
        return bool(values) and node.id not in ctx.fn.params and depth < 4 \
            and all(_fixed(v, ctx, depth + 1) for v in values)
    return _fixed(node, ctx, depth)


def _fixed(node: ast.expr, ctx, depth: int) -> bool:
    if _last(node) or _rank_length(node):
        return True
    if depth >= 4:
        return False
    if isinstance(node, ast.BinOp):
        parts = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp):
        parts = [node.operand]
    elif isinstance(node, ast.Tuple):
        parts = list(node.elts)
    else:
        return False
    fixed = [last_dimension(p, ctx, depth + 1) for p in parts]
    return any(fixed) and all(f or is_number(p) or _number_tuple(p) for f, p in zip(fixed, parts))


def _rank_length(node: ast.expr) -> bool:
    """`len(x.shape)`, `len(x.size())`: the rank."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
        and len(node.args) == 1 and _whole_shape(node.args[0])


def _number_tuple(node: ast.expr) -> bool:
    return isinstance(node, ast.Tuple) and all(is_number(e) for e in node.elts)


def _unpacked_last(fn, name: str) -> bool:
    """`B, T, C = x.size()` (or `= x.shape`) binding `name` as the last of the unpacked dimensions, and nothing
    else binding it: the feature width, fixed for the pipeline."""
    found = False
    for node in fn.nodes:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
        for target in targets:
            names = [e for e in ast.walk(target) if isinstance(e, ast.Name) and e.id == name]
            if not names:
                continue
            if not (isinstance(node, ast.Assign) and isinstance(target, ast.Tuple) and target.elts
                    and target.elts[-1] is names[0] and len(names) == 1
                    and not any(isinstance(e, ast.Starred) for e in target.elts) and _whole_shape(node.value)):
                return False
            found = True
    return found


def _whole_shape(value: ast.expr) -> bool:
    if isinstance(value, ast.Attribute):
        return value.attr == "shape"
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "size" \
        and not value.args and not value.keywords


def _minus_one(e: ast.expr) -> bool:
    return isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant) \
        and e.operand.value == 1


def _last(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "ndim"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("dim", "ndimension") and not node.args or (
            node.func.attr == "size" and len(node.args) == 1 and _minus_one(node.args[0]))
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return _minus_one(node.slice)
    return False


def filled_local_list(arg: ast.expr, ctx) -> bool:
    """A Python sequence filled with pipeline data: a local list built from literals and filled
    (`vals = []`, `vals.extend(state[k])`, `vals.append(x)`), a queue the step keeps on self
    (`self.frames`, `self.frames[cam]`): its elements are separate Python values, not one traced array. A field
    of a middleware message (`msg.ranges`) is not one: an array built from it is where the pipeline's input is
    made (the user declares the input there), not a value the trace loses."""
    if ctx.is_state_container(arg):
        return True
    if ctx.is_message_field(arg):
        return False
    if isinstance(arg, ast.Attribute) and ctx.is_data(arg) and held_python_list(arg, ctx):
        return True
    if isinstance(arg, ast.Call) and (ctx.builtin(arg) or ctx.call_name(arg)) in PYTHON_SEQUENCE_CALLS:
        return ctx.args_data(arg) or any(filled_local_list(a, ctx) for a in arg.args)
    if not isinstance(arg, ast.Name):
        return False
    values = ctx.fn.assigned(arg.id)
    if not values or not all(isinstance(v, (ast.List, ast.Tuple)) for v in values):
        values = _literal_before(arg, ctx)   # `a, b = [], []` ... `a = np.asarray(a)`: the list at the use
        if not values:
            return False
    return any(ctx.is_data(e) for v in values for e in v.elts) or any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend")
        and isinstance(n.func.value, ast.Name) and n.func.value.id == arg.id and ctx.args_data(n)
        for n in ctx.fn.nodes)


def _literal_before(name: ast.Name, ctx) -> list[ast.expr]:
    """The list/tuple literal `name` holds where it is read, when its last binding above that line makes one:
    `name = []` or a parallel `name, other = [], []` (a later `name = np.asarray(name)` rebinds it to an
    array, which is not the value read here). Empty when the last binding is anything else."""
    bindings = []
    for node in ctx.fn.nodes:
        if not isinstance(node, ast.Assign) or node.lineno >= name.lineno:
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == name.id:
                bindings.append((node.lineno, node.value))
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List)) \
                    and len(target.elts) == len(node.value.elts):
                bindings += [(node.lineno, v) for t, v in zip(target.elts, node.value.elts)
                             if isinstance(t, ast.Name) and t.id == name.id]
            elif isinstance(target, (ast.Tuple, ast.List)) and any(
                    isinstance(t, ast.Name) and t.id == name.id for t in ast.walk(target)):
                bindings.append((node.lineno, target))   # unpacked from a call: not a literal
    if not bindings:
        return []
    last = max(bindings, key=lambda b: b[0])[1]
    return [last] if isinstance(last, (ast.List, ast.Tuple)) and not _is_target(last) else []


def _is_target(e: ast.expr) -> bool:
    return isinstance(getattr(e, "ctx", None), ast.Store)


def held_python_list(attr: ast.Attribute, ctx) -> bool:
    """An attribute every assignment of which makes a Python list (`self.q = [0.0] * n`, `self.gyro = [0., 0.,
    0.]`), on self or on an object of a project class (`self.arm.joints.position`): code elsewhere fills its
    items one Python number at a time."""
    if isinstance(attr.value, ast.Name) and attr.value.id == ctx.self_name:
        owners = ctx.receiver_classes()
    else:
        owners = [c for c in (ctx.class_for_type(t) for t in ctx.types_of(attr.value)) if c is not None]
    values = [v for cls in owners for klass in ctx.project.mro(cls) for _, v in klass.attr_values.get(attr.attr, ())]
    return bool(values) and all(_makes_list(v) for v in values)


def _makes_list(value: ast.expr) -> bool:
    if isinstance(value, (ast.List, ast.ListComp)):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return isinstance(value.left, ast.List) or isinstance(value.right, ast.List)
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list"


def number_literal(node: ast.expr) -> bool:
    """A list or tuple literal of numbers, nested ones included (a constant table)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return len(node.elts) > 0 and all(number_literal(e) for e in node.elts)
    return is_number(node)


def numpy_constant(node: ast.expr, numpy_names: set[str], constants: set[str]) -> bool:
    """`node` computes an array from literals, names in `constants` and NumPy table builders only
    (`np.array([[...]])`, `np.deg2rad([10, 20])`, `np.linspace(0, 1, 5)`): nothing read at run time."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                    and func.value.id in numpy_names and func.attr in NUMPY_TABLE_BUILDERS):
                return False
        elif isinstance(sub, ast.Attribute):
            if not (isinstance(sub.value, ast.Name) and sub.value.id in numpy_names):
                return False
        elif isinstance(sub, ast.Name) and sub.id not in numpy_names and sub.id not in constants:
            return False
        elif isinstance(sub, (ast.Lambda, ast.Subscript, ast.Starred, ast.NamedExpr, ast.comprehension)):
            return False
    return True


_CONTAINER_MAKERS = frozenset({"list", "dict", "set", "deque", "OrderedDict", "defaultdict"})


def empty_container(value: ast.expr | None) -> bool:
    """`[]`, `{}`, `deque(maxlen=n)`, `defaultdict(list)`: a new container with nothing in it. Storing one
    (`self.hist[k] = deque(maxlen=4)` on the first call) sets up state; the stores of data into it are the writes."""
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return not value.elts
    if isinstance(value, ast.Dict):
        return not value.keys
    if not isinstance(value, ast.Call):
        return False
    name = value.func.id if isinstance(value.func, ast.Name) else value.func.attr \
        if isinstance(value.func, ast.Attribute) else None
    if name not in _CONTAINER_MAKERS or any(k.arg is None for k in value.keywords):
        return False
    factory = name == "defaultdict" and len(value.args) == 1 and isinstance(value.args[0], (ast.Name, ast.Attribute))
    return not value.args or factory
