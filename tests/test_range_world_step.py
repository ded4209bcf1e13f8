"""A given inline range that ends in the world's step is taken up to the statement before it: the simulator
the step runs is not pipeline code, and what it returns is the next observation, not carried state
(fixtures/scan_range_world_step)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from scanfixture import check_marked, found, scan_copy

from leapp_codemod.analysis.inline.range import read_range
from leapp_codemod.analysis.inline.world_step import world_step


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_simulator_behind_the_step_is_not_scanned_as_pipeline(tmp_path, monkeypatch):
    result = scan_copy("scan_range_world_step", tmp_path, "cart_app", "balance.py:10-12", monkeypatch)
    assert not any(path == "cart_env.py" for path, _, _ in found(result))
    assert result.entry_note and "world's step at line 12" in result.entry_note and "taken as 10-11" in result.entry_note


def test_the_range_read_for_generate_and_run_ends_before_the_step(tmp_path):
    from scanfixture import FIXTURES
    path = FIXTURES / "scan_range_world_step" / "cart_app" / "balance.py"
    _, rng = read_range(str(path), path.read_text(), 10, 12)
    assert (rng.start, rng.end) == (10, 11)
    assert "force" in rng.outputs and "obs" not in rng.state


@pytest.mark.parametrize("source, steps", [
    ("obs, r, d, i = env.step(a)", True),
    ("envs[0].step(a)", True),
    ("mujoco.mj_step(m, d)", True),
    ("optimizer.step()", False),
    ("self.model.step(x)", False),
    ("lr_scheduler.step()", False),
    ("y = policy(x)", False),
])
def test_what_counts_as_the_world_step(source, steps):
    assert world_step(ast.parse(source).body[0]) is steps


def test_a_project_wrapper_around_an_engine_step_is_scanned_as_pipeline(tmp_path, monkeypatch):
    # the action sent into the engine, the engine's step itself and the observation state are found; the reward
    # it scores is not pipeline (the rollout keeps only the observation of what the step returns)
    marked = check_marked("scan_range_wrapped_step", tmp_path, monkeypatch, "reach_app", "rollout.py:12-14")
    assert {(path, category) for path, _, category in marked} == {
        ("reach_env.py", "foreign-library"), ("reach_env.py", "inplace-state"), ("reach_env.py", "io-in-pipeline")}
    result = scan_copy("scan_range_wrapped_step", tmp_path / "again", "reach_app", "rollout.py:12-14", monkeypatch)
    assert result.entry_note and "through `p.stepSimulation`" in result.entry_note


def test_the_exported_range_still_ends_before_a_wrapped_step(tmp_path):
    from scanfixture import FIXTURES
    path = FIXTURES / "scan_range_wrapped_step" / "reach_app" / "rollout.py"
    _, rng = read_range(str(path), path.read_text(), 12, 14)
    assert (rng.start, rng.end) == (12, 13)


def test_a_wrapped_step_in_the_middle_of_a_range_is_followed_and_its_observation_is_no_state(tmp_path, monkeypatch):
    # the range goes on after the step (a return tally, `obs = nxt`): the wrapper's PD torques and the observation
    # it builds are still pipeline code, the engine's own step is the world (flagged: the export drops it), and
    # the copied observation is the next reading, not state the range carries
    marked = check_marked("scan_range_wrapped_step", tmp_path, monkeypatch, "hopper_app", "evaluate.py:12-15")
    assert {(path, category) for path, _, category in marked} == {
        ("hop_env.py", "io-in-pipeline"), ("hop_env.py", "inplace-state"), ("hop_env.py", "foreign-library")}
    result = scan_copy("scan_range_wrapped_step", tmp_path / "again", "hopper_app", "evaluate.py:12-15", monkeypatch)
    assert result.entry_note and "through `mujoco.mj_step`" in result.entry_note
    assert not result.not_followed


def test_a_world_step_in_the_middle_of_a_range_is_cut_and_said_to_be(tmp_path, monkeypatch):
    # `player.step(act)` is the world the action is handed to (a project class with no engine behind it): cut on
    # purpose, not scanned, and flagged as the world's step the export drops; as it runs project code that may
    # compute the next observation, the scan says so
    result = scan_copy("scan_range_world_step", tmp_path, "replay_app", "replay.py:23-25", monkeypatch)
    assert found(result) == {("replay.py", 24, "LCM904")}
    [left] = result.not_followed
    assert left.line == 24 and "runs the project's `LogPlayer.step` (replay.py:13)" in left.reason


def test_a_carried_number_a_range_adds_to_is_said_to_be_updated_not_mutated_in_place(tmp_path, monkeypatch):
    from leapp_codemod.scan.pipeline import scan_project
    (tmp_path / "gait.py").write_text(
        "import numpy as np\nimport torch\n\n\ndef run(policy, read, dt):\n    phase = 0.0\n    while True:\n"
        "        phase += dt\n        obs = np.append(read(), np.sin(phase))\n"
        "        act = policy(torch.as_tensor(obs, dtype=torch.float32))\n        print(act)\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = scan_project(["."], entry="gait.py:8-10")
    messages = [f.message for f in result.findings if f.line == 8]
    assert messages and all("updates `phase`, which the driver loop carries" in m for m in messages)
    assert not any("in place" in m for m in messages)


def test_a_project_link_that_sends_the_action_and_reads_the_reply_is_scanned_as_pipeline(tmp_path, monkeypatch):
    # no engine behind the step: it sends the command over a socket it holds and builds the next observation from
    # the reply, so the reply is the pipeline's input and the math on it is pre-processing
    marked = check_marked("scan_range_wrapped_step", tmp_path, monkeypatch, "rover_app", "drive.py:13-15")
    assert ("rover_link.py", 24, "scalar-extraction") in marked
    result = scan_copy("scan_range_wrapped_step", tmp_path / "again", "rover_app", "drive.py:13-15", monkeypatch)
    assert result.entry_note and "through `self.sock.sendto`" in result.entry_note


def test_the_observation_copied_back_under_a_branch_is_what_the_wrapped_step_keeps(tmp_path, monkeypatch):
    # `if done: state = zeros() else: state = nxt` after the range: `nxt` is the next observation, so the
    # observation the link builds stays in the scanned slice
    from tests.test_scan_fixtures import markers
    from scanfixture import FIXTURES
    result = scan_copy("scan_range_wrapped_step", tmp_path, "rover_app", "patrol.py:11-12", monkeypatch)
    in_link = {(Path(f.path).as_posix().removeprefix("./"), f.line, f.category) for f in result.findings
               if Path(f.path).name == "rover_link.py"}
    marked, _ = markers(FIXTURES / "scan_range_wrapped_step" / "rover_app")
    assert in_link == {m for m in marked if m[0] == "rover_link.py"}


def test_a_factory_built_environment_whose_step_runs_a_control_bound_to_a_field_is_followed(tmp_path, monkeypatch):
    # `make_env("reach")` returns one of two project environments; their `step` calls `self._control(action)`,
    # bound in the constructor to the method that steps MuJoCo; the observation the loop reshapes before the
    # policy is the step's new reading, not carried state
    marked = check_marked("scan_range_wrapped_step", tmp_path, monkeypatch, "arm_factory_app", "evaluate.py:11-13")
    assert marked == {("envs.py", 15, "io-in-pipeline"), ("envs.py", 16, "io-in-pipeline")}
    result = scan_copy("scan_range_wrapped_step", tmp_path / "again", "arm_factory_app", "evaluate.py:11-13",
                       monkeypatch)
    assert result.entry_note and "through `mujoco.mj_step`" in result.entry_note


def test_a_registered_environment_behind_a_library_wrapper_is_followed(tmp_path, monkeypatch):
    # `register(id=..., entry_point="cart_link:CartLink")`, `gym.make(id)`, then `RecordEpisodeStatistics(env)`:
    # the range's `env.step` runs the project's CartLink.step through the wrapper
    marked = check_marked("scan_range_wrapped_step", tmp_path, monkeypatch, "registered_app", "balance.py:15-17")
    assert ("cart_link.py", 19, "unmapped-numpy") in marked


def test_a_step_repeated_in_a_loop_of_the_range_is_followed_to_its_bus_client_and_its_bookkeeping_left_out(
        tmp_path, monkeypatch):
    # the world step sits in a decimation loop inside the range; the environment hands the targets over through a
    # project bus client that writes to a serial port; what the step computes only for its reward, counters, a
    # print of them and a recovery helper is no pipeline work, the observation it builds is
    from tests.test_scan_fixtures import markers
    from scanfixture import FIXTURES
    app = FIXTURES / "scan_range_wrapped_step" / "crawler_app"
    result = scan_copy("scan_range_wrapped_step", tmp_path, "crawler_app", "crawl.py:11-14", monkeypatch)
    in_env = {(Path(f.path).name, f.line, f.category) for f in result.findings if Path(f.path).name == "crawler_env.py"}
    marked, clean = markers(app)
    assert in_env and in_env == {m for m in marked if m[0] == "crawler_env.py"}
    assert not {(path, line) for path, line, _ in in_env} & clean
    assert not any("env.step" in str(getattr(n, "text", n)) for n in result.not_followed)
    assert result.entry_note and "through `self.link.write`" in result.entry_note
