"""A step that returns its own state attribute (`self.smoothed = a*raw + (1-a)*self.smoothed;
return self.smoothed`): the value is both an output and the state's next value, so the state is
named apart from the output (LEAPP merges a state output into the outputs by name)."""
from __future__ import annotations

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_step_returning_its_own_state_exports_the_value_as_output_and_as_state(tmp_path):
    work = project(tmp_path, "run_return_state")
    before = tree_hash(work / "lowpass")
    generate(work, "lowpass", "lowpass.smoother:SmoothedPolicy.act")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["state"] == {"smoothed_state": "self.smoothed"}
    assert set(report["validation"]["outputs"]) == {"smoothed"}
    yaml = (work / report["graph_yaml"]).read_text()
    assert "outputs:\n    smoothed_policy: [smoothed]" in yaml
    assert "smoothed_policy/smoothed_state_out: [smoothed_policy/smoothed_state_in]" in yaml
    assert report["validation"]["rollout_from_reset"]["ok"] is True
    assert tree_hash(work / "lowpass") == before
