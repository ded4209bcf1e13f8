"""`generate` + `run` on a step that fills a preallocated observation buffer slice by slice and then
rebinds the attribute to a clipped copy (real LEAPP, torch and onnxruntime on CPU). Every slot is
written before it is read, so no read of the old value reaches the outputs; but LEAPP traces the
fill only into a traced buffer, so the buffer is state (the scan flags it, LCM703). Left out, the
fill wrote into a plain array and the export dropped `joint_vel`."""
from __future__ import annotations

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_buffer_filled_then_rebound_stays_state_and_validates(tmp_path):
    work = project(tmp_path, "run_rebound_buffer")
    before = tree_hash(work / "actnet")
    generate(work, "actnet", "actnet.model:ActuatorNet.torque")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["state"] == {"err_hist": "self.err_hist", "obs_buf": "self.obs_buf"}
    assert not any("obs_buf" in note for note in report.get("state_notes") or [])
    yaml = (work / report["graph_yaml"]).read_text()
    assert "joint_vel" in yaml
    assert report["validation"]["across_run"]["ok"] and report["validation"]["rollout_from_reset"]["ok"]
    assert tree_hash(work / "actnet") == before
