"""What a function does with the items of a NumPy array (shared by the array-unpack rule): used as numbers,
passed on into NumPy calls, a name bound to a container, an array with several axes."""
import ast

from leapp_codemod.knowledge.libraries import FOREIGN_ROOTS


def bound_to_container(value: ast.expr, ctx) -> bool:
    """A name some assignment in the function binds to a list, set, dict or tuple display or comprehension."""
    containers = (ast.List, ast.ListComp, ast.Set, ast.SetComp, ast.Dict, ast.DictComp, ast.Tuple)
    return isinstance(value, ast.Name) and any(
        isinstance(n, ast.Assign) and isinstance(n.value, containers)
        and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets) for n in ctx.fn.nodes)


# Methods only a mapping has: a value they are called on is a dict, not an array.
MAPPING_METHODS = frozenset({"keys", "items", "values", "get", "setdefault", "popitem"})


def keyed_mapping(value: ast.expr, ctx) -> bool:
    """Does the function use `value` as a mapping: index it with a string (`obs["pc"]`), call a mapping's
    method on it (`obs.items()`), or index it with the very name a loop over it binds (`for k in obs: obs[k]`)?
    Iterating a mapping yields its keys (strings the code sets), never the items of an array."""
    text = ast.unparse(value)
    loop_names = {t.id for n in ctx.fn.nodes if isinstance(n, (ast.For, ast.comprehension))
                  and isinstance(n.target, ast.Name) and ast.unparse(n.iter) == text for t in [n.target]}
    for n in ctx.fn.nodes:
        if isinstance(n, ast.Subscript) and ast.unparse(n.value) == text:
            key = n.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str) \
                    or isinstance(key, ast.Name) and key.id in loop_names and _compared_with_string(key.id, ctx):
                return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in MAPPING_METHODS \
                and ast.unparse(n.func.value) == text:
            return True
    return False


def _compared_with_string(name: str, ctx) -> bool:
    """`k != "pc"`, `k in ("pc", "state")`, `k.startswith("cam")`: the loop's name holds a string key."""
    for n in ctx.fn.nodes:
        if isinstance(n, ast.Compare) and isinstance(n.left, ast.Name) and n.left.id == name:
            for other in n.comparators:
                elts = other.elts if isinstance(other, (ast.Tuple, ast.List, ast.Set)) else [other]
                if any(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in elts):
                    return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == name and n.func.attr in ("startswith", "endswith", "split", "lower"):
            return True
    return False


def many_dimensions(value: ast.expr, ctx) -> bool:
    """The function unpacks the array's shape into two or more names (`t, h, w, c = frames.shape`) or indexes it
    with two or more indices (`frames[:, 0]`)."""
    text = ast.unparse(value)
    for n in ctx.fn.nodes:
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Attribute) and n.value.attr == "shape" \
                and ast.unparse(n.value.value) == text \
                and any(isinstance(t, (ast.Tuple, ast.List)) and len(t.elts) > 1 for t in n.targets):
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Tuple) and len(n.slice.elts) > 1 \
                and ast.unparse(n.value) == text:
            return True
    return False


def used_as_numbers(names: set[str], ctx, through_calls: bool = False) -> bool:
    """An item is an operand of arithmetic, a comparison, or an argument of a NumPy or `math` function;
    for a fixed unpacking (`gas, turn = out`: scalars, not rows) also an argument a project helper computes with."""
    def is_item(e) -> bool:
        return isinstance(e, ast.Name) and e.id in names
    for n in ctx.fn.nodes:
        if isinstance(n, ast.BinOp) and (is_item(n.left) or is_item(n.right)) or \
                isinstance(n, ast.UnaryOp) and is_item(n.operand) or \
                isinstance(n, ast.Compare) and any(is_item(e) for e in (n.left, *n.comparators)):
            return True
        if isinstance(n, ast.Call) and _numeric_call(ctx.call_name(n), foreign=through_calls) \
                and any(_displayed(a, is_item) for a in n.args):
            return True   # `np.arctan2(y, x)`, `np.concatenate([v, [w]])`, `euler2mat(roll, pitch, yaw)`
        if through_calls and isinstance(n, ast.Call) and any(is_item(a) for a in n.args) \
                and callee_computes(n, ctx, is_item):
            return True   # `scale(speed, ...)`: a project helper does arithmetic on it
    return False


def _numeric_call(name: str | None, foreign: bool) -> bool:
    """A NumPy or `math` function, or (for the names of a fixed unpacking, which are scalars, not rows) one of a
    foreign numeric library (`transforms3d.euler.euler2mat(roll, pitch, yaw)`): it computes with the separate
    numbers it is given."""
    return bool(name) and (name.startswith(("numpy.", "math.")) or foreign and name.split(".", 1)[0] in FOREIGN_ROOTS)


def _displayed(arg: ast.expr, is_item) -> bool:
    """The item itself, or an item inside (nested) list or tuple displays (`[q[:3], [w]]`)."""
    if isinstance(arg, (ast.List, ast.Tuple)):
        return any(_displayed(e, is_item) for e in arg.elts)
    return is_item(arg)


def callee_computes(call: ast.Call, ctx, is_item, depth: int = 0) -> bool:
    """A project function the call runs uses the parameter an item is passed for as a number, itself or in a
    project function it hands the parameter on to (`euler2axangle(r, p, y)` calling `euler2quat`, which
    computes `ai /= 2.0`)."""
    for callee in ctx.resolve_call(call):
        params = callee.positional_params[1:] if callee.is_method and not isinstance(call.func, ast.Name) \
            else callee.positional_params
        passed = {params[i] for i, a in enumerate(call.args) if i < len(params) and is_item(a)}
        if not passed:
            continue
        if used_as_numbers_in(passed, callee.node):
            return True
        if depth < _MAX_HANDED_ON:
            inner = ctx.for_function(callee)
            handed = [n for n in ast.walk(callee.node) if isinstance(n, ast.Call)
                      and any(isinstance(a, ast.Name) and a.id in passed for a in n.args)]
            if any(callee_computes(n, inner, lambda e, p=passed: isinstance(e, ast.Name) and e.id in p, depth + 1)
                   for n in handed):
                return True
    return False


_MAX_HANDED_ON = 2


def used_as_numbers_in(names: set[str], node: ast.AST) -> bool:
    def is_item(e) -> bool:
        return isinstance(e, ast.Name) and e.id in names
    return any(isinstance(n, ast.BinOp) and (is_item(n.left) or is_item(n.right))
               or isinstance(n, ast.AugAssign) and is_item(n.target)
               or isinstance(n, ast.Compare) and any(is_item(e) for e in (n.left, *n.comparators))
               for n in ast.walk(node))


def items_reach_numpy(ctx, names: set[str]) -> bool:
    """Does a value computed from `names` (through plain assignments in the function) reach a `numpy.*` call,
    or get written into an array a `numpy.*` call made (`g = np.zeros(3); g[0] = 2 * w * z`)?"""
    assigns = [n for n in ctx.fn.nodes if isinstance(n, ast.Assign)]
    derived = set(names)
    for _ in range(4):
        before = len(derived)
        for node in assigns:
            if reads(node.value) & derived:
                derived |= {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if len(derived) == before:
            break
    numpy_buffers = {t.id for node in assigns for t in node.targets if isinstance(t, ast.Name)
                     and isinstance(node.value, ast.Call) and (ctx.call_name(node.value) or "").startswith("numpy.")}
    return any(isinstance(n, ast.Call) and (ctx.call_name(n) or "").startswith("numpy.")
               and any(reads(a) & derived for a in n.args) for n in ctx.fn.nodes) or any(
        isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in numpy_buffers
        and reads(node.value) & derived for node in assigns for t in node.targets)   # `g[0] = 2 * w * z`


def reads(expr: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
