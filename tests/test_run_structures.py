"""`generate` + `run` on pipelines with structured inputs/outputs and state found by observation
(real LEAPP, torch and onnxruntime on CPU)."""
from __future__ import annotations

import pytest

from test_run import assert_validated, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def structured(tmp_path_factory):
    work = project(tmp_path_factory.mktemp("structured"), "run_structured")
    before = tree_hash(work / "dictapp")
    generate(work, "dictapp", "dictapp.policy:GroupPolicy.act")
    proc, report = run_json(work)
    return work, proc, report, before


def test_nested_dict_and_tuple_inputs_and_a_dict_output_validate(structured):
    work, proc, report, before = structured
    assert_validated(proc, report, work)
    assert set(report["validation"]["outputs"]) == {"action", "value"}
    yaml = (work / report["graph_yaml"]).read_text()
    assert "[obs_policy_joint_pos, obs_policy_joint_vel, command_0, command_1]" in yaml
    assert tree_hash(work / "dictapp") == before


def test_non_tensor_arguments_are_constants_and_non_tensor_outputs_are_left_out(structured):
    _, _, report, _ = structured
    assert report["constants"] == {"scale": "0.5", "env": "<Env object>"}
    assert report["outputs_left_out"] == ["extras_terminated (NoneType)", "extras_env_name (str)"]


@pytest.fixture(scope="module")
def kalman(tmp_path_factory):
    work = project(tmp_path_factory.mktemp("kalman"), "run_kalman")
    generate(work, "kfapp", "kfapp.policy:FilteredPolicy.act")
    proc, report = run_json(work)
    return work, proc, report


def test_numpy_kalman_filters_are_state_per_object_found_by_observation(kalman):
    work, proc, report = kalman
    assert_validated(proc, report, work)
    assert report["state"] == {"pos_filter_P": "self.pos_filter.P", "pos_filter_x": "self.pos_filter.x",
                               "vel_filter_P": "self.vel_filter.P", "vel_filter_x": "self.vel_filter.x"}
    rows = report["state_observed"]
    assert {(r["kind"], r["dtype"], tuple(r["shape"])) for r in rows} == {("ndarray", "float64", (3,))}
    assert all(r["explained_by"] == "no static finding" for r in rows)
    rollout = report["validation"]["rollout_from_reset"]
    assert rollout["ok"] and rollout["steps"] == 8
