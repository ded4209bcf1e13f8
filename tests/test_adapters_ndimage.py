"""scipy.ndimage.gaussian_filter1d adapter against SciPy."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage
import torch

from leapp_codemod.adapters import ADAPTERS, mismatch

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

FILTER = ADAPTERS["scipy.ndimage.gaussian_filter1d"].function


@pytest.mark.parametrize("kwargs", [
    {"sigma": 0.8, "axis": -1, "mode": "nearest"}, {"sigma": 0.6, "mode": "reflect"},
    {"sigma": 0.6, "mode": "mirror"}, {"sigma": 0.7, "mode": "constant", "cval": 0.5},
    {"sigma": 1.0, "mode": "wrap", "axis": 0}, {"sigma": 2.0, "truncate": 2.0, "axis": 1},
    {"sigma": 1.5, "radius": 1},
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gaussian_filter1d_matches_scipy(kwargs, dtype):
    x = (np.random.default_rng(0).normal(size=(6, 7)) * 2).astype(dtype)
    got = FILTER(x, **kwargs)
    assert mismatch(got, scipy.ndimage.gaussian_filter1d(x, **kwargs), 1e-6, 1e-6) is None
    torch_got = FILTER(torch.from_numpy(x), **kwargs)
    assert isinstance(torch_got, torch.Tensor) and torch_got.dtype == torch.from_numpy(x).dtype


@pytest.mark.parametrize(("args", "kwargs", "argument"), [
    ((np.ones(5, dtype=np.int64), 1.0), {}, "input"), ((np.ones(5), 1.0), {"order": 1}, "order"),
    ((np.ones(5), 1.0), {"mode": "grid-wrap"}, "mode"), ((np.ones(3), 2.0), {}, "sigma"),
])
def test_gaussian_filter1d_refuses_outside_its_domain(args, kwargs, argument):
    with pytest.raises(ValueError, match=f"gaussian_filter1d: unsupported {argument}"):
        FILTER(*args, **kwargs)
