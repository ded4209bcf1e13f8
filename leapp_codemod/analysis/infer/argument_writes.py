"""Library calls that write into an argument (`np.copyto(dst, src)`, `out=`, an in-place `torch.nn.init` function,
an OpenCV drawing call): the destination is what they change."""
from __future__ import annotations

import ast

from leapp_codemod.knowledge.vocab import ARGUMENT_WRITERS, DRAWING_FUNCTIONS


def writes_argument(call: ast.Call, name: str) -> bool:
    """`torch.nn.init.zeros_(w)`, `np.copyto(dst, src)`, `out=`: a library call that writes an argument."""
    last = name.rsplit(".", 1)[-1]
    return (last.endswith("_") and not last.startswith("_")) or written_argument(call, name) is not None


def written_argument(call: ast.Call, name: str) -> ast.expr | None:
    """The argument a library call writes its result into: `out=` (`np.multiply(a, k, out=buf)`), or the first
    argument of a function made to fill it (`np.copyto(dst, src)`, `np.put(a, idx, v)`)."""
    out = next((k.value for k in call.keywords if k.arg == "out"), None)
    if out is not None:
        return out
    return call.args[0] if call.args and (name.rsplit(".", 1)[-1] in ARGUMENT_WRITERS or name in DRAWING_FUNCTIONS) \
        else None


_WRITER_NAMES = ARGUMENT_WRITERS | {name.rpartition(".")[2] for name in DRAWING_FUNCTIONS}


def may_write_argument(call: ast.Call) -> bool:
    """Can `written_argument` find a destination, judged by the call's spelling (`out=`, a writer's last name)?"""
    func = call.func
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return last in _WRITER_NAMES or any(k.arg == "out" for k in call.keywords)

