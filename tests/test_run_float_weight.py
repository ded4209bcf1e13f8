"""A Python float state read by NumPy code on float32 arrays (`avg * weight`) is carried as a float32
shape-(1,) array (real LEAPP, torch and onnxruntime on CPU): a float64 array would turn the float32 state
it meets into float64, which LEAPP's update_state refuses and a float32 layer downstream cannot take."""
from __future__ import annotations

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_float_weight_on_float32_arrays_is_carried_in_float32_and_validates(tmp_path):
    work = project(tmp_path, "run_float_weight")
    before = tree_hash(work / "levelapp")
    generate(work, "levelapp", "levelapp.leveler:Leveler.estimate")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["state"] == {"avg": "self.avg", "weight": "self.weight"}
    weight = next(r for r in report["state_observed"] if r["name"] == "weight")
    assert weight["shape"] == [1] and "a float32 array of shape (1,)" in weight["dtype"]
    assert report["validation"]["rollout_from_reset"]["ok"] and report["validation"]["across_run"]["ok"]
    assert tree_hash(work / "levelapp") == before
