"""`generate` + `run` on a pipeline whose changed values are not all state (real LEAPP, torch and
onnxruntime on CPU): the evicted slot of a history deque, a counter read only by a log line and a
buffer rebuilt on every call stay out of the export; a float clock read by NumPy code is state carried
as a NumPy array; a NumPy scalar argument is a graph input."""
from __future__ import annotations

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_state_by_reads_validates_with_only_the_read_slots_exported(tmp_path):
    work = project(tmp_path, "run_state_reads")
    before = tree_hash(work / "velest")
    generate(work, "velest", "velest.estimator:VelocityEstimator.update")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["state"] == {"clock": "self.clock", "positions_1": "self.positions[1]",
                               "positions_2": "self.positions[2]"}
    clock = next(r for r in report["state_observed"] if r["name"] == "clock")
    assert clock["shape"] == [1] and clock["dtype"].startswith("python float (a float64 array of shape (1,)")
    notes = "\n".join(report["state_notes"])
    assert "self.positions[0]: its old value never reaches the outputs" in notes
    assert "self.updates: its old value never reaches the outputs" in notes
    yaml = (work / report["graph_yaml"]).read_text()
    assert "yaw_rate" in yaml and "positions_0" not in yaml and "updates" not in yaml
    assert report["validation"]["rollout_from_reset"]["ok"] and report["validation"]["across_run"]["ok"]
    assert tree_hash(work / "velest") == before


def test_a_flag_the_host_raises_and_every_call_lowers_is_a_graph_input_not_state(tmp_path):
    work = project(tmp_path, "run_host_flag")
    generate(work, "smoothapp", "smoothapp.policy:SmoothedPolicy.act")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["state"] == {"smoothed": "self.smoothed"}
    assert report["host_set_inputs"] == {"reset_mask": "self.reset_mask"}
    yaml = (work / report["graph_yaml"]).read_text()
    assert "- name: reset_mask\n" in yaml and "reset_mask_in" not in yaml and "reset_mask_out" not in yaml
    # the driver raises the flag every 7th call: calls sampled across the run include episode starts
    later = report["validation"]["across_run"]["later_calls"]["calls"]
    assert len(later) >= 8 and all(c["ok"] for c in later)
