"""`run` on a step whose host-set flag (raised by the host on a resumed grasp, lowered by every call) is
read only by Python control flow, a conditional expression (real LEAPP, torch and onnxruntime on CPU): the
flag stays a host value, not a graph input (as an input it would be a tensor branch), the export is traced
at the value every call leaves, and the verdict is restricted to calls where it holds that value."""
from __future__ import annotations

import pytest
from test_run import generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_host_flag_read_by_python_control_flow_stays_a_host_value(tmp_path):
    work = project(tmp_path, "run_host_branch")
    before = tree_hash(work / "gripctl")
    generate(work, "gripctl", "gripctl.servo:ForceServo.command")
    _, report = run_json(work)
    assert report["status"] == "restricted", report.get("error")
    assert "host_set_inputs" not in report and "self.resumed" not in report.get("state", {}).values()
    (why,) = report["restricted_domain"]["because"]
    assert why.startswith("gripctl/servo.py:19 host-set self.resumed: read by Python control flow")
    assert why.endswith("the export takes the side of calls where it is False")
    assert not [s for a in report["attempts"] for s in a.get("signals", []) if s.get("signal") == "tensor-branch"]
    across = report["validation"]["across_run"]
    assert across["ok"] and across["outside_domain"] == [26]   # the call after the host's resume at k=25
    assert "not on call(s) 26" in report["restricted_domain"]["domain_checked"]
    assert tree_hash(work / "gripctl") == before
