"""LEAPP's "No torch equivalent for numpy function ndim" (NumPy calls `np.ndim` inside `np.clip`, `np.sqrt`
...) reads a static shape: it is neither a cause a failed verdict quotes nor a signal that confirms a finding.
An unmapped function that computes values still is both."""
from __future__ import annotations

import logging

from leapp_codemod.runner.logcap import Capture


def _emit(text: str) -> Capture:
    capture = Capture()
    logger = logging.getLogger(f"leapp-shape-only-{id(capture)}")
    logger.propagate = False
    logger.addHandler(capture)
    logger.warning(text)
    return capture


def test_a_shape_read_is_no_cause_and_no_signal():
    capture = _emit("No torch equivalent for numpy function ndim. Operation will not be traced.")
    assert capture.causes == [] and capture.signals == []


def test_an_unmapped_function_of_values_is_still_a_cause_and_a_signal():
    capture = _emit("No torch equivalent for numpy function interp. Operation will not be traced.")
    assert capture.causes == ["No torch equivalent for numpy function interp. Operation will not be traced."]
    assert [s.signal for s in capture.signals] == ["unmapped-numpy"]
