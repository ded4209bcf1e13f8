"""Numbers unpacked from an array and joined with `np.column_stack` (real LEAPP, torch and onnxruntime on
CPU): the twin keeps them as one-element slices, and NumPy's original on the recorded numbers (0-D) and the
torch adapter on the slices agree, so the pre-trace check passes and the export validates."""
from __future__ import annotations

import numpy as np
import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

from leapp_codemod.adapters import ADAPTERS


def test_the_column_stack_adapter_takes_numbers_as_numpy_does():
    stack = ADAPTERS["numpy.column_stack"].function
    for tup in ((np.float32(1.5), np.float32(-2.0)), [0.25, 3.0], (np.float32(1.0), np.array([2.0], np.float32))):
        want, got = np.column_stack(tup), stack(tup)
        assert got.shape == want.shape == (1, 2) and got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.e2e
def test_column_stack_of_unpacked_numbers_validates(tmp_path):
    work = project(tmp_path, "run_column_numbers")
    before = tree_hash(work / "baseapp")
    generate(work, "baseapp", "baseapp.policy:Follower.drive")
    assert "twin_unpack(twist, 3)" in (work / "integration.py").read_text()
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["validation"]["across_run"]["ok"]
    assert tree_hash(work / "baseapp") == before
