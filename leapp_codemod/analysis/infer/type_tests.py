"""Questions about types and structure an expression answers: `isinstance` tests, container narrowing,
NumPy-held attributes (read by the taint questions and the modules that share them)."""
from __future__ import annotations

import ast

from leapp_codemod.knowledge.vocab import (META_ATTRS, NDARRAY_RESULT_METHODS, NUMPY_ALLOCATORS, SHAPE_ATTRS,
                                          SHAPE_METHODS, TYPE_QUERIES)

# Views of a mapping's entries: their length is the number of keys, which the code sets.
ENTRY_VIEWS = frozenset({"keys", "values", "items", "get_keys"})
# Type names an `isinstance` test can name for pipeline data (an array, a tensor, a NumPy scalar, anything).
ARRAY_TYPE_NAMES = frozenset({"ndarray", "Tensor", "generic", "number", "floating", "integer", "Number", "object",
                              "Any", "TracedTensor", "?", "Sequence", "Collection", "Iterable"})


_TYPE_BUILTINS = frozenset({"isinstance", "issubclass", "hasattr", "callable"})


def type_answer(e: ast.expr, ctx) -> bool:
    """Is `e` built only of questions about types or structure (see `is_type_predicate`)?"""
    if isinstance(e, ast.Constant):
        return isinstance(e.value, bool)
    if isinstance(e, ast.BoolOp):
        checked: set[str] = set()  # `isinstance(x, list) and len(x) > 0`: the length of a Python container
        for v in e.values:
            if not (type_answer(v, ctx) or _container_length_test(v, checked)):
                return False
            pos, _neg = type_tests(v).get(_subject(v), (set(), set()))
            if pos and not pos & ARRAY_TYPE_NAMES:
                checked.add(_subject(v))
        return True
    if isinstance(e, ast.Call) and ctx.builtin(e) in ("all", "any") and len(e.args) == 1 \
            and isinstance(e.args[0], (ast.GeneratorExp, ast.ListComp)):
        return type_answer(e.args[0].elt, ctx)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return type_answer(e.operand, ctx) or _structure(e.operand)
    if isinstance(e, ast.Compare):
        if all(isinstance(op, (ast.Is, ast.IsNot)) for op in e.ops):
            return True
        operands = (e.left, *e.comparators)
        return any(_structure(x) for x in operands) and all(
            _structure(x) or isinstance(x, (ast.Constant, ast.Name, ast.Attribute)) or isinstance(x, ast.Tuple)
            and not x.elts for x in operands)
    if isinstance(e, ast.Call):
        if ctx.builtin(e) in _TYPE_BUILTINS or ctx.call_name(e) in TYPE_QUERIES:
            return True
        callees = ctx.resolve_call(e)
        return bool(callees) and all(ctx.is_type_predicate(c) for c in callees)
    return False


def _subject(test: ast.expr) -> str:
    found = _isinstance_test(test)
    return found[0] if found else ""


def _container_length_test(e: ast.expr, checked: set[str]) -> bool:
    """`len(x) > 0` where an earlier `isinstance` of the same `and` made `x` a Python container."""
    return isinstance(e, ast.Compare) and any(
        isinstance(x, ast.Call) and isinstance(x.func, ast.Name) and x.func.id == "len" and len(x.args) == 1
        and isinstance(x.args[0], ast.Name) and x.args[0].id in checked for x in (e.left, *e.comparators))


SCALAR_TYPE_NAMES = frozenset({"Number", "number", "bool_", "int", "float", "bool", "complex", "Real", "Integral",
                               "integer", "floating", "str", "bytes"})


def scalar_predicate(fn) -> bool:
    """`def _is_number(v): return isinstance(v, Number | np.number)`: one return, an isinstance test of the
    parameter naming scalar types only."""
    returns = [n.value for n in fn.nodes if isinstance(n, ast.Return)]
    if len(returns) != 1 or returns[0] is None:
        return False
    found = _isinstance_test(returns[0])
    return bool(found) and bool(found[1]) and found[1] <= SCALAR_TYPE_NAMES


def built_value(value: ast.expr) -> bool:
    """A call that builds a value (`torch.from_numpy(stats.mean(0))`), not a container a step could grow."""
    return isinstance(value, ast.Call) and not (isinstance(value.func, ast.Name) and value.func.id in GROWABLE) \
        and not (isinstance(value.func, ast.Attribute) and value.func.attr in GROWABLE)


GROWABLE = frozenset({"list", "dict", "set", "deque", "defaultdict", "OrderedDict"})


def _structure(e: ast.expr) -> bool:
    """`x.shape`, `x.ndim`, `x.dtype`, `x.numel()`: what a value is shaped like or made of."""
    if isinstance(e, ast.Attribute):
        return e.attr in SHAPE_ATTRS or e.attr in META_ATTRS or e.attr == "type" and _structure(e.value)
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in SHAPE_METHODS


def entries_call(e: ast.expr) -> bool:
    """`d.keys()`, `d.values()`, `d.items()`, `b.get_keys()`: one entry per key, set by the code."""
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in ENTRY_VIEWS


def _isinstance_test(node: ast.expr) -> tuple[str, set[str]] | None:
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
            and len(node.args) == 2 and isinstance(node.args[0], ast.Name)):
        return node.args[0].id, _type_names(node.args[1])
    return None


def type_tests(test: ast.expr) -> dict[str, tuple[set[str], set[str]]]:
    """Per name, the types a condition requires it to be and the types it requires it not to be:
    `isinstance(x, dict)`, `isinstance(x, A | B)`, `not isinstance(x, np.ndarray)`, also inside `and`."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for part in parts:
        negated = isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not)
        found = _isinstance_test(part.operand if negated else part)
        if found:
            pos, neg = out.setdefault(found[0], (set(), set()))
            (neg if negated else pos).update(found[1])
    return out


def _type_names(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Tuple):
        return {n for e in node.elts for n in _type_names(e)}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _type_names(node.left) | _type_names(node.right)
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.Name):
        return {node.id}
    return {"?"}


def parent_map(fn) -> dict[int, ast.AST]:
    """id(node) -> its parent, for the nodes of one function (built once per function)."""
    parents = fn.walks.get("parents")
    if parents is None:
        parents = fn.walks["parents"] = {id(c): p for p in fn.nodes for c in ast.iter_child_nodes(p)}
    return parents


def narrowed_to_containers(fn, name: str, node: ast.AST) -> bool:
    """Is `name` known, where `node` sits, to be a Python container or object rather than an array: an
    enclosing `if isinstance(name, dict): ...` (or an `and` chain holding that test before `node`)
    naming only types that are not arrays or tensors?"""
    for pos, neg in _enclosing_type_tests(fn, name, node):
        if pos and (not pos & ARRAY_TYPE_NAMES or neg & {"ndarray", "Tensor"}):
            return True
    return False


def narrowed_from_numpy(fn, name: str, node: ast.AST) -> bool:
    """Is `name` known, where `node` sits, not to be a NumPy array: an enclosing test that requires it to be
    of types none of which is an array or a NumPy scalar (`if isinstance(a, torch.Tensor): a.view(-1)`), or
    not to be an `ndarray`?"""
    for pos, neg in _enclosing_type_tests(fn, name, node):
        if pos and not pos & (ARRAY_TYPE_NAMES - TORCH_TYPE_NAMES) or "ndarray" in neg:
            return True
    return False


TORCH_TYPE_NAMES = frozenset({"Tensor", "TracedTensor"})


def _enclosing_type_tests(fn, name: str, node: ast.AST):
    """(required types, excluded types) of `name` by each test that holds where `node` sits: the test of an
    enclosing `if`/`while`/conditional expression whose body holds it, or the earlier operands of an `and`."""
    parents = parent_map(fn)
    child, parent = node, parents.get(id(node))
    while parent is not None:
        test = None
        body = parent.body if isinstance(parent, (ast.If, ast.IfExp, ast.While)) else None
        if body is not None and child is not parent.test and \
                (child is body or (isinstance(body, list) and child in body)):   # IfExp.body is one expression
            test = parent.test
        elif isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.And) and child in parent.values:
            test = ast.BoolOp(op=ast.And(), values=parent.values[:parent.values.index(child)])
        if test is not None and name in (found := type_tests(test)):
            yield found[name]
        child, parent = parent, parents.get(id(parent))


def empty_container(value: ast.expr) -> bool:
    """`[]`, `()`, `{}`, `list()`, `dict()`."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return not value.elts
    if isinstance(value, ast.Dict):
        return not value.keys
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "dict") \
        and not value.args and not value.keywords


def holds_dict(fn, iterable: ast.expr) -> bool:
    """`for k in obs:` where the function binds `obs` to a dict (`obs = {k: f(v) for ...}`): the loop walks
    the keys."""
    if not isinstance(iterable, ast.Name):
        return False
    return any(isinstance(n, ast.Assign) and isinstance(n.value, (ast.Dict, ast.DictComp))
               and any(isinstance(t, ast.Name) and t.id == iterable.id for t in n.targets) for n in fn.nodes)


def numpy_attr(project, cls, attr: str, allocators_only: bool = False) -> bool:
    """Does `self.<attr>` always hold a NumPy array: built by a NumPy call (with `allocators_only`, one that
    allocates a given size: `np.zeros`, `np.full`, ...), and otherwise only rebound to arithmetic on itself
    (`self.last = np.zeros(2)`, `self.last = self.last + step`)?"""
    key = ("numpy_attr", cls.id, attr, allocators_only)
    found = project.memo.get(key)
    if found is None:
        module = project.modules[cls.module]
        values = [v for _, v in cls.attr_values.get(attr, ())]
        built = [_numpy_call(project, module, v, allocators_only) for v in values]
        found = project.memo[key] = any(built) and all(b or _arithmetic_on(v, attr) for b, v in zip(built, values))
    return found


def _numpy_call(project, module, value: ast.expr, allocators_only: bool = False) -> bool:
    if not isinstance(value, ast.Call):
        return False
    name = project.external_name(project.qualify(value.func, module) or "")
    if allocators_only:
        return name in NUMPY_ALLOCATORS
    return name.startswith("numpy.") and not name.startswith("numpy.random") or _converted(value)


def _converted(value: ast.Call) -> bool:
    """`net(x).detach().numpy()`, `....numpy().squeeze()`, `....numpy().astype(np.float32)`: a tensor's NumPy
    conversion, and ndarray methods that return an array of it."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in NDARRAY_RESULT_METHODS:
        value = value.func.value
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "numpy" \
        and not value.args and not value.keywords


def _arithmetic_on(value: ast.expr, attr: str) -> bool:
    """`self.x + step`, `0.9 * self.x + 0.1 * y`: arithmetic that reads the attribute itself, and no calls."""
    return isinstance(value, ast.BinOp) and not any(isinstance(n, ast.Call) for n in ast.walk(value)) and any(
        isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name) for n in ast.walk(value))
