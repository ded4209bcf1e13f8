"""Type dispatches the pipeline's own calls decide: `isinstance(x, np.ndarray)` where every reached call hands
`x` a torch tensor.

Helpers written for both array kinds test what they were given (`if isinstance(q, torch.Tensor): return
_torch(q)` / `elif isinstance(q, np.ndarray): return _numpy(q)`, `if not torch.is_tensor(x): x =
torch.as_tensor(x)`). When every call the pipeline makes passes the same kind, the other arm never runs
while tracing: it is not pipeline code. The kinds a parameter receives are recorded per call under
`KIND_KEY + parameter` in the function's constants (`TORCH`, `NUMPY`, `NONE`, or `UNKNOWN` when a call passes
something the scan is not sure of); a test is decided only when every recorded kind decides it the same way.
"""
from __future__ import annotations

import ast

KIND_KEY = "kind:"
TORCH = "<a torch tensor>"
NUMPY = "<a NumPy value>"
NONE = "<None>"

# Type names a torch tensor is never an instance of. Containers stay out: a torch function's answer may be a
# tuple of tensors (`torch.split`), a model's a dict of them, which the strict torch answer does not tell apart.
_NEVER_TENSOR = frozenset({"ndarray", "int", "float", "bool", "str", "bytes", "NoneType", "Number", "number",
                           "generic", "floating", "integer", "complex", "Real", "Integral"})
# A NumPy value (an array or a NumPy scalar) is never a torch tensor; what else it is depends on which.
_NEVER_NUMPY = frozenset({"Tensor", "str", "bytes", "dict", "NoneType", "Mapping"})
# None is an instance of these only.
_NONE_TYPES = frozenset({"NoneType", "object", "Any", "Optional"})


def type_names(node: ast.expr) -> set[str] | None:
    """`torch.Tensor` -> {"Tensor"}; `(np.ndarray, list)` and `A | B` -> both; None when not plain names."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.Tuple):
        parts = [type_names(e) for e in node.elts]
        return None if any(p is None for p in parts) else set().union(*parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = type_names(node.left), type_names(node.right)
        return None if left is None or right is None else left | right
    if isinstance(node, ast.Constant) and node.value is None:
        return {"NoneType"}
    return None


def kind_test(test: ast.expr) -> tuple[str, set[str]] | None:
    """(name, type names) of `isinstance(name, T)` or `torch.is_tensor(name)` (T = {"Tensor"})."""
    if not (isinstance(test, ast.Call) and test.args and isinstance(test.args[0], ast.Name)) or test.keywords:
        return None
    func = test.func
    if isinstance(func, ast.Name) and func.id == "isinstance" and len(test.args) == 2:
        names = type_names(test.args[1])
        return (test.args[0].id, names) if names else None
    if len(test.args) == 1 and (isinstance(func, ast.Attribute) and func.attr == "is_tensor"
                                and isinstance(func.value, ast.Name) and func.value.id == "torch"):
        return test.args[0].id, {"Tensor"}
    return None


def tested_names(fn) -> set[str]:
    """Names `fn` puts through such a test (found once per function)."""
    found = fn.walks.get("kind_tested")
    if found is None:
        found = fn.walks["kind_tested"] = {t[0] for n in fn.nodes if isinstance(n, ast.Call)
                                           for t in [kind_test(n)] if t is not None}
    return found


def kind_outcome(names: set[str], kinds: set) -> bool | None:
    """The truth of `isinstance(x, <names>)` for every kind `x` may hold, when they all agree."""
    outcomes = set()
    for kind in kinds:
        if kind == TORCH:
            outcome = True if "Tensor" in names else False if names <= _NEVER_TENSOR else None
        elif kind == NUMPY:
            outcome = False if names <= _NEVER_NUMPY else None
        elif kind == NONE:
            outcome = None if names & _NONE_TYPES else False
        else:
            outcome = None
        if outcome is None:
            return None
        outcomes.add(outcome)
    return outcomes.pop() if len(outcomes) == 1 else None
