"""Whether a lowering failure belongs to the traced graph or to the exporter.

Every exporter lowers the same traced graph. When that graph, run as it is by torch (no exporter, on
the values of the first traced call), raises, the failure is the graph's own (a Python list where a
tensor op takes tensors, an op called with arguments it does not accept): no other exporter can fix
it, so it is classified once and not retried. A graph that runs failed in its exporter only.
"""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import torch

from leapp_codemod.runner.errors import failing_op, one_line


def graph_error() -> str:
    """`Type: message` of the first traced node whose graph raises when run by torch itself, or ''
    when every graph runs (or none can be run here: the failure is then the exporter's)."""
    try:
        from leapp import leapp as session
        nodes = list(session._MANAGER.get_nodes().values())
    except Exception:  # noqa: BLE001 - a LEAPP without this bookkeeping: cannot tell
        return ""
    for node in nodes:
        error = _runs(getattr(node, "m", None), [getattr(d, "value", None) for d in getattr(node, "inputs", None) or []])
        if error:
            return error
    return ""


def _runs(graph, inputs: list) -> str:
    if not isinstance(graph, torch.fx.GraphModule) or not all(isinstance(v, torch.Tensor) for v in inputs):
        return ""
    placeholders = [n for n in graph.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(inputs):
        return ""
    try:
        # torch.fx prints the generated code of a failing graph to stderr: the error is reported instead
        with torch.no_grad(), contextlib.redirect_stderr(io.StringIO()):
            graph(*inputs)
    except Exception as exc:  # noqa: BLE001 - any error of the graph itself
        return one_line(exc)
    return ""


# Torch's words for operands of one op in different dtypes (float32 @ float64 does not promote in a graph).
_DTYPE_MIX = ("must have the same dtype", "expected scalar type", "expected both vectors to have same dtype",
              "expected m1 and m2 to have the same dtype",
              "bound to different types (tensor(double) and tensor(float)",     # ONNX Runtime loading the model
              "bound to different types (tensor(float) and tensor(double)")
_PRODUCT = re.compile(r"[^@\s]\s*@\s*[^@=\s]|\bmatmul\(|\.dot\(|\bnp\.dot\(|\beinsum\("
                      r"|\b(?:linear|mm|bmm|addmm|mv|conv[123]d)\(")
# A name the file binds to a torch layer (`self.fc = nn.Linear(...)`): calling it (`self.fc(x)`) multiplies its
# float32 weights with the input, where a float64 input fails in a traced graph as in a matrix product.
_LAYER_BIND = re.compile(r"(?:\bself\.)?\b(\w+)\s*=\s*(?:torch\.)?nn\.[A-Z]\w*\(")


def _layer_call(names: set[str]):
    return re.compile(rf"\b({'|'.join(sorted(names))})\s*\(") if names else None


def mixed_dtype_lines(error: str, executed: dict[str, list[int]], root: str, limit: int = 4) -> list[str]:
    """When the graph fails on operands of different dtypes: the executed application lines (paths under
    `root`) that take a matrix product, where NumPy promotes float32 with float64 and a traced graph does not;
    when none ran, the calls of torch layers the file builds (`self.fc(x)`)."""
    if not any(m in error for m in _DTYPE_MIX):
        return []
    out: list[str] = []
    layers: list[str] = []      # named only when no matrix product ran (a product line is the likelier mix)
    for path, lines in executed.items():
        try:
            text = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        shown = Path(path).resolve()
        name = str(shown.relative_to(Path(root).resolve())) if shown.is_relative_to(Path(root).resolve()) else path
        layer = _layer_call({m.group(1) for t in text for m in _LAYER_BIND.finditer(t.split("#", 1)[0])})
        for line in lines:
            src = text[line - 1].split("#", 1)[0] if 0 < line <= len(text) else ""
            if src.strip().startswith("@") or _LAYER_BIND.search(src):
                continue
            if _PRODUCT.search(src):
                out.append(f"{name}:{line}")
            elif layer is not None and layer.search(src):
                layers.append(f"{name}:{line}")
    return (out or layers)[:limit]


def op_lines(error: str, executed: dict[str, list[int]], root: str, limit: int = 4) -> list[str]:
    """The executed application lines (paths under `root`) that call the function the graph error
    names (`np.cumsum(...)`, `torch.cumsum(...)`, `x.cumsum(...)`): the torch message carries no line."""
    op = failing_op(error)
    if not op:
        return []
    call = re.compile(rf"(?:\.|\b){re.escape(op)}\s*\(")
    out: list[str] = []
    base = Path(root).resolve() if root else None
    for path, lines in executed.items():
        shown = Path(path).resolve()
        if base is not None and not shown.is_relative_to(base):
            continue
        try:
            text = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        name = str(shown.relative_to(base)) if base is not None else path
        for line in lines:
            src = text[line - 1].split("#", 1)[0] if 0 < line <= len(text) else ""
            if call.search(src) and not src.lstrip().startswith(("def ", "class ")):
                out.append(f"{name}:{line}")
    return out[:limit]
