"""`numpy.linalg.inv` and `numpy.linalg.solve` for small square matrices (1x1 to 4x4, any leading
batch dimensions), written as closed-form cofactor expansions: only elementwise arithmetic, indexing
and stacking, which LEAPP traces and every exporter lowers (ONNX has no general matrix inverse).
A singular matrix gives inf/nan where NumPy raises LinAlgError. `numpy.linalg.pinv` (any size) is
`torch.linalg.pinv` with NumPy's relative cutoff: ONNX has no lowering for it, so its graphs export through a
later step of the exporter ladder (pt2)."""
from __future__ import annotations

from itertools import permutations
from typing import Any

import numpy as np
import torch

from ._core import (
    Adapter,
    check_dtype,
    compute_dtype,
    finish,
    is_numpy_input,
    refuse,
    numpy_dtype,
    to_tensor,
)

SIZES = (1, 2, 3, 4)
_DTYPES = ("float32", "float64", "int")


def _result_dtype(*arrays: Any) -> np.dtype:
    """NumPy's linalg result type: float32 stays float32, anything else computes in float64 (the
    original cannot be run on stand-ins: a matrix of ones is singular)."""
    return np.result_type(*(numpy_dtype(a) for a in arrays), np.float32)


def _sign(perm: tuple[int, ...]) -> int:
    inversions = sum(1 for i in range(len(perm)) for j in range(i + 1, len(perm)) if perm[i] > perm[j])
    return -1 if inversions % 2 else 1


def _det(m: torch.Tensor, rows: list[int], cols: list[int]) -> torch.Tensor:
    """Determinant of m[..., rows, cols] by the Leibniz formula (at most 24 terms for 4x4)."""
    total = None
    for perm in permutations(range(len(rows))):
        term = m[..., rows[0], cols[perm[0]]]
        for i in range(1, len(rows)):
            term = term * m[..., rows[i], cols[perm[i]]]
        term = term if _sign(perm) > 0 else -term
        total = term if total is None else total + term
    return total


def _inverse(m: torch.Tensor) -> torch.Tensor:
    n = m.shape[-1]
    idx = list(range(n))
    det = _det(m, idx, idx)
    if n == 1:
        return (1.0 / det).unsqueeze(-1).unsqueeze(-1)
    rows = []
    for j in range(n):          # row j of the inverse is column j of the cofactor matrix
        row = []
        for i in range(n):
            minor = _det(m, [r for r in idx if r != i], [c for c in idx if c != j])
            row.append(minor if (i + j) % 2 == 0 else -minor)
        rows.append(torch.stack(row, dim=-1))
    return torch.stack(rows, dim=-2) / det.unsqueeze(-1).unsqueeze(-1)


def _shape(x: Any) -> tuple[int, ...]:
    """The shape without calling np.shape on a traced array (LEAPP logs it as untraceable)."""
    return tuple(x.shape) if hasattr(x, "shape") else tuple(np.shape(x))


def _square(name: str, a: Any) -> tuple[int, ...]:
    shape = _shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2] or shape[-1] not in SIZES:
        raise refuse(name, "a", f"shape {shape} (supported: square matrices of size {SIZES[0]} to {SIZES[-1]}, "
                                "with any leading batch dimensions)")
    return shape


def check_inv(a: Any) -> None:
    check_dtype("numpy.linalg.inv", "a", a, _DTYPES)
    _square("numpy.linalg.inv", a)


def inv(a: Any) -> Any:
    check_inv(a)
    dtype = _result_dtype(a)
    return finish(_inverse(to_tensor(a, compute_dtype(dtype))), is_numpy_input(a), dtype)


def check_solve(a: Any, b: Any) -> None:
    name = "numpy.linalg.solve"
    check_dtype(name, "a", a, _DTYPES)
    check_dtype(name, "b", b, _DTYPES)
    shape = _square(name, a)
    b_shape = _shape(b)
    if len(b_shape) == 1:
        if b_shape[0] != shape[-1] or len(shape) != 2:
            raise refuse(name, "b", f"shape {b_shape} for a of shape {shape} (a vector b needs a single matrix a "
                                    "of the same size)")
    elif len(b_shape) < 2 or b_shape[-2] != shape[-1]:
        raise refuse(name, "b", f"shape {b_shape} for a of shape {shape}")


def solve(a: Any, b: Any) -> Any:
    check_solve(a, b)
    dtype = _result_dtype(a, b)
    inverse = _inverse(to_tensor(a, compute_dtype(dtype)))
    rhs = to_tensor(b, compute_dtype(dtype))
    out = torch.matmul(inverse, rhs.unsqueeze(-1)).squeeze(-1) if rhs.ndim == 1 else torch.matmul(inverse, rhs)
    return finish(out, is_numpy_input(a) and is_numpy_input(b), dtype)


_PINV_RCOND = 1e-15      # NumPy's default cutoff, relative to the largest singular value


def check_pinv(a: Any, rcond: Any = None, hermitian: bool = False, **kwargs: Any) -> None:
    name = "numpy.linalg.pinv"
    check_dtype(name, "a", a, _DTYPES)
    if len(_shape(a)) < 2:
        raise refuse(name, "a", f"shape {_shape(a)} (a matrix, or a batch of matrices, is needed)")
    if hermitian:
        raise refuse(name, "hermitian", "True (only the general SVD form is adapted)")
    for key, value in (("rcond", rcond), *kwargs.items()):
        if key not in ("rcond", "rtol") or not (value is None or isinstance(value, (int, float))):
            raise refuse(name, key, f"{value!r} (a constant number or None)")


def pinv(a: Any, rcond: Any = None, hermitian: bool = False, **kwargs: Any) -> Any:
    """`torch.linalg.pinv` with NumPy's relative cutoff (`rcond`/`rtol`: singular values at or below
    cutoff * the largest are dropped). ONNX has no lowering for it: the export takes another exporter."""
    check_pinv(a, rcond, hermitian, **kwargs)
    cutoff = next((v for v in (rcond, kwargs.get("rtol")) if v is not None), _PINV_RCOND)
    dtype = _result_dtype(a)
    return finish(torch.linalg.pinv(to_tensor(a, compute_dtype(dtype)), rtol=float(cutoff)), is_numpy_input(a), dtype)


ADAPTERS = {
    "numpy.linalg.pinv": Adapter("numpy.linalg.pinv", pinv, "float32, float64 or integers; matrices of any size "
                                 "(batched); constant rcond/rtol; not hermitian; no ONNX lowering (pt2/jit export)",
                                 check_pinv),
    "numpy.linalg.inv": Adapter("numpy.linalg.inv", inv, "float32, float64 or integers; square matrices of size "
                                "1 to 4 with any leading batch dimensions; a singular matrix gives inf/nan",
                                check_inv),
    "numpy.linalg.solve": Adapter("numpy.linalg.solve", solve, "float32, float64 or integers; a square 1x1 to "
                                  "4x4 (batched) and b of shape (n,) or (..., n, k); a singular a gives inf/nan",
                                  check_solve),
}
