"""NumPy adapters: statistics (median, percentile, quantile, average) and nan_to_num."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from ._core import (
    check_dtype,
    compute_dtype,
    const,
    finish,
    is_numpy_input,
    is_traced,
    numpy_dtype,
    plain,
    refuse,
    result_dtype,
    to_tensor,
)
from ._numpy_base import (
    _NP,
    ANY,
    NUMERIC,
    _axis,
    _constant,
    _ndim,
    _no_extra,
    _shape,
)


# -------------------------------------------------------------------------------- statistics ---
def _moveaxes_last(t: torch.Tensor, axes: tuple[int, ...]) -> torch.Tensor:
    keep = [d for d in range(t.ndim) if d not in axes]
    return t.permute(*keep, *axes).reshape(*[t.shape[d] for d in keep], -1)


def _sorted_lane(t: torch.Tensor, axis: Any) -> tuple[torch.Tensor, tuple[int, ...] | None]:
    if axis is None:
        return torch.sort(t.reshape(-1)).values, None
    axes = axis if isinstance(axis, tuple) else (axis,)
    return torch.sort(_moveaxes_last(t, axes), dim=-1).values, axes


def _restore_keepdims(out: torch.Tensor, shape: tuple[int, ...], axes: tuple[int, ...] | None) -> torch.Tensor:
    axes = tuple(range(len(shape))) if axes is None else axes
    return out.reshape([1 if d in axes else n for d, n in enumerate(shape)])


def _lerp_at(lane: torch.Tensor, q: float, out: torch.dtype) -> torch.Tensor:
    """NumPy's 'linear' method: virtual index n*q + (1 - q) - 1, then `_lerp`, whose difference b - a is
    taken in the input dtype and whose t >= 0.5 branch interpolates from the upper neighbour."""
    n = lane.shape[-1]
    virtual = n * q + (1 + q * (1 - 1 - 1)) - 1
    if virtual >= n - 1:
        lower, upper, gamma = n - 1, n - 1, 0.0
    elif virtual < 0:
        lower, upper, gamma = 0, 0, 0.0
    else:
        lower = math.floor(virtual)
        upper, gamma = lower + 1, virtual - lower
    a, b = lane[..., lower], lane[..., upper]
    delta = (b - a).to(out)
    if gamma >= 0.5:
        return b.to(out) - delta * const(1 - gamma, delta)
    return a.to(out) + delta * const(gamma, delta)


def _check_stat(name: str, a: Any, axis: Any, kwargs: dict[str, Any], **defaults: Any) -> None:
    check_dtype(name, "a", a, NUMERIC)
    _no_extra(name, kwargs, **defaults)
    if _ndim(a) == 0 and axis is None:
        return
    _axis(name, axis, _ndim(a), allow_tuple=True)
    if 0 in _shape(a):
        raise refuse(name, "a", "empty input")


def _quantiles(name: str, original: Callable, a: Any, q: Any, axis: Any, keepdims: bool, scale: float) -> Any:
    dtype = result_dtype(original, a, q, axis=axis)
    t = to_tensor(a)
    shape = tuple(t.shape)
    lane, axes = _sorted_lane(t.reshape(1) if t.ndim == 0 else t, axis)
    qs = np.asarray(q, dtype=np.float64) / scale
    outs = [_lerp_at(lane, float(v), compute_dtype(dtype)) for v in qs.reshape(-1)]
    if keepdims:
        outs = [_restore_keepdims(o, shape, axes) for o in outs]
    out = torch.stack(outs).reshape(qs.shape + tuple(outs[0].shape)) if qs.ndim else outs[0]
    return finish(out, is_numpy_input(a), dtype, scalar=plain(a))


def check_median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                 keepdims: bool = False) -> None:
    _check_stat("numpy.median", a, axis, {"out": out})


def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False) -> Any:
    check_median(a, axis, out, overwrite_input, keepdims)
    dtype = result_dtype(_NP["median"], a, axis=axis)
    t = to_tensor(a, compute_dtype(dtype) if dtype.kind == "f" else torch.float64)
    shape = tuple(t.shape)
    axes_arg = _axis("numpy.median", axis, max(t.ndim, 1), allow_tuple=True)
    lane, axes = _sorted_lane(t.reshape(1) if t.ndim == 0 else t, axes_arg)
    n = lane.shape[-1]
    mid = n // 2
    value = lane[..., mid] if n % 2 else (lane[..., mid - 1] + lane[..., mid]) / 2
    if keepdims:
        value = _restore_keepdims(value, shape, axes)
    return finish(value, is_numpy_input(a), dtype, scalar=plain(a))


def _check_q(name: str, q: Any, upper: float) -> None:
    values = _constant(name, "q", q)
    if values.dtype.kind not in "iuf" or values.ndim > 1 or np.any(values < 0) or np.any(values > upper):
        raise refuse(name, "q", f"{q!r} (constant scalar or 1-D in [0, {upper:g}])")


def check_percentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                     method: str = "linear", keepdims: bool = False, **kwargs: Any) -> None:
    _check_stat("numpy.percentile", a, axis, {"out": out, "method": method, **kwargs}, method="linear")
    _check_q("numpy.percentile", q, 100.0)


def percentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, **kwargs: Any) -> Any:
    check_percentile(a, q, axis, out, overwrite_input, method, keepdims, **kwargs)
    ax = _axis("numpy.percentile", axis, max(_ndim(a), 1), allow_tuple=True)
    return _quantiles("numpy.percentile", _NP["percentile"], a, q, ax, keepdims, 100.0)


def check_quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                   method: str = "linear", keepdims: bool = False, **kwargs: Any) -> None:
    _check_stat("numpy.quantile", a, axis, {"out": out, "method": method, **kwargs}, method="linear")
    _check_q("numpy.quantile", q, 1.0)


def quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, **kwargs: Any) -> Any:
    check_quantile(a, q, axis, out, overwrite_input, method, keepdims, **kwargs)
    ax = _axis("numpy.quantile", axis, max(_ndim(a), 1), allow_tuple=True)
    return _quantiles("numpy.quantile", _NP["quantile"], a, q, ax, keepdims, 1.0)


def check_average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
                  keepdims: bool = False) -> None:
    name = "numpy.average"
    _check_stat(name, a, axis, {"returned": returned}, returned=False)
    if weights is not None:
        check_dtype(name, "weights", weights, NUMERIC)
        if _shape(weights) != _shape(a) and not (axis is not None and isinstance(axis, int | np.integer)
                                                 and _ndim(weights) == 1
                                                 and _shape(weights)[0] == _shape(a)[int(axis) % _ndim(a)]):
            raise refuse(name, "weights", f"shape {_shape(weights)} for input {_shape(a)} and axis={axis!r}")


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *, keepdims: bool = False) -> Any:
    check_average(a, axis, weights, returned, keepdims=keepdims)
    dtype = result_dtype(_NP["average"], a, axis=axis, weights=None if weights is None else
                         np.ones(_shape(weights), dtype=numpy_dtype(weights)))
    t = to_tensor(a, compute_dtype(dtype))
    ax = _axis("numpy.average", axis, max(t.ndim, 1), allow_tuple=True)
    dims = tuple(range(t.ndim)) if ax is None else ax if isinstance(ax, tuple) else (ax,)
    if weights is None:
        out = torch.sum(t, dim=dims, keepdim=bool(keepdims)) / math.prod(t.shape[d] for d in dims) if t.ndim \
            else t.clone()
    else:
        w = to_tensor(weights, compute_dtype(dtype))
        if w.shape != t.shape:
            shape = [1] * t.ndim
            shape[dims[0]] = w.shape[0]
            w = w.reshape(shape)
        w = torch.broadcast_to(w, t.shape)
        out = torch.sum(t * w, dim=dims, keepdim=bool(keepdims)) / torch.sum(w, dim=dims, keepdim=bool(keepdims))
    as_numpy = is_numpy_input(a) and (weights is None or is_numpy_input(weights))
    return finish(out, as_numpy, dtype, scalar=plain(a, weights))


def check_nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> None:
    check_dtype("numpy.nan_to_num", "x", x, ANY)
    for label, value in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if value is not None and (is_traced(value) or np.ndim(value) != 0):
            raise refuse("numpy.nan_to_num", label, "must be a constant scalar")


def nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
    check_nan_to_num(x, copy, nan, posinf, neginf)
    dtype = numpy_dtype(x)
    t = to_tensor(x)
    if dtype.kind != "f":
        return finish(t.clone(), is_numpy_input(x), dtype, scalar=plain(x))
    info = np.finfo(dtype)
    big = float(info.max) if posinf is None else float(posinf)
    small = float(-info.max) if neginf is None else float(neginf)
    out = torch.where(torch.isnan(t), const(float(nan), t), t)
    out = torch.where(out == math.inf, const(big, t), out)
    out = torch.where(out == -math.inf, const(small, t), out)
    return finish(out, is_numpy_input(x), dtype, scalar=plain(x))
