"""NumPy adapters: products and differences (cross, outer, diff) and data movement (tile, repeat, pad, take, ...)."""
from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ._core import (
    check_dtype,
    finish,
    is_numpy_input,
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
    _shape,
)


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
        if _ndim(value) not in (0, 1, 2):
            raise refuse(name, f"array {i}", f"{_ndim(value)} dimensions (0-D, 1-D or 2-D are supported)")
        rows.add(_shape(value)[0] if _ndim(value) else 1)   # a number is a column of one row
    if len(rows) != 1:
        raise refuse(name, "tup", f"arrays have different lengths {sorted(rows)}")


def column_stack(tup: Any) -> Any:
    check_column_stack(tup)
    dtype = np.result_type(*[numpy_dtype(v) for v in tup])
    columns = [to_tensor(v, dtype) for v in tup]
    columns = [c.reshape(-1, 1) if c.ndim < 2 else c for c in columns]
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
