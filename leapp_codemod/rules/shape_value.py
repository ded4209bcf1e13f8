import ast

from leapp_codemod.rules._growing import growing_slice_message, growth
from leapp_codemod.rules._helpers import is_number, last_dimension, show
from leapp_codemod.rules._text_values import holds_texts
from leapp_codemod.rules.base import Hit, Rule


def _mixes_shape(values: list[ast.expr], ctx) -> bool:
    if any(last_dimension(v, ctx) for v in values) and not any(
            ctx.is_shape(v) and not last_dimension(v, ctx) for v in values):
        return False  # `width * self.horizon`: the last dimension is fixed for the pipeline
    shapes = [v for v in values if ctx.is_shape(v)]
    others = [v for v in values if not ctx.is_shape(v) and not is_number(v)]
    return bool(shapes) and bool(others)


def _shape_with_fixed_tail(node: ast.BinOp, ctx) -> bool:
    """`q.shape[:-1] + (3, 3)`: a shape of pipeline data extended by sizes written as literals (a layout the
    pipeline fixes, like `x.shape[0] * 2`); not a list repeated a run-time number of times (`len(x) * [0]`)."""
    literal = [side for side in (node.left, node.right) if isinstance(side, (ast.Tuple, ast.List))
               and all(is_number(e) for e in side.elts)]
    return isinstance(node.op, ast.Add) and len(literal) == 1 and ctx.is_shape(
        node.right if literal[0] is node.left else node.left)


# Calls that give a tensor a size: a whole shape handed to one of them fixes every dimension, the batch too.
SIZED_METHODS = frozenset({"view", "reshape", "expand", "broadcast_to", "new_zeros", "new_ones", "new_empty",
                           "new_full", "resize", "resize_"})


def _whole_shape(name: str, ctx) -> ast.expr | None:
    """The `.shape`/`.size()` of pipeline data the function stores whole in `name` (`sh = x.shape`)."""
    for node in ctx.fn.nodes:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = node.value
            if isinstance(value, ast.Attribute) and value.attr == "shape" and ctx.is_data(value.value):
                return value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "size" \
                    and not value.args and ctx.is_data(value.func.value):
                return value
    return None


def _stored_shape(node: ast.Call, ctx):
    """`y.reshape(*sh)` / `y.view(sh)` with `sh` a whole run-time shape stored earlier: every traced size,
    the batch and sequence lengths too, becomes a constant of the export."""
    if not isinstance(node.func, ast.Attribute) or node.func.attr not in SIZED_METHODS:
        return
    for arg in node.args:
        name = arg.value if isinstance(arg, ast.Starred) else arg
        stored = _whole_shape(name.id, ctx) if isinstance(name, ast.Name) and name.id in ctx.env.shape else None
        if stored is not None and not _restores(node.func.value, stored, ctx):
            yield Hit(node, f"`{show(node)}` gives a tensor the whole run-time shape `{name.id}` of pipeline data "
                            f"stored earlier; the export bakes in every traced size",
                      "use -1 for the sizes that vary (`y.reshape(-1, *sh[1:])`) or take them from the tensor "
                      "being reshaped")
            return


def _restores(reshaped: ast.expr, stored: ast.expr, ctx) -> bool:
    """`shape = q.shape; q = q.reshape(-1, 4); ...; return out.reshape(shape)`: a helper handing back what it
    computed from its argument in the argument's own layout. The argument's shape is the caller's, fixed like
    every shape of the export: restoring it bakes in nothing the input does not."""
    source = stored.value if isinstance(stored, ast.Attribute) else stored.func.value
    if ctx.is_entry() or not (isinstance(source, ast.Name) and source.id in ctx.fn.params):
        return False   # the entry's own inputs: their sizes are what a caller may vary
    derived = {source.id}
    for _ in range(len(ctx.fn.nodes)):
        size = len(derived)
        for node in ctx.fn.nodes:
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None and any(
                    isinstance(n, ast.Name) and n.id in derived for n in ast.walk(node.value)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                derived |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if len(derived) == size:
            break
    return any(isinstance(n, ast.Name) and n.id in derived for n in ast.walk(reshaped))


# torch factories whose positional arguments are sizes (or, for `arange`, the end of the range).
SIZED_FACTORIES = frozenset({"torch.arange", "torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.eye",
                             "torch.rand", "torch.randn", "torch.randint"})


def _inner_dimension(e: ast.expr, ctx) -> bool:
    """`x.shape[1]`, `x.size(2)`, `x.shape[:2]` of pipeline data: a dimension between the batch and the last
    one (a sequence or token length), which a deployment does not fix the way it fixes those two."""
    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "shape" \
            and ctx.is_data(e.value.value):
        index = e.slice
        if isinstance(index, ast.Constant) and isinstance(index.value, int):
            return index.value >= 1
        return isinstance(index, ast.Slice) and index.lower is None and isinstance(index.upper, ast.Constant) \
            and isinstance(index.upper.value, int) and index.upper.value >= 2
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "size" and len(e.args) == 1 \
            and isinstance(e.args[0], ast.Constant) and isinstance(e.args[0].value, int) and e.args[0].value >= 1 \
            and ctx.is_data(e.func.value):
        return True
    return False


def _sized_by_inner_dimension(node: ast.Call, ctx):
    """`torch.arange(x.shape[1])`, `torch.ones(emb.shape[:2])`: a new tensor sized by a sequence length of
    pipeline data is a constant of the traced length."""
    name = ctx.call_name(node)
    if name not in SIZED_FACTORIES:
        return
    sizes = node.args[:1] if name in ("torch.full", "torch.randint") and len(node.args) > 1 else node.args
    if name == "torch.randint":
        sizes = [k.value for k in node.keywords if k.arg == "size"]
    for arg in sizes:
        parts = arg.elts if isinstance(arg, (ast.Tuple, ast.List)) else [arg]
        if any(_inner_dimension(p, ctx) for p in parts):
            yield Hit(node, f"`{show(node)}` sizes a new tensor by a run-time dimension of pipeline data (a sequence "
                            "or token length); the export bakes in the traced size",
                      "pad the sequence to a fixed length before the pipeline and pass a mask, or build the tensor "
                      "from the data itself (`torch.ones_like`, `x.new_ones`)")
            return


# NumPy creation calls whose first positional argument is a size (or, for `arange`, the end of the range).
NUMPY_SIZED = frozenset({"numpy.arange", "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.eye"})


def _masked(e: ast.expr, ctx) -> bool:
    """`x[keep]`, with `keep` pipeline data (a boolean mask or computed indices), or a name bound to one in
    this function: as many items as the data selects."""
    if isinstance(e, ast.Subscript):
        index = e.slice
        return not isinstance(index, (ast.Slice, ast.Constant, ast.Tuple)) and ctx.is_data(index) \
            and not ctx.is_shape(index) and ctx.is_data(e.value)
    if isinstance(e, ast.Name):
        return any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == e.id for t in n.targets)
                   and isinstance(n.value, ast.Subscript) and _masked(n.value, ctx) for n in ctx.fn.nodes)
    return False


def _selected_count(e: ast.expr, ctx) -> bool:
    """`len(sel)`, `sel.shape[0]`, `sel.size(0)` of a masked selection."""
    if isinstance(e, ast.Call) and ctx.builtin(e) == "len" and len(e.args) == 1:
        return _masked(e.args[0], ctx)
    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "shape" \
            and isinstance(e.slice, ast.Constant) and e.slice.value == 0:
        return _masked(e.value.value, ctx)
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "size" \
            and len(e.args) == 1 and isinstance(e.args[0], ast.Constant) and e.args[0].value == 0:
        return _masked(e.func.value, ctx)
    return False


def _sized_by_selection(node: ast.Call, ctx):
    """`np.arange(len(x[keep]))`, `torch.ones(sel.shape[0])`: a new array as long as a data-selected subset
    (a mask's count): the export bakes in the count seen while tracing."""
    name = ctx.call_name(node)
    if name not in NUMPY_SIZED and name not in SIZED_FACTORIES or not node.args:
        return
    arg = node.args[0]
    parts = arg.elts if isinstance(arg, (ast.Tuple, ast.List)) else [arg]
    if any(_selected_count(p, ctx) for p in parts):
        yield Hit(node, f"`{show(node)}` sizes a new array by how many items a selection on pipeline data keeps; "
                        "the export bakes in the count seen while tracing",
                  "keep every item and weight the unselected ones by zero (a mask multiplied in), so the size is "
                  "fixed")


def _shape_names(operands: list[ast.expr], ctx) -> set[str]:
    """The names holding a run-time shape inside the shape operands (`batch_count` of `delta * batch_count`)."""
    return {n.id for o in operands if ctx.is_shape(o) for n in ast.walk(o)
            if isinstance(n, ast.Name) and ctx.is_shape(n)}


def _reported_before(node: ast.AST, operands: list[ast.expr], ctx) -> bool:
    """Does the expression only carry sizes an earlier expression of the function already mixed in (its shape
    operands hold names, `delta * batch_count / tot_count` after `tot_count = self.count + batch_count`)? The
    function's run-time sizes are reported once, where it first computes with them; a shape read on the line
    itself (`x.shape[0]`) is always reported."""
    if any(ctx.is_shape(o) and not _shape_names([o], ctx) for o in operands):
        return False
    first = ctx.fn.walks.get("first shape mix")
    if first is None:
        mixes = [(n.lineno, n.col_offset) for n in ctx.fn.nodes
                 if isinstance(n, ast.BinOp) and _mixes_shape([n.left, n.right], ctx)]
        first = ctx.fn.walks["first shape mix"] = min(mixes, default=None)
    return first is not None and first < (node.lineno, node.col_offset)


def check(node, ctx):
    if isinstance(node, ast.Subscript):
        grown = growth(node, ctx)
        if grown is not None:
            yield Hit(node, *growing_slice_message(node, grown))
        return
    if isinstance(node, ast.BinOp):
        if holds_texts(ctx.fn, node):
            return   # `[""] * len(frames)`: a list of Python text, which the export does not hold
        if _shape_with_fixed_tail(node, ctx):
            return
        operands = [node.left, node.right]
    elif isinstance(node, ast.Call) and ctx.builtin(node) in ("min", "max"):
        operands = list(node.args)
    elif isinstance(node, ast.Call):
        yield from _stored_shape(node, ctx)
        yield from _sized_by_inner_dimension(node, ctx)
        yield from _sized_by_selection(node, ctx)
        return
    else:
        return
    if any(isinstance(o, ast.BinOp) and _mixes_shape([o.left, o.right], ctx) for o in operands):
        return  # `(n - x.shape[0]) * 2`: reported once, at the part that mixes them
    if _mixes_shape(operands, ctx) and not _reported_before(node, operands, ctx):
        yield Hit(node, f"`{show(node)}` computes with a run-time shape of pipeline data; the export bakes in the "
                        f"traced size",
                  "pad or crop to a fixed size before the exported pipeline and pass a mask or count as a tensor input")


RULE = Rule(
    code="LCM002", name="shape-arithmetic", category="shape-specialization", severity="warning",
    summary="arithmetic mixing a run-time shape of pipeline data with other values",
    what="Flags arithmetic and `min`/`max` that combine `.shape`/`.size()`/`len()` of pipeline data with a "
         "configuration value or other data (padding amounts, count-based features). Pure shape arithmetic "
         "(`x.shape[0] * 2`, `x.view(x.shape[0], -1)`) is not flagged, nor arithmetic on the last dimension or the "
         "rank, which a pipeline fixes (`feats.shape[-1] * horizon`, `C // heads` after `B, T, C = x.size()`: a "
         "feature width, an action dimension), nor a broadcast shape built from the rank (`len(x.shape)`, "
         "`x.ndim`) and the last dimension (`(1,) * (len(x.shape) - 1) + (x.shape[-1],)` to view per-feature "
         "statistics): a pipeline's inputs have one layout, so the rank is the same on every call. A "
         "nested mix is reported once, at its innermost part, and a function's sizes once, where it first computes "
         "with them (`total = self.seen + n` reported, `delta * n / total` after it not: the fix is the same; a "
         "shape read on the later line itself, `x.shape[0]`, is reported there too). Also flags a whole shape stored in a name and "
         "handed to `view`/`reshape`/`expand` later (`sh = x.shape; ...; y.reshape(*sh)`): every size of it, "
         "the batch too, is fixed (not when a helper the entry calls restores its argument's own layout: `shape = q.shape; "
         "q = q.reshape(-1, 4); ...; return out.reshape(shape)`); and a torch factory sized by a dimension between the batch and the last one "
         "(`torch.arange(x.shape[1])`, `torch.ones(emb.shape[:2])`: a sequence or token length), or a NumPy or "
         "torch creation call sized by the count of a masked selection (`np.arange(len(x[keep]))`); and a fixed "
         "slice of the end of an array kept on an object that grows on every call (`self.log[-20:]` with "
         "`self.log = np.vstack([self.log, row])` and no trim): its length depends on the call count.",
    why="Shapes are Python ints while tracing, so the result is a constant of the traced size: padding by "
        "`max_count - count` or a feature `count / max_count` is frozen, and other sizes either fail in ONNX Runtime "
        "or silently reuse the traced value.",
    fix="Compute the variable-size part in the host runtime and feed a fixed-size tensor (and the count as a "
        "tensor) to the exported pipeline.",
    example="pad = torch.zeros(max_count - points.shape[0], 2)",
    fixed_example="# host runtime pads to max_count; the exported model takes (slots, mask)",
    node_types=(ast.BinOp, ast.Call, ast.Subscript), check=check,
    valid=(
        "def step(obs):\n    return obs.reshape(obs.shape[0] * 2, -1)\n",
        "def step(obs, query):\n    return query.expand(obs.shape[0], -1)\n",
        "def step(feats, horizon):\n    width = feats.shape[-1]\n    return feats.reshape(-1, width * horizon)\n",
        "def step(feats):\n    width = feats.shape[-1]\n    return feats.view(-1, width)\n",
        "def step(x, mean):\n    nd = len(x.shape)\n    return x - mean.reshape((1,) * (nd - 1) + (x.shape[-1],))\n",
        "def step(x, heads):\n    B, T, C = x.size()\n    return x.view(B, T, heads, C // heads)\n",
        "import torch\ndef step(obs):\n    return obs + torch.zeros(obs.shape[0], obs.shape[-1])\n",
        # a helper restoring its argument's own layout
        ("def rotate(q, v):\n    shape = v.shape\n    v = v.reshape(-1, 3)\n    out = v * q[..., :1]\n"
         "    return out.reshape(shape)\ndef step(q, v):\n    return rotate(q, v)\n"),
        ("def as_matrix(q):\n    flat = q.reshape(-1, 4)\n    return (flat * 2).reshape(q.shape[:-1] + (2, 2))\n"
         "def step(q):\n    return as_matrix(q)\n"),
    ),
    invalid=(
        "import torch\ndef step(points, max_count):\n    pad = torch.zeros(max_count - points.shape[0], 2)  # error\n    return pad\n",
        "def step(tokens, budget):\n    spare = ((budget - tokens.shape[1]) * 4) // 2  # error\n    return tokens[:, :spare]\n",
        "def step(frames, mix):\n    size = frames.size()\n    flat = mix(frames.flatten(0, 1))\n"
        "    return flat.view(size)  # error\n",
        "import torch\ndef step(tokens, table):\n    ids = torch.arange(tokens.size(1))  # error\n    return tokens + table[ids]\n",
    ),
)
