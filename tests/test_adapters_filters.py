"""scipy.signal.lfilter adapter: the same values and dtypes as SciPy for any coefficient order,
sample count and axis, with and without a carried filter state `zi`; refusals outside the domain; and
an export traced by LEAPP where `zi` is carried from call to call (an input and an output of the graph)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import signal

from leapp_codemod.adapters import ADAPTERS, mismatch

LFILTER = ADAPTERS["scipy.signal.lfilter"].function


def _close(got, want, tol):
    problem = mismatch(got, want, tol, tol)
    assert problem is None, problem


@settings(max_examples=200, deadline=None)
@given(order_b=st.integers(1, 4), order_a=st.integers(1, 4), shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
       axis_pick=st.integers(0, 2), dtype=st.sampled_from([np.float32, np.float64]), with_zi=st.booleans(),
       seed=st.integers(0, 2**16))
def test_values_and_dtypes_match_scipy(order_b, order_a, shape, axis_pick, dtype, with_zi, seed):
    rng = np.random.default_rng(seed)
    b = rng.normal(size=order_b)
    a = np.concatenate([[1.0 + rng.uniform(0.5, 1.5)], 0.2 * rng.normal(size=order_a - 1)])   # a stable filter
    x = rng.normal(size=shape).astype(dtype)
    axis = axis_pick % len(shape) - (1 if axis_pick == 2 else 0)
    if with_zi:
        zshape = list(shape)
        zshape[axis] = max(len(a), len(b)) - 1
        zi = rng.normal(size=zshape).astype(dtype)
        (y, zf), (y2, zf2) = signal.lfilter(b, a, x, axis=axis, zi=zi), LFILTER(b, a, x, axis=axis, zi=zi)
        _close(y2, y, 1e-9)
        _close(zf2, zf, 1e-9)
    else:
        _close(LFILTER(b, a, x, axis=axis), signal.lfilter(b, a, x, axis=axis), 1e-9)


def test_float32_coefficients_keep_float32_and_integers_compute_in_float64():
    b, a = np.array([0.2, 0.3], np.float32), np.array([1.0, -0.5], np.float32)
    x = np.linspace(-1, 1, 9, dtype=np.float32)
    _close(LFILTER(b, a, x), signal.lfilter(b, a, x), 1e-6)
    _close(LFILTER([0.5, 0.5], [2], np.arange(5)), signal.lfilter([0.5, 0.5], [2], np.arange(5)), 1e-12)


def test_outside_the_domain_it_refuses_naming_the_argument():
    x = np.ones((2, 6))
    with pytest.raises(ValueError, match="adapter scipy.signal.lfilter: unsupported a: a\\[0\\] == 0"):
        LFILTER([1.0], [0.0, 1.0], x)
    with pytest.raises(ValueError, match="unsupported zi: shape \\(2, 2\\)"):
        LFILTER([1.0, 0.5], [1.0, 0.2], x, zi=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="unsupported b: float64\\[2, 2\\]"):
        LFILTER(np.ones((2, 2)), [1.0], x)
    with pytest.raises(ValueError, match="unsupported x: integer x with integer coefficients"):
        LFILTER([1, 1], [2], np.arange(5))


@pytest.mark.e2e
def test_traced_with_a_carried_state_it_exports_and_reproduces_scipy(tmp_path):
    from tests.test_adapters_export import export_and_compare

    b, a = signal.butter(3, 0.15)                     # float64 constants, order 3: zi holds 3 values per channel
    rng = np.random.default_rng(5)
    samples = [{"x": rng.normal(size=(4, 2)).astype(np.float32), "zi": rng.normal(size=(3, 2)).astype(np.float32)}
               for _ in range(7)]

    def pipeline(lfilter, x, zi):
        newest_first = np.flip(x, axis=0)                                  # a traced negative-stride view
        y, zf = lfilter(b, a, newest_first * 0.5, axis=0, zi=zi[:, ::1])   # float32 with a Python float
        return {"y": y, "zf": zf}

    export_and_compare(tmp_path, "lfilter", samples, lambda x, zi: pipeline(LFILTER, x, zi),
                       lambda x, zi: pipeline(signal.lfilter, x, zi), 1e-4, 1e-5)
