"""Inputs held by objects (leapp_codemod.held): a controller reads the joint state from the SDK object it
holds (`self.robot.state.q`, refreshed in place by the driver, and `.dq`, rebound), never from arguments.
`generate` declares both fields in HELD; `run` reads them before each call, traces them through a stand-in for
the controller, and the export validates on the fresh calls, the rollout and calls across the whole run."""
from __future__ import annotations

import numpy as np
import pytest
from test_run import assert_validated, cli, generate, project, run_json, tree_hash

from leapp_codemod import held


class _State:
    def __init__(self):
        self.q = np.arange(3.0)


class _Robot:
    def __init__(self):
        self.state = _State()
        self.count = 0

    def get_q(self):
        return self.state.q


class _Controller:
    def __init__(self):
        self.robot = _Robot()
        self.written = None

    def helper(self):
        return self.robot.state.q * 2

    def step(self):
        self.written = self.helper() + 1     # a write goes to the real object
        return self.written


def test_a_stand_in_serves_the_fed_fields_and_writes_through_to_the_real_object():
    ctrl = _Controller()
    paths = {"robot_state_q": "robot.state.q"}
    got = held.read(ctrl, paths)
    assert list(got) == ["robot_state_q"] and got["robot_state_q"] is not ctrl.robot.state.q    # a copy
    fed = held.fed(ctrl.step, paths)
    out = fed(robot_state_q=np.full(3, 5.0))
    assert out.tolist() == [11.0, 11.0, 11.0]                # the class's own helper saw the fed field too
    assert ctrl.written.tolist() == [11.0, 11.0, 11.0]       # written on the real controller
    assert ctrl.robot.state.q.tolist() == [0.0, 1.0, 2.0]    # the real field untouched
    assert fed().tolist() == [1.0, 3.0, 5.0]                 # nothing fed: the real field
    with pytest.raises(held.HeldError, match=r"self\.robot\.get_q is a method, not a field"):
        held.read(ctrl, {"q": "robot.get_q"})
    assert held.read(ctrl, {"n": "robot.count", "q": "robot.state.q"}).keys() == {"q"}   # a number stays a field


@pytest.mark.e2e
def test_fields_of_an_sdk_object_the_step_reads_become_inputs_and_the_export_validates(tmp_path):
    work = project(tmp_path, "run_held_sdk")
    before = tree_hash(work / "arm")
    module = generate(work, "arm", "arm.control:JointController.act").read_text()
    assert '"robot_state_q": "robot.state.q",' in module and '"robot_state_dq": "robot.state.dq",' in module
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["held_inputs"] == {"robot_state_q": "self.robot.state.q", "robot_state_dq": "self.robot.state.dq"}
    yaml = (work / report["graph_yaml"]).read_text()
    assert "robot_state_q" in yaml and "robot_state_dq" in yaml
    later = report["validation"]["across_run"]["later_calls"]
    assert report["validation"]["across_run"]["ok"] and later["ok"] and len(later["calls"]) >= 8
    assert tree_hash(work / "arm") == before
    proc = cli(["record", "integration.py"], work, 300)       # a recording holds arguments only: refused, one line
    assert proc.returncode != 0 and "reads its inputs from fields of objects it holds (HELD: robot.state.q" in proc.stderr
    assert "Traceback" not in proc.stderr
