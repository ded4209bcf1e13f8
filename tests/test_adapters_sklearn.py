"""scikit-learn scaler adapters against the fitted scalers' own transform."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from leapp_codemod.adapters import (
    ADAPTERS,
    frozen_min_max_scaler,
    frozen_standard_scaler,
    mismatch,
)

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

preprocessing = pytest.importorskip("sklearn.preprocessing")

# Both sides compute each in-place step in float64 and store it in X's dtype: the results are identical.
RTOL, ATOL = 0.0, 0.0


def fitted_data(n_features):
    return hnp.arrays(np.float64, st.tuples(st.integers(2, 6), st.just(n_features)),
                      elements=st.floats(-50, 50)).filter(lambda a: np.all(np.ptp(a, axis=0) > 1e-3))


CASES = st.integers(1, 5).flatmap(lambda f: st.tuples(
    fitted_data(f),
    st.sampled_from([np.float32, np.float64, np.int64]).flatmap(
        lambda d: hnp.arrays(d, st.tuples(st.integers(1, 4), st.just(f)),
                             elements=st.integers(-80, 80) if d == np.int64 else
                             st.floats(-80, 80, width=np.dtype(d).itemsize * 8)))))


@settings(max_examples=200, deadline=None)
@given(CASES, st.booleans(), st.booleans())
def test_standard_scaler(case, with_mean, with_std):
    train, X = case
    scaler = preprocessing.StandardScaler(with_mean=with_mean, with_std=with_std).fit(train)
    expected = scaler.transform(X)
    problem = mismatch(frozen_standard_scaler(scaler)(X), expected, RTOL, ATOL)
    assert problem is None, problem
    assert mismatch(ADAPTERS["sklearn.preprocessing.StandardScaler.transform"].function(scaler, X), expected,
                    RTOL, ATOL) is None


@settings(max_examples=200, deadline=None)
@given(CASES, st.sampled_from([(0.0, 1.0), (-1.0, 1.0), (2.0, 5.5)]), st.booleans())
def test_min_max_scaler(case, feature_range, clip):
    train, X = case
    scaler = preprocessing.MinMaxScaler(feature_range=feature_range, clip=clip).fit(train)
    expected = scaler.transform(X)
    problem = mismatch(frozen_min_max_scaler(scaler)(X), expected, RTOL, ATOL)
    assert problem is None, problem
    assert mismatch(ADAPTERS["sklearn.preprocessing.MinMaxScaler.transform"].function(scaler, X), expected,
                    RTOL, ATOL) is None


def test_statistics_are_frozen_when_the_function_is_built():
    scaler = preprocessing.StandardScaler().fit(np.array([[0.0], [2.0]]))
    transform = frozen_standard_scaler(scaler)
    scaler.mean_ = np.array([100.0])
    assert transform(np.array([[1.0]]))[0, 0] == 0.0


def test_torch_input_gives_torch_output():
    scaler = preprocessing.MinMaxScaler().fit(np.array([[0.0], [4.0]]))
    out = frozen_min_max_scaler(scaler)(torch.tensor([[1.0]], dtype=torch.float32))
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32 and out.item() == 0.25


@pytest.mark.parametrize("call, adapter, argument", [
    (lambda: frozen_standard_scaler(preprocessing.StandardScaler()), "StandardScaler", "scaler"),
    (lambda: frozen_standard_scaler(preprocessing.StandardScaler().fit(np.ones((3, 2))))(np.ones((2, 3))),
     "StandardScaler", "X"),
    (lambda: frozen_min_max_scaler(preprocessing.MinMaxScaler().fit(np.eye(2)))(np.ones(2)), "MinMaxScaler", "X"),
    (lambda: frozen_min_max_scaler(preprocessing.MinMaxScaler().fit(np.eye(2)))(np.ones((1, 2), dtype=np.float16)),
     "MinMaxScaler", "X"),
])
def test_out_of_domain_inputs_are_refused(call, adapter, argument):
    with pytest.raises(ValueError, match=rf"adapter sklearn\.preprocessing\.{adapter}\.transform: "
                                         rf"unsupported {argument}"):
        call()
