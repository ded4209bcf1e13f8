"""`scipy.special.expit`, `logit` and `softmax` in torch.

expit and logit are NumPy ufuncs: float32 stays float32, float64 stays float64, integers and booleans
give float64. softmax follows NumPy promotion the same way. Out-of-range logit inputs give the same
nan / +-inf as SciPy.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ._core import (
    Adapter,
    check_dtype,
    compute_dtype,
    finish,
    is_numpy_input,
    numpy_dtype,
    plain,
    refuse,
    to_tensor,
)

FLOATS_AND_INTS = ("float32", "float64", "int")
UFUNC_DOMAIN = "x: float32 or float64 (integers and bool are promoted to float64), any shape; no out=/where="


def _ufunc_result(x: Any) -> np.dtype:
    dtype = numpy_dtype(x)
    return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float64)


def _check_ufunc(name: str, x: Any, *args: Any, **kwargs: Any) -> None:
    if args or kwargs:
        raise refuse(name, "argument", f"only the input array is supported, got {len(args)} more positional "
                                       f"and keywords {sorted(kwargs)}")
    check_dtype(name, "x", x, FLOATS_AND_INTS)


def check_expit(x: Any, *args: Any, **kwargs: Any) -> None:
    _check_ufunc("scipy.special.expit", x, *args, **kwargs)


def expit(x: Any, *args: Any, **kwargs: Any) -> Any:
    check_expit(x, *args, **kwargs)
    dtype = _ufunc_result(x)
    t = to_tensor(x, compute_dtype(dtype))
    return finish(torch.sigmoid(t), is_numpy_input(x), dtype, scalar=plain(x))


def check_logit(x: Any, *args: Any, **kwargs: Any) -> None:
    _check_ufunc("scipy.special.logit", x, *args, **kwargs)


def logit(x: Any, *args: Any, **kwargs: Any) -> Any:
    check_logit(x, *args, **kwargs)
    dtype = _ufunc_result(x)
    t = to_tensor(x, compute_dtype(dtype))
    # SciPy switches to log1p(s) - log1p(-s), s = 2x - 1, on [0.3, 0.65] to keep precision near 0.5.
    s = 2 * (t - 0.5)
    near_half = (t >= 0.3) & (t <= 0.65)
    out = torch.where(near_half, torch.log1p(s) - torch.log1p(-s), torch.log(t / (1 - t)))
    return finish(out, is_numpy_input(x), dtype, scalar=plain(x))


def _axes(name: str, axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    if not all(isinstance(a, int | np.integer) and -ndim <= a < ndim for a in axes) or not axes:
        raise refuse(name, "axis", f"{axis!r} for an array with {ndim} dimension(s)")
    return tuple(int(a) % ndim for a in axes)


def check_softmax(x: Any, axis: Any = None) -> None:
    check_dtype("scipy.special.softmax", "x", x, FLOATS_AND_INTS)
    if np.ndim(x) == 0 and axis is None:
        return
    _axes("scipy.special.softmax", axis, np.ndim(x))


def softmax(x: Any, axis: Any = None) -> Any:
    check_softmax(x, axis)
    dtype = _ufunc_result(x)
    t = to_tensor(x, compute_dtype(dtype))
    if t.ndim == 0:
        return finish(torch.ones_like(t), is_numpy_input(x), dtype, scalar=plain(x))
    dims = _axes("scipy.special.softmax", axis, t.ndim)
    shifted = torch.exp(t - torch.amax(t, dim=dims, keepdim=True))
    out = shifted / torch.sum(shifted, dim=dims, keepdim=True)
    return finish(out, is_numpy_input(x), dtype)


ADAPTERS = {
    "scipy.special.expit": Adapter("scipy.special.expit", expit, UFUNC_DOMAIN, check_expit),
    "scipy.special.logit": Adapter("scipy.special.logit", logit, UFUNC_DOMAIN + "; values outside [0, 1] "
                                   "give nan as in SciPy", check_logit),
    "scipy.special.softmax": Adapter("scipy.special.softmax", softmax,
                                     "x: float32 or float64 (integers promoted to float64), any shape; axis: "
                                     "None, int or tuple of ints", check_softmax),
}
