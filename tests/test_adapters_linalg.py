"""numpy.linalg.inv / solve adapters: the same values and dtypes as NumPy on 1x1 to 4x4 (batched)
matrices (negative strides included), refusals outside that domain, and an export traced by LEAPP
from float32 inputs (a transposed view, arithmetic with Python floats) that reproduces NumPy on fresh inputs."""
from __future__ import annotations

import numpy as np
import pytest

from leapp_codemod.adapters import ADAPTERS

INV, SOLVE = ADAPTERS["numpy.linalg.inv"].function, ADAPTERS["numpy.linalg.solve"].function


def _matrices(rng, n, batch=(), dtype=np.float64):
    """Diagonally dominant (so invertible) matrices, integer-valued for integer dtypes."""
    off = rng.integers(-2, 3, size=(*batch, n, n)) if np.dtype(dtype).kind == "i" else rng.normal(size=(*batch, n, n))
    return (off + 10 * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_values_and_dtypes_match_numpy(n, dtype):
    rng = np.random.default_rng(n)
    a, b = _matrices(rng, n, (3,), dtype), rng.normal(size=(3, n, 2)).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    got, want = INV(a), np.linalg.inv(a)
    assert got.dtype == want.dtype and np.allclose(got, want, rtol=tol, atol=tol)
    got, want = SOLVE(a, b), np.linalg.solve(a, b)
    assert got.dtype == want.dtype and np.allclose(got, want, rtol=tol, atol=tol)
    flipped = a[:, ::-1, ::-1]                       # negative strides (an untraced constant)
    assert np.allclose(INV(flipped), np.linalg.inv(flipped), rtol=tol, atol=tol)
    vec = rng.normal(size=n).astype(dtype)
    assert np.allclose(SOLVE(a[0], vec), np.linalg.solve(a[0], vec), rtol=tol, atol=tol)


def test_outside_the_domain_it_refuses_naming_the_argument():
    with pytest.raises(ValueError, match=r"adapter numpy.linalg.inv: unsupported a: shape \(5, 5\)"):
        INV(np.eye(5))
    with pytest.raises(ValueError, match=r"adapter numpy.linalg.solve: unsupported b"):
        SOLVE(np.eye(3), np.ones(4))


@pytest.mark.e2e
def test_traced_and_exported_it_reproduces_numpy(tmp_path):
    from tests.test_adapters_export import export_and_compare

    rng = np.random.default_rng(3)
    samples = [{"m": _matrices(rng, 3, (), np.float32), "r": rng.normal(size=3).astype(np.float32)}
               for _ in range(7)]

    def pipeline(f_inv, f_solve, m, r):
        view = m.T                                    # a non-contiguous view
        gain = f_inv(view * 0.5) * 2.0                # float32 with Python floats stays float32
        return {"gain": gain, "x": f_solve(m, r) + 1.0}

    export_and_compare(tmp_path, "linalg", samples,
                       lambda m, r: pipeline(INV, SOLVE, m, r),
                       lambda m, r: pipeline(np.linalg.inv, np.linalg.solve, m, r), 1e-4, 1e-5)
    want = pipeline(np.linalg.inv, np.linalg.solve, samples[0]["m"], samples[0]["r"])
    got = pipeline(INV, SOLVE, samples[0]["m"], samples[0]["r"])
    assert got["gain"].dtype == want["gain"].dtype == np.float32
