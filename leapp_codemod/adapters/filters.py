"""`scipy.signal.lfilter`: a linear filter with constant coefficients, in the direct form II
transposed structure SciPy uses, unrolled over the samples along the axis (their count is fixed by
the trace). The carried filter state `zi` goes in and the final state `zf` comes out as traced
values, so a controller that keeps `zi` between calls exports it as state."""
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
    is_traced,
    numpy_dtype,
    refuse,
    shape_of,
    to_tensor,
)

NAME = "scipy.signal.lfilter"
_DTYPES = ("float32", "float64", "int")


def _coefficients(argument: str, value: Any) -> np.ndarray:
    """A constant 1-D coefficient vector (a traced or tensor one is refused: it would be frozen)."""
    if is_traced(value) or isinstance(value, torch.Tensor):
        raise refuse(NAME, argument, "a traced or tensor value (supported: constant coefficients)")
    array = np.asarray(value)
    if array.ndim != 1 or array.size == 0 or array.dtype.kind not in "iuf":
        raise refuse(NAME, argument, f"{array.dtype}{list(array.shape)} (supported: a non-empty 1-D real vector)")
    return array


def check_lfilter(b: Any, a: Any, x: Any, axis: int = -1, zi: Any = None) -> None:
    b, a = _coefficients("b", b), _coefficients("a", a)
    if a[0] == 0:
        raise refuse(NAME, "a", "a[0] == 0")
    kind = check_dtype(NAME, "x", x, _DTYPES).kind
    if kind != "f" and a.dtype.kind != "f" and b.dtype.kind != "f":
        raise refuse(NAME, "x", "integer x with integer coefficients (SciPy refuses an integer result type)")
    shape = shape_of(x)
    if not isinstance(axis, (int, np.integer)) or not -len(shape) <= axis < max(len(shape), 1) or not shape:
        raise refuse(NAME, "axis", f"{axis!r} for x of shape {shape}")
    if zi is not None:
        check_dtype(NAME, "zi", zi, _DTYPES)
        order = max(len(a), len(b)) - 1
        want = tuple(order if i == axis % len(shape) else n for i, n in enumerate(shape))
        if tuple(shape_of(zi)) != want:
            raise refuse(NAME, "zi", f"shape {tuple(shape_of(zi))} (supported: {want}, x's shape with "
                                     f"max(len(a), len(b)) - 1 = {order} along the axis)")


def _result_dtype(b: np.ndarray, a: np.ndarray, x: Any, zi: Any) -> np.dtype:
    """What SciPy returns for these dtypes, found by running it on a one-sample stand-in."""
    from scipy import signal

    order = max(len(a), len(b)) - 1
    xs = np.zeros((1, 1), dtype=numpy_dtype(x))
    zs = None if zi is None else np.zeros((1, order), dtype=numpy_dtype(zi))
    out = signal.lfilter(b, a, xs, axis=-1, zi=zs)
    return np.asarray(out[0] if zi is not None else out).dtype


def lfilter(b: Any, a: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
    check_lfilter(b, a, x, axis, zi)
    b, a = _coefficients("b", b), _coefficients("a", a)
    dtype = _result_dtype(b, a, x, zi)
    work = compute_dtype(dtype)
    order = max(len(a), len(b)) - 1
    num = np.zeros(order + 1)
    den = np.zeros(order + 1)
    num[:len(b)], den[:len(a)] = b / a[0], a / a[0]
    num_t, den_t = torch.tensor(num, dtype=work), torch.tensor(den, dtype=work)
    xt = to_tensor(x, work)
    axis = axis % xt.ndim
    xt = xt.movedim(axis, -1)
    if zi is None:
        state = [torch.zeros(xt.shape[:-1], dtype=work) for _ in range(order)]
    else:
        zt = to_tensor(zi, work).movedim(axis, -1)
        state = [zt[..., i] for i in range(order)]
    outputs = []
    for n in range(xt.shape[-1]):
        xn = xt[..., n]
        yn = num_t[0] * xn + state[0] if order else num_t[0] * xn
        state = [num_t[i + 1] * xn + (state[i + 1] if i + 1 < order else 0) - den_t[i + 1] * yn
                 for i in range(order)]
        outputs.append(yn)
    y = torch.stack(outputs, dim=-1) if outputs else xt * num_t[0]
    as_numpy = is_numpy_input(x)
    y = finish(y.movedim(-1, axis), as_numpy, dtype)
    if zi is None:
        return y
    zf = torch.stack(state, dim=-1) if order else torch.zeros((*xt.shape[:-1], 0), dtype=work)
    return y, finish(zf.movedim(-1, axis), as_numpy and is_numpy_input(zi), dtype)


ADAPTERS = {
    NAME: Adapter(NAME, lfilter, "constant 1-D coefficients b and a (a[0] != 0); x float32/float64 (integers "
                  "computed in float64) of any shape and any number of samples along `axis`; `zi` None or of "
                  "x's shape with max(len(a), len(b)) - 1 along the axis, returned as `zf`", check_lfilter),
}
