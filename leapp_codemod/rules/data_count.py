"""LCM004: a count the data decides (the positions of the true entries, a length, a 0-d tensor used as a bound)
becomes a Python number or a fixed size in the trace."""
import ast

from leapp_codemod.knowledge.vocab import (
    DATA_SIZED_CALLS, DATA_SIZED_METHODS, NUMPY_ALLOCATORS, ONE_ARGUMENT_WHERE, TORCH_ALLOCATORS,
)
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

_MAX_HOPS = 3
_SIZE_METHODS = frozenset({"size", "numel", "nelement"})
_FIX = ("keep the shape fixed: a mask of the same size as the data (`torch.where(mask, x, 0)`, `x * mask`, "
        "`mask.sum()` as a tensor), or `torch.arange(n) < count` as a mask instead of a slice or loop bound")


def sized_call(e: ast.expr, ctx) -> bool:
    """A call on pipeline data whose result has a data-dependent number of entries (`m.nonzero()`,
    `torch.where(m)`, `np.unique(x)`, `torch.masked_select(x, m)`)."""
    if not isinstance(e, ast.Call):
        return False
    name = ctx.call_name(e)
    if name in DATA_SIZED_CALLS or (name in ONE_ARGUMENT_WHERE and len(e.args) == 1 and not e.keywords):
        return ctx.args_data(e)
    func = e.func
    return name is None and isinstance(func, ast.Attribute) and func.attr in DATA_SIZED_METHODS \
        and ctx.is_data(func.value)


def sized_result(e: ast.expr, ctx, hops: int = 0) -> bool:
    """`sized_call`, an item of one (`m.nonzero(as_tuple=True)[0]`), or a name bound only to one of them."""
    if isinstance(e, ast.Subscript):
        return sized_result(e.value, ctx, hops)
    if isinstance(e, ast.Name) and hops < _MAX_HOPS:
        bound = ctx.fn.assigned(e.id)
        return bool(bound) and all(sized_result(v, ctx, hops + 1) for v in bound)
    return sized_call(e, ctx)


def _measured(name: str, ctx) -> bool:
    """`len(name)`, `name.shape`, `name.size()`, `name.numel()` somewhere in the function."""
    for node in ctx.fn.nodes:
        if isinstance(node, ast.Call) and ctx.builtin(node) == "len" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name \
                and (node.attr == "shape" or node.attr in _SIZE_METHODS):
            return True
    return False


def _bound_name(call: ast.Call, ctx) -> str | None:
    """The name a statement `n = <call>` or `n = <call>[i]` binds the call's result to."""
    for node in ctx.fn.nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            while isinstance(value, ast.Subscript):
                value = value.value
            if value is call:
                return node.targets[0].id
    return None


def _count_value(e: ast.expr | None, ctx) -> bool:
    """A value of pipeline data computed in the function (a 0-d tensor such as `mask.sum()` or a row of
    `counts`), not a shape and not a parameter as given (a setting passed in)."""
    if e is None or not ctx.is_data(e) or ctx.is_shape(e) or _python_length(e, ctx):
        return False
    return not (isinstance(e, ast.Name) and e.id in ctx.fn.params)


def _python_length(e: ast.expr, ctx) -> bool:
    """`len(self.history) - 1`, or a name bound to such: the length of a Python container (the state rules'
    business when the container grows), not a count the values decide."""
    def has_len(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Call) and ctx.builtin(n) == "len" for n in ast.walk(node))
    return has_len(e) or any(isinstance(n, ast.Name) and any(has_len(v) for v in ctx.fn.assigned(n.id))
                             for n in ast.walk(e))


def _constant_allocation(e: ast.expr, ctx) -> bool:
    """A local bound only to a tensor or array allocated with no pipeline data among the arguments
    (`m = torch.full((b, n, n), -inf)`): a constant of the trace, not a traced value."""
    while isinstance(e, ast.Subscript):
        e = e.value
    if not isinstance(e, ast.Name):
        return False
    bound = ctx.fn.assigned(e.id)
    return bool(bound) and all(isinstance(v, ast.Call) and ctx.call_name(v) in TORCH_ALLOCATORS | NUMPY_ALLOCATORS
                               and not ctx.args_data(v) for v in bound)


def _check_call(node: ast.Call, ctx):
    name = ctx.builtin(node)
    if name == "len" and len(node.args) == 1 and sized_result(node.args[0], ctx):
        yield Hit(node, f"`{show(node)}` turns the number of entries the data selected into a Python int: the "
                        "trace keeps the count seen while tracing", _FIX)
        return
    if name == "range":
        bound = next((a for a in node.args if _count_value(a, ctx)), None)
        if bound is not None:
            yield Hit(node, f"`{show(node)}` loops as many times as the pipeline value `{show(bound)}` says: the "
                            "trace unrolls the count seen while tracing", _FIX)
        return
    if not sized_call(node, ctx):
        return
    if ctx.call_name(node) == "torch.masked_select" or (isinstance(node.func, ast.Attribute)
                                                        and node.func.attr == "masked_select"):
        yield Hit(node, f"`{show(node)}` selects a data-dependent number of entries: the ONNX conversion of the "
                        "selection fails", _FIX)
        return
    bound = _bound_name(node, ctx)
    if bound is not None and _measured(bound, ctx):
        yield Hit(node, f"`{show(node)}` has as many entries as the data selects, and its length is used: the trace "
                        "keeps the length seen while tracing", _FIX)


def _check_subscript(node: ast.Subscript, ctx):
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    bound = next((b for p in parts if isinstance(p, ast.Slice) for b in (p.lower, p.upper)
                  if _count_value(b, ctx)), None)
    if bound is None or not _constant_allocation(node.value, ctx):
        return
    yield Hit(node, f"`{show(node)}` slices a constant tensor up to the pipeline value `{show(bound)}`: the slice "
                    "is taken while tracing and the export keeps its size", _FIX)


def check(node, ctx):
    if ctx.only_logged(node):
        return
    if isinstance(node, ast.Call):
        yield from _check_call(node, ctx)
    else:
        yield from _check_subscript(node, ctx)


RULE = Rule(
    code="LCM004", name="data-dependent-count", category="shape-specialization", severity="error",
    summary="a count the data decides used as a size: `len()` of `nonzero()`, `masked_select`, a 0-d tensor as a "
            "loop or slice bound",
    what="Flags where the number of entries the data selects becomes a size: `len()` of a `nonzero()` / "
         "`torch.where(cond)` / `unique()` result (and the call itself when its length is used), "
         "`torch.masked_select`, `range(count)` with a count computed from pipeline data, and a 0-d tensor of "
         "pipeline data used as a slice bound of a constant tensor (`mask[i, :cnt] = 0` with "
         "`mask = torch.full(...)`). Checked with the installed leapp 0.7.2: `x[m.nonzero(as_tuple=True)[0]]` and "
         "`torch.where(m)` used as an index into traced data, reduced to a fixed shape, export and match fresh "
         "inputs, and a 0-d tensor bound on a traced tensor is lowered to `narrow` and matches too, so those "
         "alone are not flagged; `len()` of the positions fails at the next call with another count "
         "('Reentering ... new i/o'), `masked_select` fails the ONNX conversion, and `range(count)` or a bound "
         "on a constant tensor export and silently keep the traced count (tests/test_leapp_data_counts.py).",
    why="LEAPP records tensor operations with the sizes seen while tracing. A length taken with `len()`, a loop "
        "count or a slice of an untraced tensor is decided in Python, so the export repeats what the tracing call "
        "saw whatever the new data selects.",
    fix="Keep the shape fixed: a mask the size of the data (`torch.where(mask, x, 0)`, `x * mask`), counts kept as "
        "tensors, and `torch.arange(n) < count` as a mask instead of a slice or a loop bound.",
    example="idx = mask[i].nonzero(as_tuple=True)[0]\nout[i, idx] = feats[i, :len(idx)]",
    fixed_example="order = torch.cumsum(mask[i].long(), 0) - 1\n"
                  "out[i] = torch.where(mask[i, :, None], feats[i, order.clamp(min=0)], out[i])",
    node_types=(ast.Call, ast.Subscript), check=check,
    valid=(
        "import torch\ndef step(x):\n    idx = (x > 0).nonzero(as_tuple=True)[0]\n    return x[idx].sum()\n",
        "import torch\ndef step(x, n):\n    out = torch.zeros(8)\n    for i in range(n):\n        out[:n] = x[:n]\n"
        "    return out\n",
        "import torch\ndef step(x):\n    cnt = (x > 0).sum()\n    y = x * 2\n    y[:cnt] = 0\n    return y\n",
        "import collections\nimport torch\nclass P:\n    def __init__(self):\n        self.hist = collections.deque(maxlen=4)\n"
        "    def step(self, x):\n        self.hist.append(x)\n        n = len(self.hist)\n"
        "        return torch.stack([self.hist[i] for i in range(n - 1, -1, -1)]).mean(0)\n",
    ),
    invalid=(
        "import torch\ndef step(x):\n    idx = torch.where(x > 0)[0]  # error\n    n = len(idx)  # error\n"
        "    return x[:n]\n",
        "import torch\ndef step(x):\n    return torch.masked_select(x, x > 0).mean()  # error\n",
        "import torch\ndef step(x):\n    cnt = (x > 0).sum()\n    m = torch.full((8,), -1.0)\n"
        "    m[:cnt] = 0  # error\n    return x + m\n",
        "import numpy as np\ndef step(x):\n    k = np.count_nonzero(x > 0)\n    out = x * 1.0\n"
        "    for _ in range(k):  # error\n        out = out + 1\n    return out\n",
    ),
)
