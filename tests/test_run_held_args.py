"""Held inputs for an entry that also takes arguments (leapp_codemod.held, runner.held_plan): a hopping
controller gets its command as an argument and reads the joint state from the simulator it holds
(`data = self.sim.data; data.qpos` through a local alias, `self.sim.data.qvel` directly). Its running-mean
normalizer is reached through a field too (`self.norm.mean`), but the entry updates it: that leaf is state,
never a held input; a config array that never changes (`self.limits.scale`) stays a constant."""
from __future__ import annotations

import ast
from types import SimpleNamespace

import numpy as np
import pytest
from test_run import assert_validated, cli, generate, project, run_json, tree_hash

from leapp_codemod.generate.held_inputs import held_reads
from leapp_codemod.runner import held_plan


def test_fields_read_through_a_local_alias_are_held_reads_and_the_alias_itself_is_not():
    fn = ast.parse(
        "def step(self, cmd):\n"
        "    s = self.robot.state\n"
        "    arm = self.arm\n"
        "    s.mode = 1\n"                         # written through the alias: stays on the real object
        "    n = self.base.twist.shape[0] + s.q.ndim\n"    # an array's metadata is no field to serve
        "    return s.q + arm.joints.dq + self.base.twist + s.read() + cmd * n\n").body[0]
    assert {p for p, _ in held_reads(fn)} == {"robot.state.q", "arm.joints.dq", "base.twist"}
    twice = ast.parse("def step(self, c):\n    s = self.a.b\n    s = self.c.d\n    return s.q + c\n").body[0]
    assert {p for p, _ in held_reads(twice)} == {"a.b", "c.d"}     # rebound: no alias, no guessed path


def _call(**inputs):
    return SimpleNamespace(inputs=dict(inputs))


def test_a_held_field_the_entry_changes_is_state_and_an_unchanged_one_a_constant():
    traced = [_call(cmd=np.full(2, k), q=np.full(2, k), mean=np.full(2, k), gain=np.ones(2)) for k in range(3)]
    checks = [_call(cmd=np.zeros(2), q=np.full(2, 9.0), mean=np.zeros(2), gain=np.ones(2))]
    recorder = SimpleNamespace(
        held={"q": "sim.data.qpos", "mean": "norm.mean", "gain": "limits.scale"}, input_names=("cmd",),
        traced=traced, checks=checks, layout="",
        changed={("self", ("attr", "norm"), ("attr", "mean")): np.zeros(2)})
    dropped = held_plan.settle(recorder)
    assert recorder.held == {"q": "sim.data.qpos"}
    assert set(dropped) == {"self.norm.mean", "self.limits.scale"}
    assert "state" in dropped["self.norm.mean"] and "constant" in dropped["self.limits.scale"]
    assert all(set(c.inputs) == {"cmd", "q"} for c in traced + checks) and "mean" not in recorder.layout
    # without arguments every unchanged field stays: they are all the inputs the entry has
    alone = SimpleNamespace(held={"gain": "limits.scale"}, input_names=(), traced=[_call(gain=np.ones(2))] * 3,
                            checks=[], layout="", changed={})
    assert held_plan.settle(alone) == {} and alone.held == {"gain": "limits.scale"}


@pytest.mark.e2e
def test_held_fields_next_to_arguments_become_inputs_and_a_normalizer_read_through_a_field_stays_state(tmp_path):
    work = project(tmp_path, "run_held_args")
    before = tree_hash(work / "hopper")
    module = generate(work, "hopper", "hopper.policy:HopController.step").read_text()
    assert '"sim_data_qpos": "sim.data.qpos",' in module and '"sim_data_qvel": "sim.data.qvel",' in module
    assert '"norm_mean": "norm.mean",' in module     # a candidate: the run decides it is state
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["held_inputs"] == {"sim_data_qpos": "self.sim.data.qpos", "sim_data_qvel": "self.sim.data.qvel"}
    assert "state" in report["held_not_inputs"]["self.norm.mean"]
    assert "constant" in report["held_not_inputs"]["self.limits.scale"]
    assert "no array" in report["held_not_inputs"]["self.norm.clip"]     # a Python float
    assert list(report["state"].values()) == ["self.norm.mean"]
    yaml = (work / report["graph_yaml"]).read_text()
    assert "sim_data_qpos" in yaml and "sim_data_qvel" in yaml and "command" in yaml and "limits_scale" not in yaml
    later = report["validation"]["across_run"]["later_calls"]
    assert report["validation"]["across_run"]["ok"] and later["ok"] and len(later["calls"]) >= 8
    proc = cli(["record", "integration.py", "--out", "calls.npz"], work, 300)   # qpos/qvel vary: refused, one line
    assert proc.returncode != 0 and "HELD: sim.data.qpos, sim.data.qvel, changing between calls" in proc.stderr
    assert "Traceback" not in proc.stderr and not (work / "calls.npz").exists()
    assert tree_hash(work / "hopper") == before


@pytest.mark.e2e
def test_an_entry_whose_only_held_field_is_its_own_state_is_refused_in_one_line(tmp_path):
    work = project(tmp_path, "run_held_args")
    module = generate(work, "hopper", "hopper.policy:Drift.tick", driver="main_drift.py", out="drift.py").read_text()
    assert '"norm_mean": "norm.mean",' in module and '"running_mean_mean": ("hopper.policy:RunningMean", "mean")' in module
    proc, report = run_json(work, "drift.py")
    assert proc.returncode != 0 and report["status"] == "failed" and report["failed_stage"] == "inputs"
    assert report["error"].startswith("hopper.policy:Drift.tick has no inputs left")
    assert "self.norm.mean: changed by the entry's own calls: state" in report["error"]


class _Base:
    def act(self, command):
        return command + self.sensor.reading


class _Sensor:
    def __init__(self):
        self.reading = np.zeros(2)


class _Child(_Base):
    def __init__(self):
        self.sensor = _Sensor()

    def act(self, command):
        assert isinstance(self, _Child)
        return super().act(command) * 2


def test_an_entry_served_through_a_stand_in_keeps_isinstance_and_super():
    from leapp_codemod import held

    ctrl = _Child()
    out = held.fed(ctrl.act, {"reading": "sensor.reading"})(np.ones(2), reading=np.full(2, 3.0))
    assert out.tolist() == [8.0, 8.0] and ctrl.sensor.reading.tolist() == [0.0, 0.0]
