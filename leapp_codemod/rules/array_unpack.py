import ast

from leapp_codemod.rules._array_uses import bound_to_container as _bound_to_container
from leapp_codemod.rules._array_uses import callee_computes
from leapp_codemod.rules._array_uses import items_reach_numpy as _items_reach_numpy
from leapp_codemod.rules._array_uses import keyed_mapping
from leapp_codemod.rules._array_uses import many_dimensions as _many_dimensions
from leapp_codemod.rules._array_uses import used_as_numbers as _used_as_numbers
from leapp_codemod.rules._element_math import element_in_arithmetic
from leapp_codemod.rules._reduced_element import reduced_element
from leapp_codemod.rules._helpers import is_number, show
from leapp_codemod.rules.base import Hit, Rule
from leapp_codemod.source.chains import counter_kind

# Builtins that hand their argument's items to a `for` target one by one (`enumerate` with the index first).
ITEM_WRAPPERS = frozenset({"enumerate", "reversed"})


def check(node: ast.AST, ctx):
    if isinstance(node, (ast.Assign, ast.AugAssign)) and _element_rewrite(node, ctx) and not ctx.only_logged(node):
        yield Hit(node, f"`{show(node)}` reads one element of a NumPy array of pipeline data as a NumPy scalar and "
                        "writes what it computes back into the array: the trace follows neither, so the element is "
                        "exported as the constant seen while tracing", _FIX)
        return
    if isinstance(node, ast.AugAssign):
        return
    read = _loop_element(node, ctx) if isinstance(node, ast.Assign) else None
    if read is not None and not ctx.only_logged(node):
        into = "a field, item by item" if isinstance(node.targets[0], ast.Attribute) else "Python arithmetic"
        yield Hit(node, f"`{show(node)}` reads `{show(read)}`, one element of a NumPy array of pipeline data per "
                        f"pass of the loop, into {into}: the element is a NumPy scalar the trace does not "
                        "follow, so what is computed from it is exported as the constant seen while tracing", _FIX)
        return
    if isinstance(node, ast.Assign):
        unpacked = [t for t in node.targets if isinstance(t, (ast.Tuple, ast.List))]
        if unpacked and _array_of_data(node.value, ctx, unpacked[0]) and not ctx.only_logged(node):
            names = ", ".join(show(e) for e in unpacked[0].elts)
            yield Hit(node, f"`{names} = {show(node.value)}` unpacks a NumPy array of pipeline data into Python "
                            "names: each one is a NumPy scalar the trace does not follow, so what is computed from "
                            "them is exported as a constant", _FIX)
        elif _outer_element(node, ctx) and not ctx.only_logged(node):
            yield Hit(node, f"`{show(node)}` takes one element of `{_outer_position(node)[0]}`, a value from before the "
                            "range, into a Python name: from a Python list or a NumPy array the element is a Python "
                            "number the trace does not follow, so what is computed from it is exported as a constant",
                      "start the range where the values are one array (or a tensor) and index it there "
                      "(`q[..., 1:4]`), or export the function that receives the array")
        elif (element := next((a for a in _parallel(node) if _element(a, ctx)), None)) is not None \
                and not ctx.only_logged(node):
            yield Hit(node, f"`{show(node)}` takes `{show(element.value)}`, one element of a NumPy array of pipeline "
                            f"data, into `{show(element.targets[0])}`: a NumPy scalar the trace does not follow, so "
                            "what is computed from it is exported as a constant", _FIX)
        elif _element(node, ctx) and not ctx.only_logged(node):
            into = "a Python name" if isinstance(node.targets[0], ast.Name) else "an attribute"
            yield Hit(node, f"`{show(node)}` takes one element of a NumPy array of pipeline data into {into}: "
                            "a NumPy scalar the trace does not follow, so what is computed from it is exported as a "
                            "constant", _FIX)
        elif (reduction := reduced_element(node, ctx)) is not None and not ctx.only_logged(node):
            yield Hit(node, f"`{show(node)}` takes one element of the NumPy array `{show(reduction)}` makes: the "
                            "reduction removed the axis, so of a batch of one the element is a single NumPy scalar "
                            "the trace does not follow, whether it is computed with or handed on",
                      "keep a one-element array (`[0:1]`, `.reshape(-1)`) or the tensor itself as the pipeline's "
                      "output, and take the number out after the pipeline call")
        elif (read := element_in_arithmetic(node, ctx, _numpy_vector)) is not None and not ctx.only_logged(node):
            yield Hit(node, f"`{show(node)}` computes with `{show(read)}`, one element of a NumPy array of pipeline "
                            "data whose other positions the function also reads: a NumPy scalar the trace does not "
                            "follow, so what is computed from it is exported as a constant", _FIX)
        return
    if isinstance(node, ast.Call):
        spread = _spread_into_python(node, ctx)
        if spread is not None and not ctx.only_logged(node):
            yield Hit(node, f"`{show(node)}` takes the items of `{show(spread)}`, a NumPy array of pipeline data, "
                            "into a Python container one by one: each is a NumPy scalar the trace does not follow",
                      _FIX)
            return
        passed = _elements_passed(node, ctx)
        if passed and not ctx.only_logged(node):
            what = "hand single elements" if len(passed) > 1 else "hands a single element"
            yield Hit(passed[0], f"`{', '.join(show(e) for e in passed)}` {what} of a NumPy array of "
                                 f"pipeline data to `{show(node.func)}` as separate arguments: each is a NumPy "
                                 "scalar the trace does not follow, so what the callee does with it is exported as "
                                 "a constant", "pass the array (or a slice of it, `w[0:2]`) and index it where it "
                                 "is used, or move the computation into torch ops on the tensor")
        return
    picked = _picked_in_comprehension(node, ctx) if isinstance(node, ast.comprehension) else None
    if picked is not None:
        yield Hit(picked, f"`{show(picked)}` picks single elements of a NumPy array of pipeline data into a Python "
                          "list: each is a NumPy scalar the trace does not follow", _FIX)
        return
    iterable, target = node.iter, node.target
    zipped = _zipped_array(iterable, target, ctx)
    if zipped is not None and not ctx.only_logged(iterable):
        yield Hit(iterable, f"iterating `{show(iterable)}` takes the items of `{show(zipped)}`, a NumPy array of "
                            "pipeline data, one by one: each is a NumPy scalar the trace does not follow", _FIX)
        return
    if isinstance(iterable, ast.Call) and ctx.builtin(iterable) in ITEM_WRAPPERS and len(iterable.args) == 1:
        if ctx.builtin(iterable) == "enumerate":
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                return
            target = target.elts[1]
        source = iterable.args[0]
    else:
        source = iterable
    if _array_of_data(source, ctx, target) and not ctx.only_logged(iterable):
        yield Hit(iterable, f"iterating `{show(iterable)}` takes the items of a NumPy array of pipeline data one "
                            "by one: each is a NumPy scalar the trace does not follow", _FIX)


def _zipped_array(iterable: ast.expr, target: ast.expr, ctx) -> ast.expr | None:
    """`for name, v in zip(names, arr)`: the argument of `zip` whose items land in a target name used as a
    number, when it is a NumPy array of the pipeline."""
    if not (isinstance(iterable, ast.Call) and ctx.builtin(iterable) == "zip" and isinstance(target, ast.Tuple)
            and len(target.elts) == len(iterable.args) and not iterable.keywords):
        return None
    for arg, item in zip(iterable.args, target.elts):
        if isinstance(item, ast.Name) and (_numpy_vector(arg, ctx) or _array_of_data(arg, ctx, item)) \
                and (_used_as_numbers({item.id}, ctx, through_calls=True) or _cast({item.id}, ctx)):
            return arg
    return None


def _cast(names: set[str], ctx) -> bool:
    """An item handed to `float()`/`int()`: read as a Python number."""
    return any(isinstance(n, ast.Call) and ctx.builtin(n) in ("float", "int") and n.args
               and isinstance(n.args[0], ast.Name) and n.args[0].id in names for n in ctx.fn.nodes)


# Calls that copy their argument's items into a Python container: `list(a)`, `items.extend(a)`,
# `dict(zip(names, a))`.
_SPREADING_BUILTINS = frozenset({"list", "tuple"})


def _spread_into_python(call: ast.Call, ctx) -> ast.expr | None:
    """The NumPy vector of pipeline data whose items a call copies into a Python list, tuple or dict."""
    builtin = ctx.builtin(call)
    if builtin in _SPREADING_BUILTINS and len(call.args) == 1 and not call.keywords:
        arg = call.args[0]
    elif builtin == "dict" and len(call.args) == 1 and isinstance(call.args[0], ast.Call) \
            and ctx.builtin(call.args[0]) == "zip" and len(call.args[0].args) == 2:
        arg = call.args[0].args[1]
    elif isinstance(call.func, ast.Attribute) and call.func.attr == "extend" and len(call.args) == 1 \
            and _bound_to_container(call.func.value, ctx):
        arg = call.args[0]
    else:
        return None
    return arg if _numpy_vector(arg, ctx) else None


def _range_loops(fn) -> list[tuple[str, set[int]]]:
    """(counter name, ids of the nodes inside) of each `for <name> in range(...)` of the function, in `nodes`
    order (indexed once per function: every assignment asks which of them it sits in)."""
    loops = fn.walks.get("range loops")
    if loops is None:
        loops = fn.walks["range loops"] = [
            (n.target.id, {id(sub) for sub in ast.walk(n)}) for n in fn.nodes
            if isinstance(n, ast.For) and isinstance(n.target, ast.Name) and counter_kind(n.iter) == "range"]
    return loops


def _loop_element(node: ast.Assign, ctx) -> ast.Subscript | None:
    """`angle = angle + q[i]` (`x = q[i]`, any arithmetic into a plain name) inside `for i in range(...)`: the
    element `q[i]` of a one-axis NumPy array of pipeline data, read at the position the loop counts. Into an
    attribute (`frame.servos[k].angle = angles[k + 2]`, a message field filled item by item) the element leaves
    the trace whatever is done with it next."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], (ast.Name, ast.Attribute)):
        return None
    loops = {name for name, inside in _range_loops(ctx.fn) if id(node) in inside}
    into_field = isinstance(node.targets[0], ast.Attribute)
    for read in ast.walk(node.value):
        if not (isinstance(read, ast.Subscript) and isinstance(read.value, (ast.Name, ast.Attribute))
                and _counted_position(read.slice, loops, into_field)):
            continue
        array = read.value
        if not ctx.is_data(array) or ctx.is_shape(array) or _many_dimensions(array, ctx):
            continue
        if into_field:
            if _numpy_vector(array, ctx):
                return read
            continue
        names = {node.targets[0].id}
        if isinstance(array, ast.Name) and _used_as_numbers(names, ctx) \
                and (ctx.is_numpy(array) or _items_reach_numpy(ctx, names)):
            return read
    return None


def _counted_position(index: ast.expr, loops: set[str], offsets: bool) -> bool:
    """`q[i]` with `i` a loop counter; with `offsets`, also `q[start + i]` (one counter and names or numbers)."""
    if isinstance(index, ast.Name):
        return index.id in loops
    if not offsets or not isinstance(index, ast.BinOp) or not isinstance(index.op, (ast.Add, ast.Sub)):
        return False
    sides = (index.left, index.right)
    return sum(isinstance(e, ast.Name) and e.id in loops for e in sides) == 1 and all(
        isinstance(e, (ast.Name, ast.Attribute)) or is_number(e) for e in sides)


_STACKING = frozenset({"stack", "vstack", "hstack", "concatenate", "column_stack", "cat"})


def _picked_in_comprehension(node: ast.comprehension, ctx) -> ast.Subscript | None:
    """`[ranges[int(step * i)] for i in range(n)]`: the comprehension's element is one item of a 1-D NumPy
    array of the pipeline, indexed by a number the loop computes (a down-sampling done item by item)."""
    owner = next((n for n in ctx.fn.nodes if isinstance(n, (ast.ListComp, ast.GeneratorExp))
                  and n.generators and n.generators[0] is node), None)
    elt = owner.elt if owner is not None else None
    if not (isinstance(elt, ast.Subscript) and isinstance(elt.value, (ast.Name, ast.Attribute))
            and not isinstance(elt.slice, (ast.Slice, ast.Tuple))):
        return None
    loop_names = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    if not loop_names & {n.id for n in ast.walk(elt.slice) if isinstance(n, ast.Name)} \
            or any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) for n in ast.walk(elt.slice)):
        return None   # a position the loop computes, not one looked up by name (`links.index(name)`)
    if any(isinstance(n, ast.Call) and owner in n.args and (ctx.call_name(n) or "").split(".")[-1] in _STACKING
           for n in ctx.fn.nodes):
        return None   # `np.stack([rows[i] for i ...])`: the items are rows of a larger array
    array = elt.value
    if not (ctx.is_numpy(array) and ctx.is_data(array)) or _many_dimensions(array, ctx) or ctx.only_logged(owner):
        return None
    return elt


_FIX = ("index the array instead and keep the pieces arrays (`x, y = q[..., 0], q[..., 1]` or `q[0:1]`), or move "
        "the computation into torch ops on the tensor (unpacking a torch tensor yields traced 0-d tensors)")


def _array_of_data(value: ast.expr, ctx, target: ast.expr) -> bool:
    """A name, attribute or slice holding a NumPy array of the pipeline (not a tuple a call returns, not a shape):
    known to be NumPy, or pipeline data whose items go on into NumPy calls (`x, y, z, w = quat` and then
    `np.arctan2(2 * (w * z + x * y), ...)`: the helper treats them as NumPy values)."""
    if isinstance(value, ast.Call):   # a helper returning one array (`v, w = self.smoother(cmd)`), not a tuple
        return _returned_array(value, ctx, target)
    if not isinstance(value, (ast.Name, ast.Attribute, ast.Subscript)):
        return False
    if isinstance(value, ast.Attribute) and value.attr in ("shape", "strides"):
        return False
    if not ctx.is_data(value) or ctx.is_shape(value) or _bound_to_container(value, ctx) or keyed_mapping(value, ctx):
        return False   # a mapping's loop takes its keys
    names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    if any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in names
           for n in ctx.fn.nodes) or _many_dimensions(value, ctx):
        return False  # rows of a 2-D array (indexed further, or the array known to have several axes) stay traced
    if not _used_as_numbers(names, ctx, through_calls=isinstance(target, (ast.Tuple, ast.List))):
        return False  # the items only go on whole into other calls (`[tf(frame) for frame in frames]`)
    return ctx.is_numpy(value) or _items_reach_numpy(ctx, names)


def _returned_array(call: ast.Call, ctx, target: ast.expr) -> bool:
    """A project function's call whose every callee returns a NumPy array of the pipeline, its items used
    as numbers."""
    callees = ctx.resolve_call(call)
    if not callees or not all(c.id in ctx.facts.returns_numpy and c.id in ctx.facts.returns_data for c in callees):
        return False
    names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return not any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in names
                   for n in ctx.fn.nodes) and _used_as_numbers(names, ctx)


def _element(node: ast.Assign, ctx) -> bool:
    """`w = q[0]`, with another position of the same array also taken into a name (`x = q[1]`): the components
    of a NumPy vector of the pipeline (a quaternion, a velocity) as Python names; so is one position next to a
    slice of the same array (`q_w = q[3]` with `q[:3]`). One position alone is more often the first row of a
    batch, which stays traced. Into an attribute (`cmd.vx = act[0]`, `cmd.wz =
    act[1]`, a message field or an object's) the elements leave the trace whatever is done with them next."""
    position = _position(node)
    if position is None:
        return False
    array = ast.unparse(node.value.value)
    others = {p for n in _assignments(ctx) if (p := _position(n)) is not None and ast.unparse(n.value.value) == array}
    if len(others) < 2 and not _sliced(array, ctx):
        return False
    if isinstance(node.targets[0], ast.Attribute):
        return _numpy_vector(node.value.value, ctx)
    if _array_of_data(node.value.value, ctx, node.targets[0]):
        return True
    value = node.value.value     # `q_w = q[3]` with `q_vec = q[:3]` going into `np.cross(q_vec, v)`: NumPy
    return len(others) < 2 and _slice_reaches_numpy(array, ctx) and isinstance(value, ast.Name) \
        and ctx.is_data(value) and not ctx.is_shape(value) and not _bound_to_container(value, ctx) \
        and not _many_dimensions(value, ctx) and _used_as_numbers({node.targets[0].id}, ctx)


def _elements_passed(call: ast.Call, ctx) -> list[ast.Subscript]:
    """`self.arm.send(q, left=w[0], right=w[1])`: two positions or more of one NumPy vector of pipeline data
    passed to a project function as separate arguments (the callee gets Python scalars, not an array)."""
    args = [*call.args, *(k.value for k in call.keywords)]
    by_array: dict[str, list[ast.Subscript]] = {}
    for arg in args:
        if isinstance(arg, ast.Subscript) and isinstance(arg.value, (ast.Name, ast.Attribute)) \
                and _constant_position(arg.slice) is not None:
            by_array.setdefault(ast.unparse(arg.value), []).append(arg)
    if not by_array:
        return []   # no argument reads a constant position
    picked = next((reads for reads in by_array.values()
                   if len({_constant_position(r.slice) for r in reads}) >= 2), None)
    callees = ctx.resolve_call(call)
    if not callees or any(ctx.project.is_library(c.module) for c in callees):
        return []
    if picked is None:   # one position of a vector also read as slices (`g = grip(row[-1])` with `row[:3]`)
        picked = next(([read] for array, (read, *more) in by_array.items() if not more and _sliced(array, ctx)
                       and callee_computes(call, ctx, lambda e, r=read: e is r)), None)
    return picked if picked is not None and _numpy_vector(picked[0].value, ctx) else []


def _constant_position(index: ast.expr) -> int | None:
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        found = _constant_position(index.operand)
        return -found if found is not None else None
    if isinstance(index, ast.Constant) and isinstance(index.value, int) and not isinstance(index.value, bool):
        return index.value
    return None


def _sliced(array: str, ctx) -> bool:
    """The function also takes a one-axis slice of the same array (`v[:3]` next to `v[3]`, `x[1:]` next to
    `x[0]`): the element is one component of a vector whose other part is read as an array."""
    return any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice) and ast.unparse(n.value) == array
               for n in ctx.fn.nodes)


def _slice_reaches_numpy(array: str, ctx) -> bool:
    """A slice of the array (`q[:3]`, or a name bound to one) is an argument of a `numpy.*` call: the array
    is a NumPy vector even where nothing else says so (a parameter the driver fills)."""
    slices = [n for n in ctx.fn.nodes if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice)
              and ast.unparse(n.value) == array]
    names = {t.id for n in _assignments(ctx) if any(n.value is s for s in slices)
             for t in n.targets if isinstance(t, ast.Name)}
    direct = any(isinstance(n, ast.Call) and (ctx.call_name(n) or "").startswith("numpy.")
                 and any(a is s for a in n.args for s in slices) for n in ctx.fn.nodes)
    return direct or bool(names) and _items_reach_numpy(ctx, names)


def _outer_position(node: ast.Assign) -> tuple[str, int] | None:
    """(array, k) of `name = array[k]` or `name = array[k] - 3.7` (one number added, scaled...) where `array` is a
    plain name, else None."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return None
    value = node.value
    if isinstance(value, ast.BinOp):
        value = value.left if is_number(value.right) else value.right if is_number(value.left) else None
    if not isinstance(value, ast.Subscript) or not isinstance(value.value, ast.Name):
        return None
    position = _position(ast.Assign(targets=node.targets, value=value))
    return (value.value.id, position) if position is not None else None


def _outer_element(node: ast.Assign, ctx) -> bool:
    """In an inline range, `x = pose[1] - 3.7`, `y = pose[2]`, ... on a value from before the range nothing
    says is a tensor (a Python list a reader thread fills, a NumPy array): two positions or more taken into
    names used as numbers."""
    found = _outer_position(node)
    if found is None or found[0] not in ctx.fn.outer_values or found[0] in ctx.fn.carried:
        return False
    array = found[0]
    positions = {p for n in ctx.fn.nodes if isinstance(n, ast.Assign) and (o := _outer_position(n)) is not None
                 and o[0] == array for p in (o[1],)}
    value = ast.Name(id=array, ctx=ast.Load())
    if len(positions) < 2 or not ctx.is_data(value) or ctx.is_shape(value) \
            or not _held_or_numpy(ctx.fn.outer_values[array], ctx) or _many_dimensions(value, ctx):
        return False
    names = {node.targets[0].id}
    return not any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in names
                   for n in ctx.fn.nodes) and _used_as_numbers(names, ctx)


def _held_or_numpy(bound: ast.expr, ctx) -> bool:
    """What a range input was bound to before the range says it is no tensor: a value read from an object or
    a container (`reader.value`, `frames[-1]`), a list or tuple display, or what a NumPy call returns."""
    if isinstance(bound, ast.Call):
        return (ctx.call_name(bound) or "").startswith("numpy.")
    return isinstance(bound, (ast.Attribute, ast.Subscript, ast.List, ast.Tuple))


def _numpy_vector(value: ast.expr, ctx) -> bool:
    """A name, attribute or slice known to hold a NumPy array of pipeline data, not a shape, a container or an
    array with several axes."""
    return isinstance(value, (ast.Name, ast.Attribute, ast.Subscript)) and ctx.is_data(value) \
        and ctx.is_numpy(value) and not ctx.is_shape(value) and not _bound_to_container(value, ctx) \
        and not _many_dimensions(value, ctx)


def _element_rewrite(node: ast.Assign | ast.AugAssign, ctx) -> bool:
    """`a[i] = a[i] * s + m`, `a[3] = np.clip(a[3], 0, 1)`, `a[3] *= 1.15`: one element of a NumPy array of the
    pipeline read, computed with and written back in place (a single index, not a slice)."""
    target = node.target if isinstance(node, ast.AugAssign) else (node.targets[0] if len(node.targets) == 1 else None)
    if not isinstance(target, ast.Subscript) or not _single_index(target.slice):
        return False
    if isinstance(node, ast.Assign):
        element = ast.unparse(target)
        if not any(isinstance(n, ast.Subscript) and ast.unparse(n) == element for n in ast.walk(node.value)):
            return False
    return _numpy_vector(target.value, ctx)


def _single_index(index: ast.expr) -> bool:
    """`3`, `-1`, `i`, `i + 1`: one position (not a slice, a tuple of indices or a list of positions)."""
    if isinstance(index, ast.UnaryOp):
        return _single_index(index.operand)
    if isinstance(index, ast.BinOp):
        return _single_index(index.left) and _single_index(index.right)
    return isinstance(index, ast.Name) or isinstance(index, ast.Constant) and isinstance(index.value, int) \
        and not isinstance(index.value, bool)


def _parallel(node: ast.Assign) -> list[ast.Assign]:
    """`a, b = x[:3], x[3]` as the assignments `a = x[:3]` and `b = x[3]` (same location), else []."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], (ast.Tuple, ast.List)) \
            or not isinstance(node.value, (ast.Tuple, ast.List)) or len(node.targets[0].elts) != len(node.value.elts) \
            or any(isinstance(e, ast.Starred) for e in (*node.targets[0].elts, *node.value.elts)):
        return []
    return [ast.copy_location(ast.Assign(targets=[t], value=v), node)
            for t, v in zip(node.targets[0].elts, node.value.elts, strict=True)]


def _assignments(ctx) -> list[ast.Assign]:
    """The function's assignments, each parallel assignment also as its single ones (see `_parallel`)."""
    found = [n for n in ctx.fn.nodes if isinstance(n, ast.Assign)]
    return found + [a for n in found for a in _parallel(n)]


def _position(node: ast.Assign) -> int | None:
    """The integer position of `name = array[k]` (or `obj.field = array[k]`), else None."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], (ast.Name, ast.Attribute)) \
            or not isinstance(node.value, ast.Subscript):
        return None
    index, sign = node.value.slice, 1
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index, sign = index.operand, -1
    if isinstance(index, ast.Constant) and isinstance(index.value, int) and not isinstance(index.value, bool):
        return sign * index.value
    return None


RULE = Rule(
    code="LCM104", name="array-unpack", category="scalar-extraction", severity="error",
    summary="NumPy array of pipeline data unpacked or iterated into Python names",
    what="Flags unpacking a NumPy array of the pipeline into names (`x, y, z, w = quat`, `a, b = arr[:2]`), taking "
         "one element of one into a name (`w = quat[0]`), into arithmetic when the function reads other positions "
         "of the same array too (`gas = (act[3] + 1) / 2` next to `act[0] * k`), or into an attribute (`msg.q = act[0]`, a message "
         "field, also item by item in a counted loop: `cmd.motors[i].q = act[start + i]`), two elements or more "
         "handed to a project function as separate arguments (`arm.send(q, left=w[0], right=w[1])`) or, in an inline range, from a value bound before the range that is not known to be a tensor "
         "(`x = pose[1] - 0.5`, `y = pose[2]`: a list a reader thread fills), one element of the NumPy conversion of an index reduction over an axis (`a = logits.argmax(dim=-1).numpy()[0]`: of a batch of one, a single number, whatever is done with it next, even only handed on; not with `keepdim=True`), reading an element and writing what is computed from it back (`a[i] = a[i] * s`, `a[3] *= 2`), and "
         "`for` loops or comprehensions over one (`[v * 2 for v in arr]`, `for i, v in enumerate(arr)`, "
         "`for name, v in zip(names, arr)`), copying its items into a Python container (`list(arr)`, "
         "`items.extend(arr)`, `dict(zip(names, arr))`), not a name "
         "bound to a list or other container. An array "
         "counts when the scan knows it is NumPy, or when it is pipeline data whose items go on into `np.*` calls. "
         "Unpacking a torch tensor is not flagged: it yields 0-d tensors that stay traced; nor are items the code "
         "indexes further or an array known to have several axes (rows of a 2-D array stay traced), nor items "
         "that are never used as numbers (only handed whole to another function), nor a loop over a mapping (a value "
         "the function indexes with a string, `obs[\"pc\"]`, calls `.items()`/`.keys()` on, or indexes with the "
         "loop's own name that it compares with a string): it yields the mapping's keys, not array items.",
    why="Iterating a traced NumPy array yields plain NumPy scalars (`numpy.float32`), not traced values "
        "(checked in the installed leapp 0.7.2: `p, q, r, s = a` and `[v * 2 for v in a]` on a traced array both "
        "fail LEAPP's re-entry validation, while the same code on a torch tensor passes, and so does unpacking the "
        "rows of a 2-D traced array). Whatever is computed from the items is baked into the export as the values "
        "seen while tracing, silently.",
    fix="Index the array and keep the pieces arrays (`x = q[..., 0]`), or do the computation in torch on the tensor, "
        "where unpacking stays traced. In a helper the pipeline calls, `generate` writes a `leapp.FunctionPatch` "
        "whose unpacking gives one-element slices (`twin_unpack`); a loop over the items there is left for you to "
        "write, and in the entry's own function the finding is listed as unresolved in the generated module.",
    example="def heading(quat):\n    x, y, z, w = quat\n"
            "    return np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))",
    fixed_example="def heading(quat):\n    x, y, z, w = quat[..., 0], quat[..., 1], quat[..., 2], quat[..., 3]\n"
                  "    return np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))",
    node_types=(ast.Assign, ast.AugAssign, ast.For, ast.comprehension, ast.Call), check=check,
    valid=(
        "import numpy as np\nfrom scipy.spatial.transform import Rotation as R\ndef step(obs):\n"
        "    rotations = np.tanh(obs).reshape(-1, 3)\n"
        "    return np.array([R.from_euler('xyz', rot).as_quat() for rot in rotations])\n",
        "import torch\ndef step(obs):\n    x, y = obs[:2]\n    return torch.stack([x * 2, y])\n",
        # a loop over a mapping of arrays takes its keys
        "import numpy as np\ndef step(obs):\n    for k in obs:\n        if k != 'pc':\n            obs[k] = obs[k] * 2\n"
        "    return np.concatenate([obs['pc'], obs['state']])\n",
        # one position alone: the first row of a batch
        "import numpy as np\ndef step(actions, low, high):\n    act = actions[0]\n    return np.clip(act * 2, low, high)\n",
        "import numpy as np\ndef step(obs):\n    a = np.asarray(obs)\n    n, m = a.shape\n"
        "    return a.reshape(n * m)\n",
        "import numpy as np\ndef step(obs, gains):\n    a = np.asarray(obs)\n    for g in gains:\n        a = a * g\n"
        "    return a\n",
        "import numpy as np\ndef step(obs):\n    parts = [np.tanh(obs), obs * 2]\n    out = [p + 1 for p in parts]\n"
        "    return np.concatenate(out)\n",
        # elements of a torch tensor are traced 0-d tensors, into a field or back into the tensor
        "import torch\ndef step(obs, cmd):\n    a = torch.tanh(obs)\n    cmd.vx = a[0]\n    cmd.wz = a[1]\n"
        "    a[0] = a[0] * 2\n    return a\n",
        # a slice written back stays an array
        "import numpy as np\ndef step(obs):\n    a = np.tanh(obs)\n    a[[0, 2]] = np.clip(a[[0, 2]], -1, 1)\n"
        "    return a\n",
        "import numpy as np\ndef step(obs):\n    a = np.tanh(obs)\n    a[0:2] = a[0:2] * 2\n    return a\n",
        # an inline range's input known to be a tensor: its elements are traced 0-d tensors
        "# range: 7-9\nimport numpy as np\nimport torch\ndef main(reader, send):\n    while True:\n"
        "        pose = torch.as_tensor(reader.value)\n        x = pose[1] - 0.5\n        y = pose[2]\n"
        "        send(torch.stack([x * 2, y]))\n",
        # one element inside arithmetic and no other position read: the first row of a batch
        "import numpy as np\ndef step(obs):\n    a = np.tanh(obs)\n    return (a[0] + 1) / 2\n",
        "def step(net, obs, env):\n    a = net(obs).argmax(dim=-1, keepdim=True).numpy()[0]\n    env.step(a)\n",
    ),
    invalid=(
        # an element per pass of a loop into Python arithmetic
        "import math\nimport numpy as np\ndef step(q):\n    a = 0.0\n    for i in range(3):\n"
        "        a = a + q[i]  # error\n    return np.array([math.cos(a), math.sin(a)])\n",
        "def step(net, obs, env):\n    a = net(obs).argmax(dim=-1).cpu().numpy()[0]  # error\n    env.step(a)\n",
        "import numpy as np\ndef tilt(q):\n    w = q[0]  # error\n    x = q[-3]  # error\n"
        "    return np.stack([2 * w * x, 1 - 2 * x * x])\ndef step(obs):\n    return tilt(np.asarray(obs))\n",
        "import numpy as np\ndef step(obs):\n    q = np.asarray(obs)\n    x, y, z, w = q  # error\n"
        "    return np.array([w * x, y * z])\n",
        "import numpy as np\ndef step(obs):\n    a = np.tanh(obs)\n    lo, hi = a[:2]  # error\n"
        "    return a * (hi - lo)\n",
        "import numpy as np\ndef step(obs):\n    a = np.tanh(obs)\n    out = [v * 2 for v in a]  # error\n"
        "    return np.stack(out)\n",
        "import numpy as np\ndef step(obs):\n    a = np.tanh(obs)\n    total = 0.0\n"
        "    for i, v in enumerate(a):  # error\n        total = total + v * i\n    return a * total\n",
        # one element next to a slice of the same array: the vector's other part
        "import numpy as np\ndef heading(pose, goal):\n    pos = pose[:2]\n    yaw = pose[5]  # error\n"
        "    return (goal - pos) * np.cos(yaw)\ndef step(obs, goal):\n    return heading(np.asarray(obs), goal)\n",
        # a parameter nothing says is NumPy, but its sliced part goes into NumPy calls
        "import numpy as np\ndef lean(p, v):\n    arm = p[:3]\n    s = p[3]  # error\n"
        "    return np.cross(arm, v) * s\ndef step(obs, v):\n    return lean(obs * 2, v)\n",
        # elements into the fields of an outgoing command
        "import numpy as np\nclass Cmd:\n    pass\ndef step(obs):\n    a = np.tanh(obs)\n    cmd = Cmd()\n"
        "    cmd.vx = a[0]  # error\n    cmd.wz = a[1]  # error\n    return cmd\n",
        # one element read, computed with and written back
        "import numpy as np\ndef step(obs, scale):\n    a = np.tanh(obs)\n    for i in range(3):\n"
        "        a[i] = a[i] * scale[i]  # error\n    a[2] *= 0.5  # error\n    return a\n",
        # an inline range reading the items of a value from before it (a list a reader thread fills)
        "# range: 6-8\nimport numpy as np\ndef main(reader, send):\n    while True:\n        pose = reader.value\n"
        "        x = pose[1] - 0.5  # error\n        y = pose[2]  # error\n        send(np.array([x * 2, y + 1]))\n",
        # items handed to a helper that computes with them, and listed into a new array
        "import numpy as np\ndef to_range(v, lo, hi):\n    return lo + (v + 1.0) * (hi - lo) / 2\n"
        "def step(obs):\n    out = np.tanh(obs)\n    gas, turn = out  # error\n"
        "    return to_range(gas, 0.0, 3.0), np.array([turn, gas])\n",
        # single items picked by a computed index into a list (down-sampling item by item)
        "import numpy as np\ndef step(scan, n):\n    r = np.asarray(scan, dtype=np.float32)\n"
        "    picked = [r[int(len(r) / n * i)] for i in range(n)]  # error\n    return np.clip(picked, 0.0, 5.0)\n",
        # an element inside arithmetic, its siblings handed straight to a call
        "import numpy as np\ndef step(obs, send):\n    a = np.tanh(obs)\n    gas = (a[3] + 1) / 2  # error\n"
        "    send(a[0] * 2, -a[1], gas)\n    return a\n",
    ),
)
