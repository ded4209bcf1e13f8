"""NumPy adapters: element-wise functions, rounding, max/min reductions, linalg.norm and interp."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from . import _math
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
    _NORM,
    _NP,
    ANY,
    FLOATS,
    NUMERIC,
    _axis,
    _constant,
    _ndim,
    _no_extra,
    _shape,
)


# ------------------------------------------------------------------------------ element-wise ---
def _unary(name: str, original: Callable, allowed: tuple[str, ...], body: Callable[[torch.Tensor], torch.Tensor]):
    def check(x: Any, *args: Any, **kwargs: Any) -> None:
        if args:
            raise refuse(name, "argument", "only the input array is supported (no out)")
        _no_extra(name, kwargs)
        check_dtype(name, "x", x, allowed)

    def adapter(x: Any, *args: Any, **kwargs: Any) -> Any:
        check(x, *args, **kwargs)
        dtype = result_dtype(original, x)
        return finish(body(to_tensor(x, compute_dtype(dtype))), is_numpy_input(x), dtype, scalar=plain(x))

    adapter.__name__ = adapter.__qualname__ = name.rsplit(".", 1)[-1]
    return adapter, check


def _binary(name: str, original: Callable, allowed: tuple[str, ...],
            body: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]):
    def check(x1: Any, x2: Any, *args: Any, **kwargs: Any) -> None:
        if args:
            raise refuse(name, "argument", "only the two input arrays are supported (no out)")
        _no_extra(name, kwargs)
        check_dtype(name, "x1", x1, allowed)
        check_dtype(name, "x2", x2, allowed)
        try:
            np.broadcast_shapes(_shape(x1), _shape(x2))
        except ValueError as exc:
            raise refuse(name, "shapes", f"{_shape(x1)} and {_shape(x2)} do not broadcast") from exc

    def adapter(x1: Any, x2: Any, *args: Any, **kwargs: Any) -> Any:
        check(x1, x2, *args, **kwargs)
        dtype = result_dtype(original, x1, x2)
        t1, t2 = to_tensor(x1, compute_dtype(dtype)), to_tensor(x2, compute_dtype(dtype))
        as_numpy = is_numpy_input(x1) and is_numpy_input(x2)
        return finish(body(t1, t2), as_numpy, dtype, scalar=plain(x1, x2))

    adapter.__name__ = adapter.__qualname__ = name.rsplit(".", 1)[-1]
    return adapter, check


def _logaddexp(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # NumPy returns x + log(2) for equal inputs, which keeps logaddexp(inf, inf) = inf (not nan).
    same = a == b
    spread = torch.where(same, torch.zeros_like(a), a - b)
    general = torch.maximum(a, b) + torch.log1p(torch.exp(-torch.abs(spread)))
    return torch.where(same, a + const(math.log(2.0), a), general)


deg2rad, check_deg2rad = _unary("numpy.deg2rad", _NP["deg2rad"], NUMERIC, lambda t: t * const(math.pi / 180.0, t))
rad2deg, check_rad2deg = _unary("numpy.rad2deg", _NP["rad2deg"], NUMERIC, lambda t: t * const(180.0 / math.pi, t))
reciprocal, check_reciprocal = _unary("numpy.reciprocal", _NP["reciprocal"], FLOATS, lambda t: 1.0 / t)
fabs, check_fabs = _unary("numpy.fabs", _NP["fabs"], NUMERIC, torch.abs)
logaddexp, check_logaddexp = _binary("numpy.logaddexp", _NP["logaddexp"], NUMERIC, _logaddexp)
hypot, check_hypot = _binary("numpy.hypot", _NP["hypot"], NUMERIC, _math.hypot)
float_power, check_float_power = _binary("numpy.float_power", _NP["float_power"], NUMERIC, torch.pow)
arctan2, check_arctan2 = _binary("numpy.arctan2", _NP["arctan2"], NUMERIC, _math.atan2)
arctan, check_arctan = _unary("numpy.arctan", _NP["arctan"], NUMERIC, _math.atan)
arcsin, check_arcsin = _unary("numpy.arcsin", _NP["arcsin"], NUMERIC, _math.asin)
arccos, check_arccos = _unary("numpy.arccos", _NP["arccos"], NUMERIC, _math.acos)
tan, check_tan = _unary("numpy.tan", _NP["tan"], NUMERIC, _math.tan)


# ----------------------------------------------------------------------------------- rounding ---
def check_round(a: Any, decimals: int = 0, out: Any = None) -> None:
    check_dtype("numpy.round", "a", a, NUMERIC)
    if out is not None:
        raise refuse("numpy.round", "out", "out= is not supported")
    if not isinstance(decimals, int | np.integer) or isinstance(decimals, bool):
        raise refuse("numpy.round", "decimals", f"{decimals!r} (an int constant is required)")


def round_(a: Any, decimals: int = 0, out: Any = None) -> Any:
    check_round(a, decimals, out)
    dtype = numpy_dtype(a)
    t = to_tensor(a)
    if dtype.kind in "iub" and decimals >= 0:
        return finish(t.clone(), is_numpy_input(a), dtype, scalar=plain(a))
    t = t.to(compute_dtype(dtype) if dtype.kind == "f" else torch.float64)
    # NumPy: decimals >= 0 -> rint(x * 10**d) / 10**d, decimals < 0 -> rint(x / 10**-d) * 10**-d.
    if decimals >= 0:
        scale = 10.0 ** int(decimals)
        out_t = torch.round(t * scale) / scale
    else:
        scale = 10.0 ** -int(decimals)
        out_t = torch.round(t / scale) * scale
    return finish(out_t, is_numpy_input(a), dtype, scalar=plain(a))


round_.__name__ = round_.__qualname__ = "round"


# ------------------------------------------------------------------------- reductions (max/min) ---
def _reduction(name: str, body: Callable):
    def check(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, **kwargs: Any) -> None:
        check_dtype(name, "a", a, ANY)
        if out is not None:
            raise refuse(name, "out", "out= is not supported")
        _no_extra(name, kwargs)
        if _ndim(a) == 0 and axis is None:
            return
        _axis(name, axis, _ndim(a), allow_tuple=True)

    def adapter(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
        check(a, axis, out, keepdims, **kwargs)
        dtype = numpy_dtype(a)
        t = to_tensor(a)
        if t.ndim == 0:
            return finish(t.clone(), is_numpy_input(a), dtype, scalar=plain(a))
        dims = _axis(name, axis, t.ndim, allow_tuple=True)
        dims = tuple(range(t.ndim)) if dims is None else dims if isinstance(dims, tuple) else (dims,)
        return finish(body(t, dim=dims, keepdim=bool(keepdims)), is_numpy_input(a), dtype, scalar=plain(a))

    adapter.__name__ = adapter.__qualname__ = name.rsplit(".", 1)[-1]
    return adapter, check


amax, check_amax = _reduction("numpy.max", torch.amax)
amin, check_amin = _reduction("numpy.min", torch.amin)


# --------------------------------------------------------------------------------- linalg.norm ---
def _vector_norm(t: torch.Tensor, ord_: Any, dims: tuple[int, ...], keepdim: bool) -> torch.Tensor:
    a = torch.abs(t)
    if ord_ is None or ord_ == 2:
        return torch.sqrt(torch.sum(t * t, dim=dims, keepdim=keepdim))
    if ord_ == math.inf:
        return torch.amax(a, dim=dims, keepdim=keepdim)
    if ord_ == -math.inf:
        return torch.amin(a, dim=dims, keepdim=keepdim)
    if ord_ == 1:
        return torch.sum(a, dim=dims, keepdim=keepdim)
    return torch.pow(torch.sum(torch.pow(a, float(ord_)), dim=dims, keepdim=keepdim), 1.0 / float(ord_))


def _matrix_norm(t: torch.Tensor, ord_: Any, rows: int, cols: int, keepdim: bool) -> torch.Tensor:
    if ord_ in (None, "fro"):
        return torch.sqrt(torch.sum(t * t, dim=(rows, cols), keepdim=keepdim))
    a = torch.abs(t)
    # ord=+-1: extreme column sum (sum over rows); ord=+-inf: extreme row sum (sum over columns).
    summed, other = (rows, cols) if ord_ in (1, -1) else (cols, rows)
    sums = torch.sum(a, dim=summed, keepdim=True)
    pick = torch.amax if ord_ in (1, math.inf) else torch.amin
    out = pick(sums, dim=other, keepdim=True)
    return out if keepdim else out.squeeze(max(rows, cols)).squeeze(min(rows, cols))


def check_norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> None:
    name = "numpy.linalg.norm"
    check_dtype(name, "x", x, NUMERIC)
    ndim = _ndim(x)
    axes = _axis(name, axis, ndim, allow_tuple=True)
    if axes is None:
        if ord is None:
            return
        if ndim not in (1, 2):
            raise refuse(name, "ord", f"ord={ord!r} needs a 1-D or 2-D input or an explicit axis")
        axes = (0,) if ndim == 1 else (0, 1)
    n_axes = len(axes) if isinstance(axes, tuple) else 1
    if n_axes == 1:
        if isinstance(ord, str) or not (ord is None or isinstance(ord, int | float | np.number)) or ord == 0:
            raise refuse(name, "ord", f"vector ord={ord!r} (supported: None, 2, 1, inf, -inf, any p > 0)")
        if ord is not None and ord not in (math.inf, -math.inf) and ord < 0:
            raise refuse(name, "ord", f"vector ord={ord!r} (negative p is not supported)")
    elif n_axes == 2:
        if ord not in (None, "fro", 1, -1, math.inf, -math.inf):
            raise refuse(name, "ord", f"matrix ord={ord!r} (supported: None, 'fro', 1, -1, inf, -inf; "
                                      "2, -2 and 'nuc' need an SVD)")
    else:
        raise refuse(name, "axis", f"{axis!r} (one or two axes)")


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    check_norm(x, ord, axis, keepdims)
    dtype = result_dtype(_NORM, x, ord=ord, axis=axis, keepdims=keepdims)
    t = to_tensor(x, compute_dtype(dtype))
    axes = _axis("numpy.linalg.norm", axis, t.ndim, allow_tuple=True)
    if axes is None and ord is None:
        out = torch.sqrt(torch.sum(t * t, dim=tuple(range(t.ndim)), keepdim=bool(keepdims))) if t.ndim \
            else torch.abs(t)
    else:
        if axes is None:
            axes = (0,) if t.ndim == 1 else (0, 1)
        axes = axes if isinstance(axes, tuple) else (axes,)
        if len(axes) == 1:
            out = _vector_norm(t, ord, axes, bool(keepdims))
        else:
            out = _matrix_norm(t, ord, axes[0], axes[1], bool(keepdims))
    return finish(out, is_numpy_input(x), dtype, scalar=plain(x))


# -------------------------------------------------------------------------------------- interp ---
def check_interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> None:
    name = "numpy.interp"
    check_dtype(name, "x", x, NUMERIC)
    if period is not None:
        raise refuse(name, "period", "periodic interpolation is not supported")
    table = _constant(name, "xp", xp).astype(np.float64)
    if table.ndim != 1 or table.size == 0:
        raise refuse(name, "xp", f"must be a non-empty 1-D table, got shape {table.shape}")
    if table.size > 1 and not np.all(np.diff(table) > 0):
        raise refuse(name, "xp", "must be strictly increasing")
    if _shape(fp) != table.shape:
        raise refuse(name, "fp", f"shape {_shape(fp)} differs from xp {table.shape}")
    check_dtype(name, "fp", fp, NUMERIC)
    for label, value in (("left", left), ("right", right)):
        if value is not None and (is_traced(value) or np.ndim(value) != 0):
            raise refuse(name, label, "must be a constant scalar")


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> Any:
    check_interp(x, xp, fp, left, right, period)
    table = np.asarray(xp, dtype=np.float64)
    knots = torch.from_numpy(table.copy())
    t = to_tensor(x, torch.float64)
    values = to_tensor(fp, torch.float64)
    # NumPy: y = slope_j * (x - xp[j]) + fp[j] on [xp[j], xp[j+1]), fp[0] / fp[-1] (or left / right) outside.
    below = values[0] if left is None else torch.tensor(float(left), dtype=torch.float64)
    above = values[-1] if right is None else torch.tensor(float(right), dtype=torch.float64)
    out = torch.where(t < knots[0], below, torch.zeros_like(t))
    out = torch.where(t >= knots[-1], above, out)
    if table.size > 1:
        out = torch.where(t == knots[-1], values[-1], out)
    for j in range(table.size - 1):
        slope = (values[j + 1] - values[j]) / (knots[j + 1] - knots[j])
        inside = (t >= knots[j]) & (t < knots[j + 1])
        out = torch.where(inside, slope * (t - knots[j]) + values[j], out)
    out = torch.where(torch.isnan(t), t, out)
    return finish(out, is_numpy_input(x), np.float64, scalar=plain(x))


# ------------------------------------------------------------------------------------- clip ---
def _clip_bounds(a_min: Any, a_max: Any, kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """The bounds whichever way they were passed (`a_min`/`a_max`, NumPy 2's `min`/`max`); a list or
    tuple of bounds as the array NumPy makes of it."""
    lo, hi = kwargs.pop("min", a_min), kwargs.pop("max", a_max)
    return tuple(np.asarray(b) if isinstance(b, list | tuple) else b for b in (lo, hi))


def check_clip(a: Any, a_min: Any = None, a_max: Any = None, out: Any = None, **kwargs: Any) -> None:
    name = "numpy.clip"
    lo, hi = _clip_bounds(a_min, a_max, dict(kwargs))
    _no_extra(name, {k: v for k, v in kwargs.items() if k not in ("min", "max")})
    if out is not None:
        raise refuse(name, "out", "out= is not supported")
    check_dtype(name, "a", a, NUMERIC)
    bounds = [b for b in (lo, hi) if b is not None]
    for label, bound in zip(("a_min", "a_max"), (lo, hi)):
        if bound is not None:
            check_dtype(name, label, bound, NUMERIC)
    try:
        np.broadcast_shapes(_shape(a), *[_shape(b) for b in bounds])
    except ValueError as exc:
        raise refuse(name, "bounds", f"shapes {_shape(a)} and {[_shape(b) for b in bounds]} do not broadcast") from exc


def clip(a: Any, a_min: Any = None, a_max: Any = None, out: Any = None, **kwargs: Any) -> Any:
    """`np.clip` with bounds that are numbers, arrays (traced or not) or lists of numbers: NumPy's
    `maximum` then `minimum` (so `a_max` wins where the bounds cross, and NaN passes through), in the
    dtype NumPy gives (a list of floats bounds float32 values as a float64 array, promoting them)."""
    check_clip(a, a_min, a_max, out, **kwargs)
    lo, hi = _clip_bounds(a_min, a_max, dict(kwargs))
    dtype = result_dtype(np.clip, a, lo, hi)
    t = to_tensor(a, compute_dtype(dtype) if dtype.kind == "f" else None)
    for bound, pick in ((lo, torch.maximum), (hi, torch.minimum)):
        if bound is not None:
            t = pick(t, to_tensor(bound, t.dtype))
    as_numpy = is_numpy_input(a) or not isinstance(a, torch.Tensor)
    return finish(t, as_numpy, dtype, scalar=plain(a, lo, hi))

