"""`generate` + `run` on pipelines with structured inputs/outputs and state found by observation
(real LEAPP, torch and onnxruntime on CPU)."""
from __future__ import annotations

import json

import pytest
from test_doc_examples import doc_group, find_session
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
    # what the scan names is explained by STATE (one class, two objects); the rest by observation only
    assert all(r["explained_by"].startswith("STATE[") or r["explained_by"] == "no static finding" for r in rows)
    rollout = report["validation"]["rollout_from_reset"]
    assert rollout["ok"] and rollout["steps"] == 8


@pytest.fixture(scope="module")
def sb3(tmp_path_factory):
    work = project(tmp_path_factory.mktemp("sb3"), "run_sb3")
    generate(work, "lstmapp", "lstmapp.agent:NormalizedAgent.act", driver="main_vecnorm.py", out="vecnorm.py")
    return work


def _restricted_by_a_library_branch(proc, report, work, app_line: str) -> None:
    """Everything validates, but LEAPP saw a branch on tensor data inside the library (sb3-contrib's
    `if th.all(episode_starts == 0.0)`): the export holds for the checked domain only, so the verdict is
    `restricted`, naming the library line and the app call."""
    assert proc.returncode == 1 and report["status"] == "restricted", report.get("error")
    because = report["restricted_domain"]["because"][0]
    assert because.startswith(f"{app_line} tensor-branch inside ") and "site-packages" not in because
    assert report["graph_yaml"] and (work / report["graph_yaml"]).is_file()
    assert report["validation"]["ok"] is True and report["validation"]["across_run"]["ok"] is True


README_LSTM = find_session("fixtures/run_sb3")   # the README's generate + run of this pipeline


@pytest.mark.xdist_group(doc_group(README_LSTM))
def test_recurrent_ppo_lstm_states_returned_by_predict_are_state_with_a_warm_up_call(doc_session):
    ran = doc_session(README_LSTM)          # one export, shared with the README example's test
    proc, work = ran.done[-1], ran.cwd
    report = json.loads((work / "out" / "report.json").read_text())
    _restricted_by_a_library_branch(proc, report, work, "lstmapp/agent.py:13")
    assert "sb3_contrib/" in report["restricted_domain"]["because"][0]
    assert report["state"] == {"states": "self.states"}
    (row,) = report["state_observed"]
    assert row["kind"] == "tuple of tensors/arrays" and row["shape"] == [[1, 1, 8], [1, 1, 8]]
    assert row["initial"].startswith("None (taken from a warm-up call")
    assert all(a["warm_up_call"] for a in report["attempts"])
    assert report["validation"]["rollout_from_reset"]["ok"]


def test_vecnormalize_that_cannot_be_copied_twice_is_restored_from_a_state_only_snapshot(sb3):
    proc, report = run_json(sb3, "vecnorm.py", "--require-format", "onnx")
    # the only branch LEAPP saw is the distribution's argument check, whose other side only raises:
    # it restricts nothing, so the verdict is `validated` with a note naming the check and the app call
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    (check,) = report["checks_traced"]
    assert check.startswith("torch/distributions/distribution.py:") and "(called at lstmapp/agent.py:26)" in check
    assert report["validation"]["ok"] is True and report["validation"]["across_run"]["ok"] is True
    assert report["state"] == {}
    restored = report["attempts"][0]["restored_from"]
    assert restored.startswith("state-only snapshot (copying the snapshot failed: RecursionError")


def test_rsl_rl_recurrent_model_hidden_state_held_inside_the_library(tmp_path):
    work = project(tmp_path, "run_rslrl")
    generate(work, "rslapp", "rslapp.deploy:RecurrentActor.act")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert list(report["state"].values()) == ["self.actor.rnn.hidden_state"]
    (row,) = report["state_observed"]
    assert row["shape"] == [[1, 1, 16], [1, 1, 16]] and row["initial"].startswith("None")
    assert report["validation"]["rollout_from_reset"]["ok"]


def test_logging_print_and_shape_guards_do_not_block_and_are_listed(tmp_path):
    work = project(tmp_path, "run_logging")
    module = generate(work, "logapp", "logapp.policy:GuardedPolicy.act")
    assert "HOST_RUNTIME: tuple[str, ...] = ()" in module.read_text()
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert [f.split(" ")[0] for f in report["side_effects_left_out"]] == ["logapp/policy.py:24", "logapp/policy.py:25"]
    notes = {row["finding"].split(" ")[0]: row["note"] for row in report["shape_specialized"]}
    # the guards that only raise (line 18) or assert (line 20) document a fixed layout: scan does not flag
    # them (LCM001's precision), so they are neither blocking nor listed
    assert "logapp/policy.py:18" not in notes and "logapp/policy.py:20" not in notes
    assert notes["logapp/policy.py:23"].startswith("baked in at the traced shapes")
    assert report["shape_domain"]["input_layout"] == "obs:(1, 6):torch.float32"
    # the Python step counter drives the output: it is state, carried as a 0-d int64 tensor
    assert report["state"] == {"steps": "self.steps"}
    (row,) = report["state_observed"]
    assert row["kind"] == "counter" and row["dtype"].startswith("python int (a 0-d int64 tensor")
    assert report["validation"]["rollout_from_reset"]["ok"] and report["validation"]["rollout_from_reset"]["steps"] == 8
