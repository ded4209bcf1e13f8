import ast

from leapp_codemod.analysis.infer.context import is_self_attr
from leapp_codemod.rules._helpers import enclosing_name, show
from leapp_codemod.rules._traced_buffer import traced_in_place
from leapp_codemod.rules.base import Hit, Rule
from leapp_codemod.knowledge.vocab import ALLOCATOR_LAYOUT_KEYWORDS, NUMPY_ALLOCATORS, NUMPY_LIKE_ALLOCATORS

# LEAPP 0.7.2 fact (checked with the installed package): a traced NumPy array's `__array_function__` maps
# `np.zeros_like`/`ones_like`/`full_like`/`empty_like` to their torch twins (`traced_np_array.py`), so the
# array they allocate from a traced argument is a traced array, and writes into it are recorded (an export of
# `b = np.zeros_like(x); b[:2] = x[:2] * 2` follows new inputs). With a `dtype` LEAPP 0.7.2 raises while
# tracing (NotImplementedError on the type argument): loud, and not this rule's case, so such a call is judged
# as before.
LEAPP_TRACED_LIKE = ("`np.zeros_like(x)` (also `ones_like`, `full_like`, `empty_like`) of pipeline data is a traced "
                     "array in LEAPP 0.7.2: writes into it are traced and are no finding")
# Calls that allocate a fresh array or tensor from a shape or from constants: its contents are not traced.
FILLERS = NUMPY_ALLOCATORS | NUMPY_LIKE_ALLOCATORS | {f"torch.{fn}" for fn in ("zeros", "ones", "empty", "full", "eye")}
ALLOCATORS = FILLERS | {"numpy.array", "numpy.asarray", "numpy.copy", "torch.tensor"}


def _root(target: ast.expr) -> ast.expr:
    while isinstance(target, ast.Subscript):
        target = target.value
    return target


def _allocates(value: ast.expr | None, module, ctx, copies: bool = True) -> bool:
    """A fresh array from a shape or constants (`np.zeros(n)`, `np.array(cfg.q0)`), or, with `copies`, a copy
    of an attribute that is one (`np.copy(self.default_q)`). Arithmetic with values that are not pipeline data
    keeps it one (`np.zeros(n) * scale`, `np.ones(n) + offset`, `-np.ones(n)`): NumPy computes a new plain array."""
    if isinstance(value, ast.UnaryOp):
        return _allocates(value.operand, module, ctx, copies)
    if isinstance(value, ast.BinOp):
        return any(_allocates(side, module, ctx, copies) and not ctx.is_data(other)
                   for side, other in ((value.left, value.right), (value.right, value.left)))
    if not isinstance(value, ast.Call):
        return False
    name = ctx.project.qualify(value.func, module)
    if not name or ctx.project.external_name(name) not in ALLOCATORS:
        return False
    like = ctx.project.external_name(name) in NUMPY_LIKE_ALLOCATORS
    if like and value.args and ctx.is_data(value.args[0]) and len(value.args) <= (2 if name.endswith("full_like") else 1) \
            and not any(k.arg == "dtype" for k in value.keywords):
        return False   # `np.zeros_like(q)` of a traced array is traced itself (LEAPP_TRACED_LIKE)
    if ctx.project.external_name(name) in FILLERS:   # `np.eye(4)`, `np.zeros(x.shape[:-1] + (4, 4), dtype=x.dtype)`
        return _layout_only(value, ctx, like)
    if ctx.project.external_name(name) == "numpy.copy" and copies and len(value.args) == 1 and \
            is_self_attr(value.args[0], ctx.self_name):  # a copy of a buffer built from constants
        return _attr_buffer(value.args[0].attr, ctx, copies=False)
    return not ctx.args_data(value)


def _layout_only(call: ast.Call, ctx, like: bool) -> bool:
    """Are the allocator's arguments only a size, a shape, a dtype (read off pipeline data or not) or a fill
    constant: the contents of the new array are not traced? The array an `_like` allocator copies the shape of
    counts as a shape."""
    args = list(call.args[1:] if like else call.args)
    args += [k.value for k in call.keywords if k.arg not in ALLOCATOR_LAYOUT_KEYWORDS]
    return not any(ctx.is_data(a) and not ctx.is_shape(a) and not _layout_read(a) for a in args)


def _layout_read(expr: ast.expr) -> bool:
    """`x.shape[:-1] + (4, 4)`, `len(x)`: every data read in it is a shape or a length."""
    reads = [n for n in ast.walk(expr) if isinstance(n, ast.Attribute) and n.attr in ("shape", "dtype", "ndim")]
    names_under = {id(m) for r in reads for m in ast.walk(r)}
    lengths = {id(m) for n in ast.walk(expr) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
               and n.func.id == "len" for m in ast.walk(n)}
    return bool(reads or lengths) and all(id(n) in names_under or id(n) in lengths
                                          for n in ast.walk(expr) if isinstance(n, ast.Name))


def _local_buffer(name: str, line: int, ctx) -> bool:
    """Was `name` last bound, above `line` in this function, to a freshly allocated NumPy array? (A torch
    buffer allocated on every call traces: LEAPP records the writes into it as index_put; checked with the
    installed leapp 0.7.2.)"""
    bound = [(node.lineno, node.value) for node in ctx.fn.nodes
             if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno < line and node.value is not None
             and any(isinstance(t, ast.Name) and t.id == name
                     for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))]
    if not bound:
        return False
    latest = max(bound, key=lambda b: b[0])
    values = _reaching_values(name, latest, bound, ctx)
    if any(_torch_allocation(v, ctx) for v in values):
        return False
    if len(values) == 1:
        return _allocates(values[0], ctx.module, ctx)
    # bound differently per branch (`np.zeros(n)` in one arm, `template.copy()` in the other): every binding
    # that reaches the write is fresh, and one of them is a NumPy allocation
    return all(_allocates(v, ctx.module, ctx) or _fresh_copy(v, ctx) for v in values) \
        and any(_allocates(v, ctx.module, ctx) for v in values)


def _fresh_copy(value: ast.expr, ctx) -> bool:
    """`template.copy()`, `REST.copy()`: a copy of a value that holds no pipeline data, or of a module-level
    constant."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "copy"
            and not value.args and not value.keywords):
        return False
    source = value.func.value
    constant = isinstance(source, ast.Name) and source.id in ctx.module.globals and source.id not in ctx.fn.params \
        and source.id not in ctx.env.data
    return constant or not ctx.is_data(source)


def _reaching_values(name: str, latest: tuple[int, ast.expr], bound: list[tuple[int, ast.expr]],
                     ctx) -> list[ast.expr]:
    """The values of `name` that may reach a use below the latest binding: that binding alone, or, when it
    sits in one arm of an `if`, the last binding in each arm (the binding before the `if` for an arm that
    has none)."""
    line = latest[0]
    around = [n for n in ctx.fn.nodes if isinstance(n, ast.If) and n.body and n.orelse
              and n.lineno < line <= (n.end_lineno or n.lineno)]
    if not around:
        return [latest[1]]
    branch = max(around, key=lambda n: n.lineno)   # the innermost
    values = []
    for arm in (branch.body, branch.orelse):
        start, end = arm[0].lineno, arm[-1].end_lineno or arm[-1].lineno
        inside = [b for b in bound if start <= b[0] <= end]
        before = [b for b in bound if b[0] < branch.lineno]
        chosen = inside or before
        if not chosen:
            return [latest[1]]
        values.append(max(chosen, key=lambda b: b[0])[1])
    return values


def _torch_allocation(value: ast.expr, ctx) -> bool:
    while isinstance(value, (ast.BinOp, ast.UnaryOp)):   # `torch.zeros(n) * scale`
        value = value.operand if isinstance(value, ast.UnaryOp) else \
            value.left if isinstance(value.left, (ast.Call, ast.BinOp, ast.UnaryOp)) else value.right
    name = ctx.project.qualify(value.func, ctx.module) if isinstance(value, ast.Call) else None
    return bool(name) and ctx.project.external_name(name).startswith("torch.")


def _attr_buffer(attr: str, ctx, copies: bool = True) -> bool:
    """Is `self.<attr>` only ever bound to freshly allocated arrays (a preallocated buffer)?"""
    if ctx.cls is None:
        return False
    values = [(ctx.project.modules[klass.module], value) for klass in ctx.project.mro(ctx.cls)
              for _, value in klass.attr_values.get(attr, ()) if not _placeholder(value)]
    fresh = [_allocates(value, module, ctx, copies) for module, value in values]
    return any(fresh) and all(ok or _rescaled_after_fill(attr, value, ctx)
                              for ok, (_, value) in zip(fresh, values))


def _attr_bindings(attr: str, ctx) -> list[ast.expr]:
    return [value for klass in ctx.project.mro(ctx.cls) for _, value in klass.attr_values.get(attr, ())
            if not _placeholder(value)]


def _placeholder(value: ast.expr) -> bool:
    """`self.obs = None` (in the constructor, a reset): no array yet, the step allocates one (once under `if
    self.obs is None:` or on every call) before it fills it; the placeholder says nothing about what the
    buffer holds."""
    return isinstance(value, ast.Constant) and value.value is None


def allocated_each_call(attr: str, line: int, ctx) -> bool:
    """`self.obs = np.zeros(45)` as a statement of the step's own body above `line`: every call starts from a
    new array, so nothing the previous call wrote survives and declaring it as state would be overwritten."""
    return any(isinstance(n, ast.Assign) and n.lineno < line and any(
        is_self_attr(t, ctx.self_name) and t.attr == attr for t in n.targets)
        and _allocates(n.value, ctx.module, ctx) for n in ctx.fn.node.body)


def _rebound_here(attr: str, ctx) -> bool:
    return any(isinstance(n, ast.Assign) and any(is_self_attr(t, ctx.self_name) and t.attr == attr for t in n.targets)
               and _rescaled_after_fill(attr, n.value, ctx) for n in ctx.fn.nodes)


def _rescaled_after_fill(attr: str, value: ast.expr, ctx) -> bool:
    """`self.q_obs = (self.q_obs - self.q0) * scale` in this method, after it filled `self.q_obs[i] = ...`:
    the buffer is filled in place, then rebound to a value computed from what was just written."""
    line = getattr(value, "lineno", 0)
    in_this_method = any(isinstance(n, ast.Assign) and n.value is value for n in ctx.fn.nodes)
    reads_itself = any(is_self_attr(n, ctx.self_name) and n.attr == attr for n in ast.walk(value))
    filled_before = any(isinstance(n, (ast.Assign, ast.AugAssign)) and n.lineno < line
                        and (target := _subscript_target(n)) is not None
                        and is_self_attr(_root(target), ctx.self_name) and _root(target).attr == attr
                        for n in ctx.fn.nodes)
    return in_this_method and reads_itself and filled_before


def _subscript_target(node: ast.Assign | ast.AugAssign) -> ast.Subscript | None:
    """`buf[i] = v` or `buf[i:] += v` (the buffer reset earlier in the call, then accumulated into)."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return targets[0] if len(targets) == 1 and isinstance(targets[0], ast.Subscript) else None


def buffer_name(node: ast.Assign | ast.AugAssign, ctx) -> str | None:
    """The buffer a subscript assignment fills with pipeline data, if it is a preallocated, untraced one:
    a local (or, in an inline range, a value bound before the range) or an attribute of self."""
    target = _subscript_target(node)
    if target is None or not ctx.is_data(node.value):
        return None
    root = _root(target)
    if isinstance(root, ast.Name) and (_local_buffer(root.id, node.lineno, ctx) or _outer_buffer(root.id, ctx)
                                       and not traced_in_place(node, target, [ctx.fn.outer_values.get(root.id)], ctx)):
        return root.id
    if is_self_attr(root, ctx.self_name) and _attr_buffer(root.attr, ctx) and not ctx.state_writes(node) \
            and root.attr in _read_attributes(ctx.project) \
            and not traced_in_place(node, target, _attr_bindings(root.attr, ctx), ctx):
        return f"{ctx.self_name}.{root.attr}"
    if is_self_attr(root, ctx.self_name) and _keyed_buffer(target, root, ctx) and not ctx.state_writes(node) \
            and root.attr in _read_attributes(ctx.project):
        return ast.unparse(target.value)   # `self.hist["q"][:, 0] = q`: a buffer a dict of buffers holds
    if isinstance(root, ast.Attribute) and not is_self_attr(root, ctx.self_name) and _held_buffer(root, ctx) \
            and root.attr in _read_attributes(ctx.project):
        return ast.unparse(root)
    return None


def _keyed_buffer(target: ast.Subscript, root: ast.Attribute, ctx) -> bool:
    """`self.hist[key][...]` where every binding of `self.hist` is a dict (or list) literal or comprehension whose
    every item is a fresh allocation (`{"q": np.zeros((4, 12)), ...}`): the write goes into one of those arrays."""
    if not (isinstance(target.value, ast.Subscript) and target.value.value is root) or ctx.cls is None:
        return False
    bindings = _attr_bindings(root.attr, ctx)
    items = [v for b in bindings for v in (b.values if isinstance(b, ast.Dict) else b.elts if isinstance(
        b, (ast.List, ast.Tuple)) else [b.value] if isinstance(b, ast.DictComp) else [b.elt] if isinstance(
        b, ast.ListComp) else [None])]
    return bool(items) and all(v is not None and _allocates(v, ctx.module, ctx) for v in items)


def _held_buffer(root: ast.Attribute, ctx) -> bool:
    """`self.command.target[...] = q`, `self.state.hist[:, 0] = v`: a field of another project object whose
    every binding is a fresh allocation, made in that class (`self.target = np.zeros(16)`) or handed to its
    constructor (`Command(target=np.zeros(16))`, a dataclass field) where this object builds it."""
    holder = root.value
    for type_name in sorted(ctx.types_of(holder)):
        cls = ctx.class_for_type(type_name)
        if cls is None:
            continue
        values = [(klass, method, value) for klass in ctx.project.mro(cls)
                  for method, value in klass.attr_values.get(root.attr, ())]
        if values and all(_held_allocation(klass, method, value, holder, ctx) for klass, method, value in values):
            return True
        if not values and any(root.attr in klass.attr_annotations for klass in ctx.project.mro(cls)):
            passed = _constructed_arguments(cls, root.attr, holder, ctx)   # a dataclass field
            if passed and all(_allocates(v, module, ctx) for module, v in passed):
                return True
    return False


def _argument_for(init, call: ast.Call, param: str) -> ast.expr | None:
    """What a constructor call passes for `param` of `__init__` (self excluded)."""
    positional = init.positional_params[1:]
    if param in positional and positional.index(param) < len(call.args) \
            and not any(isinstance(a, ast.Starred) for a in call.args[:positional.index(param) + 1]):
        return call.args[positional.index(param)]
    return next((k.value for k in call.keywords if k.arg == param), None)


def _held_allocation(klass, method: str, value: ast.expr, holder: ast.expr, ctx) -> bool:
    module = ctx.project.modules[klass.module]
    if _allocates(value, module, ctx, copies=False):
        return True
    init = klass.methods.get(method)
    if method != "__init__" or init is None or not isinstance(value, ast.Name) or value.id not in init.params:
        return False
    passed = _constructed_arguments(klass, value.id, holder, ctx)
    return bool(passed) and all(_allocates(v, m, ctx) for m, v in passed)


def _constructed_arguments(cls, param: str, holder: ast.expr, ctx) -> list:
    """(module, argument) the construction of the holder passes for `param`: `self.command = Command(
    target=np.zeros(16))` in this object's class, for the holder `self.command`."""
    if not is_self_attr(holder, ctx.self_name) or ctx.cls is None:
        return []
    init = ctx.project.find_method(cls, "__init__")
    fields = [n for klass in reversed(ctx.project.mro(cls)) for n in klass.attr_annotations]
    out = []
    for klass in ctx.project.mro(ctx.cls):
        module = ctx.project.modules[klass.module]
        for _, built in klass.attr_values.get(holder.attr, ()):
            if not isinstance(built, ast.Call) or ctx.project.qualify(built.func, module) != \
                    f"{cls.module}.{cls.name}":
                continue
            if init is not None:
                arg = _argument_for(init, built, param)
            else:
                arg = next((k.value for k in built.keywords if k.arg == param), None)
                if arg is None and param in fields and fields.index(param) < len(built.args):
                    arg = built.args[fields.index(param)]
            if arg is None:
                return []
            out.append((module, arg))
    return out


def _read_attributes(project) -> frozenset[str]:
    """Names of attributes the project's own code reads somewhere (`x.attr` loaded, not only as the array a
    subscript assignment writes into): a buffer nothing reads is a dead store, whatever is written into it."""
    found = project.memo.get(_read_attributes)
    if found is None:
        stored: set[int] = set()
        read: set[str] = set()
        modules = [m for name, m in project.modules.items() if not project.is_library(name)]
        for module in modules:
            for node in module.nodes:
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                        while isinstance(target, ast.Subscript):
                            target = target.value
                            stored.add(id(target))
        for module in modules:
            read.update(n.attr for n in module.nodes if isinstance(n, ast.Attribute)
                        and isinstance(n.ctx, ast.Load) and id(n) not in stored)
        found = project.memo[_read_attributes] = frozenset(read)
    return found


def _outer_buffer(name: str, ctx) -> bool:
    """An inline range's buffer allocated before the range, which it fills before reading."""
    return name in ctx.fn.carried and not ctx.is_carried_state(name) and \
        _allocates(ctx.fn.outer_values.get(name), ctx.module, ctx)


def untraced_buffer(root: ast.expr, line: int, ctx) -> bool:
    """Is `root` (written through at `line`) a NumPy array allocated from a shape or constants, a plain array
    under LEAPP whatever is written into it: a local, an inline range's buffer from before it, or an attribute of
    self only ever bound to such arrays?"""
    if isinstance(root, ast.Name):
        return _local_buffer(root.id, line, ctx) or _outer_buffer(root.id, ctx)
    return is_self_attr(root, ctx.self_name) and _attr_buffer(root.attr, ctx)


def declarable(node: ast.Assign | ast.AugAssign, ctx) -> list[tuple[str, str]]:
    """(attribute, 'inplace') when the buffer is an attribute of self: declared as LEAPP state around the
    call, the buffer is a traced value and so are the writes into it (what `generate` does)."""
    name = buffer_name(node, ctx)
    prefix = f"{ctx.self_name}."
    attr = name[len(prefix):] if name and name.startswith(prefix) else ""
    return [(attr, "inplace")] if attr and "." not in attr and not allocated_each_call(attr, node.lineno, ctx) \
        else []


def _writes_of(name: str, ctx) -> list[int]:
    """Lines of this function that fill the same buffer with pipeline data."""
    return sorted({n.lineno for n in ctx.fn.nodes
                   if isinstance(n, (ast.Assign, ast.AugAssign)) and _subscript_target(n) is not None
                   and ast.unparse(_root(_subscript_target(n))) == name and ctx.is_data(n.value)})


# The fix of a buffer the function owns: patch the function. `scan` reads it to make the function a patch target.
PATCH_FIX = "in a FunctionPatch of"


def check(node, ctx):
    name = buffer_name(node, ctx)
    if name is None:
        return
    lines = _writes_of(name, ctx)
    if lines and node.lineno != lines[0]:   # each write is its own finding (each copies numbers, not the graph)
        more = f" (another write into it, first on line {lines[0]})"
    else:
        more = f" (and {len(lines) - 1} more write{'s' if len(lines) > 2 else ''} on lines " \
               f"{', '.join(map(str, lines[1:]))})" if len(lines) > 1 else ""
    if "." in name and _rebound_here(name.partition(".")[2], ctx):
        fix = (f"`{name}` is also rebound later in the step, so it ends each call as a new array and `leapp-codemod "
               "run` does not keep it as state: assemble the value from its parts (`np.concatenate`, `torch.cat`) "
               f"{PATCH_FIX} `{enclosing_name(ctx.fn.qualname)}`")
    elif "." in name and allocated_each_call(name.partition(".")[2], node.lineno, ctx):
        fix = (f"`{name}` is a new array on every call (allocated in the step above): assemble the value from its "
               f"parts (`np.concatenate`, `torch.cat`) {PATCH_FIX} `{enclosing_name(ctx.fn.qualname)}`")
    elif name.count(".") > 1 or "." in name and not name.startswith(f"{ctx.self_name}."):
        holder = name.rpartition(".")[0]
        fix = (f"the buffer is a field of `{holder}`: assemble the value from its parts (`np.concatenate`, "
               f"`torch.cat`) {PATCH_FIX} `{enclosing_name(ctx.fn.qualname)}`, or pass the field to the pipeline "
               "call and declare it as LEAPP state there")
    elif "." in name or name in ctx.fn.carried:
        fix = (f"declare `{name}` as LEAPP state around the pipeline call (`state_tensors` before, `update_state` "
               "after): the buffer is then a traced value and so are the writes into it; `generate` writes this")
    else:
        fix = ("build the value from its parts instead (`np.concatenate`/`torch.cat`/`torch.stack`) "
               f"{PATCH_FIX} `{enclosing_name(ctx.fn.qualname)}` (`generate` writes the patch for you to fill)")
    yield Hit(node, f"`{show(node)}` writes pipeline data into the preallocated buffer `{name}`{more}; LEAPP does "
                    "not trace writes into an untraced array, so the export reads the buffer as a constant", fix)


RULE = Rule(
    code="LCM703", name="scratch-buffer-write", category="inplace-state", severity="error",
    summary="pipeline data written into a preallocated array or tensor",
    what="Flags element or slice writes of pipeline data into a buffer allocated from a shape (`np.zeros(n)`, "
         "`torch.empty(...)` on `self`), held in a local, on `self` or as a field of another project object the "
         "class builds (`self.cmd = Command(target=np.zeros(16))` ... `self.cmd.target[:] = q`, a dataclass field), "
         "that the step fills before reading it (also an array a dict or list on `self` holds when every item is "
         "such an allocation: `self.hist = {'q': np.zeros((4, 12))}` ... `self.hist['q'][:, 0] = q`; also one made "
         "by arithmetic on an allocator with values that are not "
         "pipeline data: `np.zeros(n) * scale`, `np.ones(n) + offset`, a plain array too): "
         "`obs = np.zeros(47); obs[:3] = omega; policy(torch.from_numpy(obs))`. Every write of pipeline data into "
         "the buffer is a finding (each copies numbers, not the graph); the first names the others. A buffer the step fills and then rebinds to a value computed from itself "
         "(`self.q_obs[i] = q[idx[i]]`, then `self.q_obs = (self.q_obs - q0) * scale`) is still a filled buffer. "
         "A constructor's `None` placeholder (`self.obs = None`) does not hide a buffer the step allocates on "
         "every call (`self.obs = np.zeros(45)` in the step: no state, the value is built from its parts; one "
         "allocated once under `if self.obs is None:` is kept from call to call: LCM701). "
         "A buffer read before it is written (a history) is recurrent state instead (LCM701). "
         "A torch buffer allocated from a shape before the step runs (`self.clock = torch.zeros(n, 4)`) and written "
         "at the same places on every call (constant indices and slices, `for i in range(<setting>)` columns, no "
         "branch around the write, no read of it above) is no finding: LEAPP 0.7.2 records writes of traced values "
         "into a torch tensor, and the places never written keep their constants (checked: "
         "tests/test_leapp_torch_buffer.py). "
         f"{LEAPP_TRACED_LIKE[0].upper()}{LEAPP_TRACED_LIKE[1:]}.",
    why="The buffer is a plain array, not a traced value. Writing a traced value into it copies numbers, not the "
        "graph: the buffer is captured as a constant (by reference), so the export returns what it held while "
        "tracing, or `output_tensors` raises 'received non-traced tensors'. Checked with the installed leapp 0.7.2 for a "
        "buffer made as `np.zeros(n, dtype=np.float32)` filled by a slice and an element write, and as "
        "`np.zeros(n) * 2.0`: the export fails validation on the next sample, the same values joined with "
        "`np.concatenate` validate (tests/test_leapp_scaled_buffer.py). LEAPP records NumPy indexing and slice "
        "assignment on a traced array only; a buffer allocated from a shape is none.",
    fix="A buffer on `self` (or carried by a driver loop): declare it as LEAPP state around the pipeline call "
        "(`state_tensors` before, `update_state` after); the buffer becomes a traced value and the writes into it "
        "are traced. `generate` writes this. A local buffer: assemble the value from its parts "
        "(`np.concatenate([omega, gravity, cmd])`, `torch.cat`) in a `leapp.FunctionPatch` of the function that "
        "fills it; the application stays unchanged.",
    example="def build_obs(omega, q):\n    obs = np.zeros(6, dtype=np.float32)\n    obs[:3] = omega\n    obs[3:] = q\n"
            "    return obs",
    fixed_example="# integration module: FunctionPatch('app.build_obs', traced_build_obs)\n"
                  "def traced_build_obs(omega, q):\n    return np.concatenate([omega, q]).astype(np.float32)\n"
                  "# a buffer on self instead: ctrl.obs = annotate.state_tensors(NODE, {'obs': ctrl.obs}) ... "
                  "annotate.update_state(NODE, {'obs': ctrl.obs})",
    node_types=(ast.Assign, ast.AugAssign), check=check, state_writes=declarable,
    valid=(
        "import numpy as np\ndef step(obs):\n    out = np.concatenate([obs[:3], obs[3:] * 2])\n    return out\n",
        "import torch\ndef step(obs):\n    out = torch.zeros(6)\n    out[:3] = obs[:3]\n    return out\n",
        "import torch\ndef step(obs):\n    out = torch.zeros(6) * 2.0\n    out[:3] = obs[:3]\n    return out\n",
        # arithmetic with pipeline data makes a traced array, not a plain buffer
        "import numpy as np\ndef step(obs):\n    out = np.zeros(6) + obs\n    out[:3] = obs[:3]\n    return out\n",
        "import numpy as np\ndef step(obs):\n    buf = obs.copy()\n    buf[:3] = obs[:3] * 2\n    return buf\n",
        # a torch buffer kept on the object, written at the same places on every call: LEAPP traces the writes
        ("import torch\nclass Clock:\n    def __init__(self):\n        self.buf = torch.zeros(1, 4)\n"
         "    def step(self, phase):\n        for i in range(4):\n            self.buf[:, i] = torch.sin(phase + i)\n"
         "        return self.buf * 2.0\n"),
        # allocated like a traced array: LEAPP traces it and the writes into it
        "import numpy as np\ndef step(obs):\n    buf = np.zeros_like(obs)\n    buf[:3] = obs[:3] * 2\n    return buf\n",
        # the other object's field holds the data it was built with, not a fresh allocation
        ("import numpy as np\nclass Command:\n    def __init__(self, target):\n        self.target = target\n"
         "class P:\n    def __init__(self, q0):\n        self.cmd = Command(target=q0)\n    def step(self, x):\n"
         "        self.cmd.target[:] = x * 2\n        return self.cmd.target\n"),
    ),
    invalid=(
        # a dict of buffers the constructor allocates: each write goes into one of them
        ("import numpy as np\nimport torch\nclass Stack:\n    def __init__(self, names):\n"
         "        self.rows = {n: np.zeros((3, 4)) for n in names}\n    def step(self, x):\n"
         "        self.rows['imu'][0, :] = x  # error\n        return torch.from_numpy(self.rows['imu'])\n"),
        "import numpy as np\ndef step(obs):\n    buf = np.zeros(6, dtype=np.float32)\n    buf[:3] = obs[:3]  # error\n"
        "    buf[3:] = obs[3:] * 2  # error\n    return buf\n",
        "import numpy as np\nBIAS = np.ones(6)\ndef step(obs):\n    buf = np.zeros(6) + BIAS * 0.1\n"
        "    buf[:3] = obs[:3]  # error\n    return buf\n",
        "import numpy as np\nimport torch\nclass P:\n    def __init__(self):\n        self.obs = np.zeros(4)\n"
        "    def step(self, x):\n        self.obs[:2] = x[:2]  # error\n        self.obs[2:] = x[2:]  # error\n"
        "        return torch.from_numpy(self.obs)\n",
        "# range: 7-9\nimport numpy as np\ndef main(read):\n    obs = np.zeros(4)\n    for _ in range(3):\n"
        "        x = read()\n        obs[:2] = x[:2]  # error\n        obs[2:] = x[2:] * 2  # error\n        y = np.tanh(obs)\n"
        "        print(y)\n",
        ("import numpy as np\nclass Arm:\n    def __init__(self, home):\n        self.home = home\n"
         "        self.target = np.copy(home)\n    def step(self, delta):\n        self.target[:] = self.home\n"
         "        self.target[2:] += 0.5 * delta  # error\n        return self.target\n"),
        ("import numpy as np\nimport torch\nclass P:\n    def __init__(self):\n        self.q = np.zeros(4)\n"
         "    def step(self, x):\n        for i in range(4):\n            self.q[i] = x[3 - i]  # error\n"
         "        self.q = self.q * 0.5\n        return torch.from_numpy(self.q)\n"),
        # a buffer held as a field of another object: handed to its constructor, or a dataclass field
        ("import numpy as np\nfrom dataclasses import dataclass\nclass Command:\n    def __init__(self, target):\n"
         "        self.target = target\n@dataclass\nclass Memory:\n    hist: np.ndarray\nclass P:\n"
         "    def __init__(self):\n        self.cmd = Command(target=np.zeros(4))\n"
         "        self.mem = Memory(np.zeros((4, 2)))\n    def step(self, x):\n"
         "        self.cmd.target[:] = x * 2  # error\n        self.mem.hist[:, 0] = x  # error\n"
         "        return self.cmd.target + self.mem.hist.sum(axis=1)\n"),
    ),
)
