"""A torch buffer the step writes at the same places on every call is traced, not frozen (LCM703's exception).

LEAPP 0.7.2 fact (checked with the installed package, tests/test_leapp_torch_buffer.py): writing traced values
into a torch tensor allocated from a shape before tracing (`self.clock = torch.zeros(n, 4)` in a constructor, a
buffer allocated before an inline range's loop) is recorded in the graph. The export validates on new samples when
every call writes the same places (all columns in a `for i in range(4)` loop, or only some: the others keep the
allocation's constants on every call). It fails when the step reads what an earlier call wrote (a history: LCM701)
or when the places written change between calls. So a write into such a buffer is no finding when the places are
fixed for every call: constant indices and slice bounds, full slices, and loop variables of `range(...)` over
settings, the write made on every call (no `if`, `while` or `try` around it), and the function reads the buffer
only after it.
"""
from __future__ import annotations

import ast

_TORCH_ALLOCATORS = frozenset(f"torch.{fn}" for fn in ("zeros", "ones", "empty", "full", "eye", "zeros_like",
                                                       "ones_like", "empty_like", "full_like"))


def torch_allocation(value: ast.expr | None, ctx) -> bool:
    """`torch.zeros(n, 4, device=d)`, also moved or cast (`.to(device)`, `.float()`)."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in ("to", "float", "cuda", "cpu", "double", "contiguous"):
        value = value.func.value
    if not isinstance(value, ast.Call):
        return False
    name = ctx.project.qualify(value.func, ctx.module)
    return bool(name) and ctx.project.external_name(name) in _TORCH_ALLOCATORS \
        and not any(ctx.is_data(a) and not ctx.is_shape(a) for a in value.args if not _like_source(value, a))


def _like_source(call: ast.Call, arg: ast.expr) -> bool:
    return bool(call.args) and arg is call.args[0] and isinstance(call.func, ast.Attribute) \
        and call.func.attr.endswith("_like")


def traced_in_place(node: ast.Assign | ast.AugAssign, target: ast.Subscript, bindings: list, ctx) -> bool:
    """Is the write `node` into a buffer whose every binding (`bindings`) is a torch allocation, at places fixed
    for every call, before any read of the buffer in this function?"""
    if isinstance(node, ast.AugAssign) or not bindings or not all(torch_allocation(v, ctx) for v in bindings):
        return False
    loops = _enclosing_loops(node, ctx)
    if loops is None:
        return False
    counters = {loop.target.id for loop in loops}
    if not all(_fixed(e, counters, ctx) for e in _positions(target)):
        return False
    root = _root(target)
    inside = {id(n) for n in ast.walk(node.value)}
    written = {id(_root(t)) for n in ctx.fn.nodes if isinstance(n, ast.Assign) for t in n.targets
               if isinstance(t, ast.Subscript)}   # `buf[:, 0:3] = v` above is another write, not a read
    return not any(_same(n, root) and id(n) not in written and (n.lineno < node.lineno or id(n) in inside)
                   for n in ctx.fn.nodes)   # read before the write: what an earlier call left (LCM701)


def _same(n: ast.AST, root: ast.expr) -> bool:
    if isinstance(root, ast.Name):
        return isinstance(n, ast.Name) and n.id == root.id
    return isinstance(n, ast.Attribute) and isinstance(root, ast.Attribute) and n.attr == root.attr \
        and isinstance(n.value, ast.Name) and isinstance(root.value, ast.Name) and n.value.id == root.value.id


def _root(target: ast.expr) -> ast.expr:
    while isinstance(target, ast.Subscript):
        target = target.value
    return target


def _positions(target: ast.expr) -> list[ast.expr]:
    out = []
    while isinstance(target, ast.Subscript):
        index = target.slice
        out += list(index.elts) if isinstance(index, ast.Tuple) else [index]
        target = target.value
    return out


def _fixed(e: ast.expr, counters: set[str], ctx) -> bool:
    if isinstance(e, ast.Slice):
        return all(part is None or _fixed(part, counters, ctx) for part in (e.lower, e.upper, e.step))
    if isinstance(e, ast.Constant):
        return e.value is Ellipsis or isinstance(e.value, int) and not isinstance(e.value, bool)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return _fixed(e.operand, counters, ctx)
    return isinstance(e, ast.Name) and e.id in counters


def _enclosing_loops(node: ast.AST, ctx) -> list | None:
    """The `for v in range(<settings>)` loops around `node` up to the function body, or None when anything else
    (an `if`, a `while`, a `try`, another loop) decides whether the write runs."""
    parents = ctx.fn.walks.get("parents") or {id(c): p for p in ctx.fn.nodes for c in ast.iter_child_nodes(p)}
    loops = []
    parent = parents.get(id(node))
    while parent is not None and parent is not ctx.fn.node:
        if isinstance(parent, ast.For) and isinstance(parent.target, ast.Name) and not parent.orelse \
                and _settings_range(parent.iter, ctx) and not any(isinstance(n, (ast.Break, ast.Continue))
                                                                  for n in ast.walk(parent)):
            loops.append(parent)
        elif not isinstance(parent, (ast.With, ast.AsyncWith)):
            return None
        parent = parents.get(id(parent))
    return loops


def _settings_range(iterable: ast.expr, ctx) -> bool:
    """`range(4)`, `range(self.num_leg)`: a range whose bounds are no pipeline data nor a value the step counts."""
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"
            and not iterable.keywords):
        return False
    for arg in iterable.args:
        for n in ast.walk(arg):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == ctx.self_name \
                    and ctx.holds_counter(n.attr):
                return False
        if ctx.is_data(arg) and not ctx.is_shape(arg):
            return False
    return True
