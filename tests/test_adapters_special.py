"""scipy.special adapters against SciPy on random inputs."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.special
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from leapp_codemod.adapters import ADAPTERS, mismatch, special

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

# float64: a few ulps; float32: a few float32 ulps (torch and SciPy use different exp/log kernels).
TOL = {np.float64: (1e-12, 1e-15), np.float32: (2e-6, 1e-7)}
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, max_side=5)


def float_arrays(dtype, low=-30.0, high=30.0):
    return hnp.arrays(dtype, SHAPES, elements=st.floats(low, high, width=np.dtype(dtype).itemsize * 8))


def assert_matches(got, expected, dtype):
    rtol, atol = TOL[np.dtype(dtype).type]
    problem = mismatch(got, expected, rtol, atol)
    assert problem is None, problem


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([np.float32, np.float64]).flatmap(float_arrays))
def test_expit_matches_scipy(x):
    assert_matches(special.expit(x), scipy.special.expit(x), x.dtype)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([np.float32, np.float64]).flatmap(lambda d: float_arrays(d, 0.0, 1.0)))
def test_logit_matches_scipy(x):
    assert_matches(special.logit(x), scipy.special.logit(x), x.dtype)


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.int64, SHAPES, elements=st.integers(-20, 20)))
def test_integer_inputs_promote_to_float64(x):
    assert_matches(special.expit(x), scipy.special.expit(x), np.float64)
    assert_matches(special.softmax(x), scipy.special.softmax(x), np.float64)


def with_axis(a):
    axes = st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1),
                     st.permutations(range(a.ndim)).map(lambda p: tuple(p[:max(1, len(p) - 1)])))
    return st.tuples(st.just(a), axes)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([np.float32, np.float64]).flatmap(
    lambda d: float_arrays(d).filter(lambda a: a.ndim > 0).flatmap(with_axis)))
def test_softmax_matches_scipy(case):
    x, axis = case
    assert_matches(special.softmax(x, axis=axis), scipy.special.softmax(x, axis=axis), x.dtype)


def test_logit_outside_unit_interval_gives_scipys_nan_and_infinities():
    x = np.array([-0.5, 0.0, 1.0, 1.5, 0.5])
    assert mismatch(special.logit(x), scipy.special.logit(x), 0, 0) is None


def test_torch_input_gives_torch_output_of_the_same_dtype():
    out = special.expit(torch.tensor([0.0, 1.0], dtype=torch.float32))
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32
    assert torch.allclose(out, torch.tensor([0.5, 0.7310586]))


def test_python_scalar_returns_a_numpy_scalar_like_scipy():
    assert mismatch(special.expit(0.25), scipy.special.expit(0.25), 1e-15, 0) is None


@pytest.mark.parametrize("call, argument", [
    (lambda: special.expit(np.zeros(2, np.float16)), "x"),
    (lambda: special.expit(np.zeros(2), out=np.zeros(2)), "argument"),
    (lambda: special.softmax(np.zeros((2, 2)), axis=2), "axis"),
    (lambda: special.logit(np.array(["a"])), "x"),
])
def test_out_of_domain_inputs_are_refused_with_the_adapter_name(call, argument):
    with pytest.raises(ValueError, match=rf"adapter scipy\.special\.\w+: unsupported {argument}"):
        call()


def test_registry_check_domain_agrees_with_the_function():
    entry = ADAPTERS["scipy.special.softmax"]
    entry.check_domain(np.zeros(3), axis=0)
    with pytest.raises(ValueError, match="scipy.special.softmax"):
        entry.check_domain(np.zeros(3), axis=1)
