"""Compare an adapter's result with the original library's: same kind, dtype, shape, values in tolerance."""
from __future__ import annotations

from typing import Any

import numpy as np
import torch


def _kind(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return "torch"
    if isinstance(value, np.ndarray):
        return "ndarray"
    if isinstance(value, np.generic):
        return "numpy scalar"
    if isinstance(value, tuple | list):
        return type(value).__name__
    return type(value).__name__


def mismatch(got: Any, expected: Any, rtol: float, atol: float, exact_kind: bool = True) -> str | None:
    """None when `got` matches `expected`, else a one-line explanation. NaNs match NaNs, infinities
    must match in sign; integer results must be equal when rtol and atol are 0."""
    if isinstance(expected, tuple | list):
        if not isinstance(got, tuple | list) or len(got) != len(expected):
            return f"expected a sequence of {len(expected)}, got {_kind(got)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            problem = mismatch(g, e, rtol, atol, exact_kind)
            if problem:
                return f"item {i}: {problem}"
        return None
    if exact_kind and _kind(got) != _kind(expected):
        return f"kind {_kind(got)} != {_kind(expected)}"
    g = got.detach().numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
    e = expected.detach().numpy() if isinstance(expected, torch.Tensor) else np.asarray(expected)
    if g.dtype != e.dtype:
        return f"dtype {g.dtype} != {e.dtype}"
    if g.shape != e.shape:
        return f"shape {g.shape} != {e.shape}"
    if g.size == 0:
        return None
    if e.dtype.kind in "iub":
        differ = g != e
        return f"{int(differ.sum())} of {e.size} values differ" if differ.any() else None
    close = np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return None
    worst = np.unravel_index(np.argmax(np.where(close, 0, np.abs(g.astype(np.float64) - e))), e.shape)
    return (f"{int((~close).sum())} of {e.size} values outside rtol={rtol:g} atol={atol:g}; "
            f"at {tuple(int(i) for i in worst)}: got {g[worst]!r}, expected {e[worst]!r}")
