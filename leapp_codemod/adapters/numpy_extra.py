"""NumPy functions that policy code uses but LEAPP 0.7.2 does not map (or maps but cannot export to ONNX).

Unmapped in the installed LEAPP (`leapp_codemod.analysis.model.leapp_support.load_support().numpy_functions`):
    numpy.deg2rad, numpy.radians, numpy.rad2deg, numpy.degrees, numpy.reciprocal, numpy.fabs,
    numpy.logaddexp, numpy.float_power, numpy.linalg.norm, numpy.interp, numpy.cross, numpy.outer,
    numpy.diff, numpy.tile, numpy.repeat, numpy.pad, numpy.median, numpy.percentile, numpy.quantile,
    numpy.average, numpy.nan_to_num, numpy.atleast_1d, numpy.atleast_2d, numpy.atleast_3d,
    numpy.broadcast_to, numpy.column_stack, numpy.copy, numpy.ascontiguousarray, numpy.take
Mapped but failing at ONNX export or in ONNX Runtime:
    numpy.hypot (no ONNX lowering), numpy.round / numpy.around with decimals != 0,
    numpy.max / numpy.min / numpy.amax / numpy.amin without an axis (onnx-dynamo),
    numpy.arctan2 / numpy.atan2, numpy.arctan / numpy.atan, numpy.arcsin / numpy.asin,
    numpy.arccos / numpy.acos, numpy.tan on float64 (ONNX Runtime has no float64 kernel for them).

The exported graphs keep float64 precision: float64 constants are tensors (see `_core.const`).

Shape-like arguments (axis, reps, repeats, pad widths, percentiles, interpolation tables) must be
constants; they become constants of the exported graph. Result dtypes are the ones NumPy gives,
found by running the original on one-filled stand-ins of the same shapes and dtypes.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from . import _math
from ._core import (
    Adapter,
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

# The originals, captured before any FunctionPatch can replace the module attributes.
_NP = {name: getattr(np, name) for name in (
    "deg2rad", "rad2deg", "reciprocal", "fabs", "logaddexp", "hypot", "float_power", "cross", "outer",
    "arctan2", "arctan", "arcsin", "arccos", "tan",
    "diff", "median", "percentile", "quantile", "average")}
_NORM = np.linalg.norm

NUMERIC = ("float32", "float64", "int")
FLOATS = ("float32", "float64")
ANY = ("float16", "float32", "float64", "int", "bool")


def _ndim(x: Any) -> int:
    return x.ndim if isinstance(x, torch.Tensor) else np.ndim(x)


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(x.shape) if isinstance(x, torch.Tensor) else np.shape(x)


def _constant(name: str, argument: str, value: Any) -> np.ndarray:
    if is_traced(value) or isinstance(value, torch.Tensor):
        raise refuse(name, argument, "must be a constant (a Python or NumPy value), got a traced or torch value")
    return np.asarray(value)


def _axis(name: str, axis: Any, ndim: int, allow_none: bool = True, allow_tuple: bool = False) -> Any:
    if axis is None and allow_none:
        return None
    axes = tuple(axis) if allow_tuple and isinstance(axis, tuple | list) else (axis,)
    if not axes or not all(isinstance(a, int | np.integer) and not isinstance(a, bool) and -ndim <= a < max(ndim, 1)
                           for a in axes):
        raise refuse(name, "axis", f"{axis!r} for an array with {ndim} dimension(s)")
    norm = tuple(int(a) % max(ndim, 1) for a in axes)
    if len(set(norm)) != len(norm):
        raise refuse(name, "axis", f"repeated axis in {axis!r}")
    return norm if isinstance(axis, tuple | list) else norm[0]


def _no_extra(name: str, kwargs: dict[str, Any], **defaults: Any) -> None:
    """Refuse every keyword that is not at its default (None counts as the default when none is given)."""
    for key, value in kwargs.items():
        default = defaults.get(key)
        if value is None and default is None:
            continue
        if key in defaults and isinstance(value, str | int | float | bool) and value == default:
            continue
        raise refuse(name, key, f"{key}={value!r} (only the default is supported)")


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


# ------------------------------------------------------------------------------ products/diffs ---
def check_cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None) -> None:
    name = "numpy.cross"
    check_dtype(name, "a", a, NUMERIC)
    check_dtype(name, "b", b, NUMERIC)
    if axis is not None or (axisa, axisb, axisc) != (-1, -1, -1):
        raise refuse(name, "axis", "only the last axis is supported")
    if _ndim(a) == 0 or _ndim(b) == 0 or _shape(a)[-1] != 3 or _shape(b)[-1] != 3:
        raise refuse(name, "shapes", f"{_shape(a)} and {_shape(b)}: both need 3 components on the last axis")
    try:
        np.broadcast_shapes(_shape(a)[:-1], _shape(b)[:-1])
    except ValueError as exc:
        raise refuse(name, "shapes", f"{_shape(a)} and {_shape(b)} do not broadcast") from exc


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None) -> Any:
    check_cross(a, b, axisa, axisb, axisc, axis)
    dtype = result_dtype(_NP["cross"], a, b)
    u, v = to_tensor(a, dtype), to_tensor(b, dtype)
    u0, u1, u2 = u[..., 0], u[..., 1], u[..., 2]
    v0, v1, v2 = v[..., 0], v[..., 1], v[..., 2]
    out = torch.stack([u1 * v2 - u2 * v1, u2 * v0 - u0 * v2, u0 * v1 - u1 * v0], dim=-1)
    return finish(out, is_numpy_input(a) and is_numpy_input(b), dtype)


def check_outer(a: Any, b: Any, out: Any = None) -> None:
    check_dtype("numpy.outer", "a", a, NUMERIC)
    check_dtype("numpy.outer", "b", b, NUMERIC)
    if out is not None:
        raise refuse("numpy.outer", "out", "out= is not supported")


def outer(a: Any, b: Any, out: Any = None) -> Any:
    check_outer(a, b, out)
    dtype = result_dtype(_NP["outer"], a, b)
    u, v = to_tensor(a, dtype).reshape(-1), to_tensor(b, dtype).reshape(-1)
    return finish(u[:, None] * v[None, :], is_numpy_input(a) and is_numpy_input(b), dtype)


def check_diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> None:
    name = "numpy.diff"
    check_dtype(name, "a", a, NUMERIC)
    if not isinstance(n, int | np.integer) or isinstance(n, bool) or n < 0:
        raise refuse(name, "n", f"{n!r} (a non-negative int is required)")
    if _ndim(a) == 0:
        raise refuse(name, "a", "diff requires at least one dimension")
    ax = _axis(name, axis, _ndim(a), allow_none=False)
    for label, value in (("prepend", prepend), ("append", append)):
        if value is None:
            continue
        check_dtype(name, label, value, NUMERIC)
        shape = _shape(value)
        others_differ = any(s != t for d, (s, t) in enumerate(zip(shape, _shape(a))) if d != ax)
        if shape and (len(shape) != _ndim(a) or others_differ):
            raise refuse(name, label, f"shape {shape} does not fit {_shape(a)} along axis {axis}")


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    check_diff(a, n, axis, prepend, append)
    ax = _axis("numpy.diff", axis, _ndim(a), allow_none=False)
    if n == 0:  # NumPy returns the input itself, ignoring prepend and append
        return finish(to_tensor(a).clone(), is_numpy_input(a), numpy_dtype(a))
    parts = [v for v in (prepend, a, append) if v is not None]
    extra = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    dtype = result_dtype(_NP["diff"], a, n=1, axis=ax, **extra)
    t = to_tensor(a, dtype)
    pieces = []
    for value in parts:
        piece = t if value is a else to_tensor(value, dtype)
        if piece.ndim == 0:  # NumPy broadcasts a scalar to one slice along the axis
            shape = list(t.shape)
            shape[ax] = 1
            piece = torch.broadcast_to(piece, shape)
        pieces.append(piece)
    t = torch.cat(pieces, dim=ax) if len(pieces) > 1 else t
    for _ in range(int(n)):
        length = t.shape[ax]
        keep = max(length - 1, 0)
        t = t.narrow(ax, min(1, length), keep) - t.narrow(ax, 0, keep)
    return finish(t, all(is_numpy_input(p) for p in parts), dtype)


# ----------------------------------------------------------------------------- data movement ---
def _gather(t: torch.Tensor, axis: int, index: np.ndarray) -> torch.Tensor:
    return torch.index_select(t, axis, torch.as_tensor(np.asarray(index, dtype=np.int64)))


def check_tile(A: Any, reps: Any) -> None:
    check_dtype("numpy.tile", "A", A, ANY)
    r = _constant("numpy.tile", "reps", reps)
    if r.ndim > 1 or r.dtype.kind not in "iu" or np.any(r < 0):
        raise refuse("numpy.tile", "reps", f"{reps!r} (an int or a tuple of non-negative ints)")


def tile(A: Any, reps: Any) -> Any:
    check_tile(A, reps)
    dtype = numpy_dtype(A)
    t = to_tensor(A)
    r = [int(v) for v in np.atleast_1d(np.asarray(reps))]
    ndim = max(t.ndim, len(r))
    t = t.reshape((1,) * (ndim - t.ndim) + tuple(t.shape))
    r = [1] * (ndim - len(r)) + r
    return finish(t.repeat(*r) if ndim else t.clone(), is_numpy_input(A), dtype)


def check_repeat(a: Any, repeats: Any, axis: Any = None) -> None:
    check_dtype("numpy.repeat", "a", a, ANY)
    r = _constant("numpy.repeat", "repeats", repeats)
    if r.ndim > 1 or r.dtype.kind not in "iu" or np.any(r < 0):
        raise refuse("numpy.repeat", "repeats", f"{repeats!r} (non-negative int constants)")
    ndim = _ndim(a)
    ax = _axis("numpy.repeat", axis, max(ndim, 1))
    length = int(np.prod(_shape(a))) if ax is None else _shape(a)[ax] if ndim else 1
    if r.ndim == 1 and r.size not in (1, length):
        raise refuse("numpy.repeat", "repeats", f"{r.size} counts for an axis of length {length}")


def repeat(a: Any, repeats: Any, axis: Any = None) -> Any:
    check_repeat(a, repeats, axis)
    dtype = numpy_dtype(a)
    t = to_tensor(a)
    ax = _axis("numpy.repeat", axis, max(t.ndim, 1))
    if ax is None or t.ndim == 0:
        t, ax = t.reshape(-1), 0
    index = np.repeat(np.arange(t.shape[ax]), np.asarray(repeats))
    return finish(_gather(t, ax, index), is_numpy_input(a), dtype)


PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def check_pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> None:
    name = "numpy.pad"
    check_dtype(name, "array", array, ANY)
    if not isinstance(mode, str) or mode not in PAD_MODES:
        raise refuse(name, "mode", f"{mode!r} (supported: {', '.join(PAD_MODES)})")
    allowed = {"constant_values"} if mode == "constant" else set()
    if mode in ("reflect", "symmetric") and kwargs.get("reflect_type", "even") != "even":
        raise refuse(name, "reflect_type", f"{kwargs['reflect_type']!r} (only 'even')")
    allowed |= {"reflect_type"} if mode in ("reflect", "symmetric") else set()
    for key in kwargs:
        if key not in allowed:
            raise refuse(name, key, f"{key}= is not supported with mode={mode!r}")
    widths = _constant(name, "pad_width", pad_width)
    if widths.dtype.kind not in "iu" or np.any(widths < 0):
        raise refuse(name, "pad_width", f"{pad_width!r} (non-negative ints)")
    try:
        np.broadcast_to(widths, (_ndim(array), 2))
    except ValueError as exc:
        raise refuse(name, "pad_width", f"{pad_width!r} for {_ndim(array)} dimension(s)") from exc
    values = _constant(name, "constant_values", kwargs.get("constant_values", 0))
    if values.ndim != 0:
        raise refuse(name, "constant_values", "only a single scalar is supported")
    if mode != "constant" and 0 in _shape(array):
        raise refuse(name, "array", f"mode={mode!r} cannot pad an empty axis")


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    check_pad(array, pad_width, mode, **kwargs)
    dtype = numpy_dtype(array)
    t = to_tensor(array)
    widths = np.broadcast_to(np.asarray(pad_width), (t.ndim, 2))
    fill = np.asarray(kwargs.get("constant_values", 0)).astype(dtype)
    for ax in range(t.ndim):
        before, after = int(widths[ax, 0]), int(widths[ax, 1])
        if before == after == 0:
            continue
        if mode == "constant":
            pieces = []
            for width in (before, after):
                shape = list(t.shape)
                shape[ax] = width
                pieces.append(torch.full(shape, fill.item(), dtype=t.dtype))
            t = torch.cat([pieces[0], t, pieces[1]], dim=ax)
        else:
            # The gather index is NumPy's own padding of the index range, so the semantics are NumPy's.
            index = np.pad(np.arange(t.shape[ax]), (before, after), mode=mode)
            t = _gather(t, ax, index)
    return finish(t, is_numpy_input(array), dtype)


def check_take(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> None:
    name = "numpy.take"
    check_dtype(name, "a", a, ANY)
    if out is not None or mode != "raise":
        raise refuse(name, "out/mode", "only mode='raise' without out= is supported")
    ax = _axis(name, axis, max(_ndim(a), 1))
    length = int(np.prod(_shape(a))) if ax is None else _shape(a)[ax]
    idx = _constant(name, "indices", indices)
    if idx.dtype.kind not in "iu":
        raise refuse(name, "indices", f"dtype {idx.dtype} (integer constants are required)")
    if idx.size and (idx.min() < -length or idx.max() >= length):
        raise refuse(name, "indices", f"out of bounds for an axis of length {length}")


def take(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> Any:
    check_take(a, indices, axis, out, mode)
    dtype = numpy_dtype(a)
    t = to_tensor(a)
    ax = _axis("numpy.take", axis, max(t.ndim, 1))
    if ax is None:
        t, ax = t.reshape(-1), 0
    idx = np.asarray(indices) % t.shape[ax] if t.shape[ax] else np.asarray(indices)
    gathered = _gather(t, ax, idx.reshape(-1))
    shape = tuple(t.shape[:ax]) + idx.shape + tuple(t.shape[ax + 1:])
    return finish(gathered.reshape(shape), is_numpy_input(a), dtype, scalar=plain(a))


def _at_least(name: str, n: int):
    def reshape(t: torch.Tensor) -> torch.Tensor:
        if t.ndim >= n:
            return t.clone()
        if n == 1:
            return t.reshape(1)
        if n == 2:
            return t.reshape(1, -1) if t.ndim == 1 else t.reshape(1, 1)
        return t.reshape(1, 1, 1) if t.ndim == 0 else t.reshape(1, -1, 1) if t.ndim == 1 else t.unsqueeze(-1)

    def check(*arys: Any) -> None:
        if not arys:
            raise refuse(name, "arguments", "at least one array is required")
        for i, value in enumerate(arys):
            check_dtype(name, f"array {i}", value, ANY)

    def adapter(*arys: Any) -> Any:
        check(*arys)
        results = tuple(finish(reshape(to_tensor(a)), is_numpy_input(a), numpy_dtype(a)) for a in arys)
        return results[0] if len(results) == 1 else results

    adapter.__name__ = adapter.__qualname__ = name.rsplit(".", 1)[-1]
    return adapter, check


atleast_1d, check_atleast_1d = _at_least("numpy.atleast_1d", 1)
atleast_2d, check_atleast_2d = _at_least("numpy.atleast_2d", 2)
atleast_3d, check_atleast_3d = _at_least("numpy.atleast_3d", 3)


def check_broadcast_to(array: Any, shape: Any, subok: bool = False) -> None:
    check_dtype("numpy.broadcast_to", "array", array, ANY)
    target = tuple(int(v) for v in np.atleast_1d(_constant("numpy.broadcast_to", "shape", shape)))
    try:
        fits = np.broadcast_shapes(_shape(array), target) == target
    except ValueError:
        fits = False
    if not fits:
        raise refuse("numpy.broadcast_to", "shape", f"cannot broadcast {_shape(array)} to {shape!r}")


def broadcast_to(array: Any, shape: Any, subok: bool = False) -> Any:
    check_broadcast_to(array, shape, subok)
    target = tuple(int(v) for v in np.atleast_1d(np.asarray(shape)))
    out = torch.broadcast_to(to_tensor(array), target).contiguous()
    return finish(out, is_numpy_input(array), numpy_dtype(array))


def check_column_stack(tup: Any) -> None:
    name = "numpy.column_stack"
    if not isinstance(tup, list | tuple) or not tup:
        raise refuse(name, "tup", "a non-empty list or tuple of arrays is required")
    rows = set()
    for i, value in enumerate(tup):
        check_dtype(name, f"array {i}", value, ANY)
        if _ndim(value) not in (1, 2):
            raise refuse(name, f"array {i}", f"{_ndim(value)} dimensions (1-D or 2-D are supported)")
        rows.add(_shape(value)[0])
    if len(rows) != 1:
        raise refuse(name, "tup", f"arrays have different lengths {sorted(rows)}")


def column_stack(tup: Any) -> Any:
    check_column_stack(tup)
    dtype = np.result_type(*[numpy_dtype(v) for v in tup])
    columns = [to_tensor(v, dtype) for v in tup]
    columns = [c.reshape(-1, 1) if c.ndim == 1 else c for c in columns]
    return finish(torch.cat(columns, dim=1), all(is_numpy_input(v) for v in tup), dtype)


def check_copy(a: Any, order: str = "K", subok: bool = False) -> None:
    check_dtype("numpy.copy", "a", a, ANY)
    if subok:
        raise refuse("numpy.copy", "subok", "subok=True is not supported")


def copy(a: Any, order: str = "K", subok: bool = False) -> Any:
    check_copy(a, order, subok)
    return finish(to_tensor(a).clone(), is_numpy_input(a), numpy_dtype(a))


def check_ascontiguousarray(a: Any, dtype: Any = None, *, like: Any = None) -> None:
    check_dtype("numpy.ascontiguousarray", "a", a, ANY)
    if like is not None:
        raise refuse("numpy.ascontiguousarray", "like", "like= is not supported")
    if dtype is not None:
        try:
            torch_dtype_ok = np.dtype(dtype).name in ("bool", "uint8", "int8", "int16", "int32", "int64",
                                                      "float16", "float32", "float64")
        except TypeError:
            torch_dtype_ok = False
        if not torch_dtype_ok:
            raise refuse("numpy.ascontiguousarray", "dtype", f"{dtype!r}")


def ascontiguousarray(a: Any, dtype: Any = None, *, like: Any = None) -> Any:
    check_ascontiguousarray(a, dtype, like=like)
    target = np.dtype(dtype) if dtype is not None else numpy_dtype(a)
    t = to_tensor(a).clone()
    return finish(t.reshape(1) if t.ndim == 0 else t, is_numpy_input(a), target)  # NumPy returns >= 1-D


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


def _entry(name: str, function: Callable, check: Callable, domain: str) -> tuple[str, Adapter]:
    return name, Adapter(name, function, domain, check)


_UFUNC = "float32 or float64 (integers promoted as NumPy does), any shape; no out=/where="
_TRIG = _UFUNC + "; finite inputs (float64 is evaluated without ONNX Atan/Asin/Acos/Tan, which ONNX Runtime " \
    "lacks for float64)"
_MOVE = "any dtype LEAPP exports (bool, int8-64, uint8, float16-64); "

ADAPTERS = dict([
    _entry("numpy.deg2rad", deg2rad, check_deg2rad, _UFUNC),
    _entry("numpy.radians", deg2rad, check_deg2rad, _UFUNC),
    _entry("numpy.rad2deg", rad2deg, check_rad2deg, _UFUNC),
    _entry("numpy.degrees", rad2deg, check_rad2deg, _UFUNC),
    _entry("numpy.reciprocal", reciprocal, check_reciprocal, "float32 or float64 only (NumPy's integer "
           "reciprocal truncates); any shape"),
    _entry("numpy.fabs", fabs, check_fabs, _UFUNC),
    _entry("numpy.logaddexp", logaddexp, check_logaddexp, _UFUNC + "; broadcasting operands"),
    _entry("numpy.hypot", hypot, check_hypot, _UFUNC + "; broadcasting operands"),
    _entry("numpy.float_power", float_power, check_float_power, "float or int operands (result float64); "
           "broadcasting"),
    _entry("numpy.arctan2", arctan2, check_arctan2, _TRIG + "; broadcasting operands"),
    _entry("numpy.atan2", arctan2, check_arctan2, _TRIG + "; broadcasting operands"),
    _entry("numpy.arctan", arctan, check_arctan, _TRIG),
    _entry("numpy.atan", arctan, check_arctan, _TRIG),
    _entry("numpy.arcsin", arcsin, check_arcsin, _TRIG),
    _entry("numpy.asin", arcsin, check_arcsin, _TRIG),
    _entry("numpy.arccos", arccos, check_arccos, _TRIG),
    _entry("numpy.acos", arccos, check_arccos, _TRIG),
    _entry("numpy.tan", tan, check_tan, _TRIG),
    _entry("numpy.round", round_, check_round, "float32, float64 or integers; decimals: any int constant; no out="),
    _entry("numpy.around", round_, check_round, "float32, float64 or integers; decimals: any int constant; no out="),
    _entry("numpy.max", amax, check_amax, _MOVE + "axis None, int or tuple; keepdims; no out/initial/where"),
    _entry("numpy.amax", amax, check_amax, _MOVE + "axis None, int or tuple; keepdims; no out/initial/where"),
    _entry("numpy.min", amin, check_amin, _MOVE + "axis None, int or tuple; keepdims; no out/initial/where"),
    _entry("numpy.amin", amin, check_amin, _MOVE + "axis None, int or tuple; keepdims; no out/initial/where"),
    _entry("numpy.linalg.norm", norm, check_norm, "float32, float64 or integers; vector ord None/2/1/inf/-inf/"
           "p>0; matrix ord None/'fro'/1/-1/inf/-inf; axis None, int or 2-tuple; keepdims"),
    _entry("numpy.interp", interp, check_interp, "x: float or int, any shape; xp: constant strictly increasing "
           "1-D table; fp: same length, constant or traced; left/right: constant scalars; no period; float64 out"),
    _entry("numpy.cross", cross, check_cross, "3-vectors on the last axis, broadcasting leading axes; float or "
           "int; no axis arguments (2-vectors are deprecated in NumPy)"),
    _entry("numpy.outer", outer, check_outer, "float or int arrays (flattened); no out="),
    _entry("numpy.diff", diff, check_diff, "float or int, >= 1-D; n >= 0; axis: int; prepend/append scalars or "
           "arrays"),
    _entry("numpy.tile", tile, check_tile, _MOVE + "reps: constant int or tuple of ints"),
    _entry("numpy.repeat", repeat, check_repeat, _MOVE + "repeats: constant int or per-element counts; axis "
           "None or int"),
    _entry("numpy.pad", pad, check_pad, _MOVE + "pad_width: constant ints in any NumPy form; mode constant "
           "(scalar constant_values), edge, reflect, symmetric, wrap (reflect_type 'even')"),
    _entry("numpy.take", take, check_take, _MOVE + "indices: constant ints (negative allowed, in bounds); axis "
           "None or int; mode 'raise' without out="),
    _entry("numpy.atleast_1d", atleast_1d, check_atleast_1d, _MOVE + "one or more arrays"),
    _entry("numpy.atleast_2d", atleast_2d, check_atleast_2d, _MOVE + "one or more arrays"),
    _entry("numpy.atleast_3d", atleast_3d, check_atleast_3d, _MOVE + "one or more arrays"),
    _entry("numpy.broadcast_to", broadcast_to, check_broadcast_to, _MOVE + "shape: constant; returns a "
           "contiguous copy instead of a read-only view"),
    _entry("numpy.column_stack", column_stack, check_column_stack, _MOVE + "a list of 1-D/2-D arrays of equal "
           "length"),
    _entry("numpy.copy", copy, check_copy, _MOVE + "order is ignored (C order); subok=False"),
    _entry("numpy.ascontiguousarray", ascontiguousarray, check_ascontiguousarray, _MOVE + "optional dtype "
           "among those"),
    _entry("numpy.median", median, check_median, "float or int, axis None/int/tuple, keepdims; finite values "
           "(NaN ordering differs); no out="),
    _entry("numpy.percentile", percentile, check_percentile, "float or int, q: constant scalar or 1-D in "
           "[0, 100]; method 'linear'; axis None/int/tuple, keepdims; finite values; no out="),
    _entry("numpy.quantile", quantile, check_quantile, "float or int, q: constant scalar or 1-D in [0, 1]; "
           "method 'linear'; axis None/int/tuple, keepdims; finite values; no out="),
    _entry("numpy.average", average, check_average, "float or int; axis None/int/tuple; weights same shape or "
           "1-D along an int axis; keepdims; returned=False"),
    _entry("numpy.nan_to_num", nan_to_num, check_nan_to_num, _MOVE + "nan/posinf/neginf: constant scalars"),
])
