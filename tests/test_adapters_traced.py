"""Adapters on the values LEAPP hands them while tracing: views with negative strides (`np.flip`),
transposed and sliced views, float32 arrays in arithmetic with Python floats. The property tests run
the adapters on plain arrays; a traced view goes through other code (LEAPP's patched
`torch.from_numpy` refuses negative strides), so each family is exported from such values here."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.special
from scipy import signal

from leapp_codemod.adapters import ADAPTERS

pytestmark = pytest.mark.e2e

B, A = signal.butter(2, 0.3)


def _pipeline(f, x, m):
    """`f(name)` is the function under test: the adapter or the original."""
    newest_first = np.flip(x, axis=0)                     # negative strides along the samples
    return {
        "contiguous": f("numpy.ascontiguousarray")(newest_first) * 2.0,
        "filtered": f("scipy.signal.lfilter")(B, A, newest_first, axis=0),
        "inverse": f("numpy.linalg.inv")(np.flip(m, axis=(0, 1)) * 0.5),
        "squashed": f("scipy.special.expit")(x.T[1:] * 1.5),               # a sliced transposed view
        "norm": f("numpy.linalg.norm")(np.flip(x, axis=1), axis=1),
    }


ORIGINALS = {"numpy.ascontiguousarray": np.ascontiguousarray, "scipy.signal.lfilter": signal.lfilter,
             "numpy.linalg.inv": np.linalg.inv, "scipy.special.expit": scipy.special.expit,
             "numpy.linalg.norm": np.linalg.norm}


def test_traced_views_export_and_reproduce_the_originals(tmp_path):
    from tests.test_adapters_export import export_and_compare

    rng = np.random.default_rng(11)
    samples = [{"x": rng.normal(size=(5, 3)).astype(np.float32),
                "m": (rng.normal(size=(3, 3)) + 6 * np.eye(3)).astype(np.float32)} for _ in range(7)]
    export_and_compare(tmp_path, "views", samples,
                       lambda x, m: _pipeline(lambda n: ADAPTERS[n].function, x, m),
                       lambda x, m: _pipeline(ORIGINALS.__getitem__, x, m), 1e-4, 1e-5)
