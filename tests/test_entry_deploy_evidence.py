"""Entry ranking on shapes the seen repositories did not have: a loop that sends to the robot outranks a
simulator check of the same policy; a sampling loop nested in a control loop is the model call of that loop's
range; the episode an evaluator repeats drives the policy; a network's blocks built anywhere in its methods are
its parts; a single file named like a library is the project's own."""
from __future__ import annotations

import pytest
from test_entry_ranking import app, by_id, expected, ranked

from leapp_codemod.analysis.entry.vendored import vendored_modules
from leapp_codemod.scan.load import load_project


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_loop_that_sends_to_the_robot_outranks_the_simulator_check(tmp_path, monkeypatch):
    want = expected("entry_robot_link_vs_sim")
    candidates = ranked(app(tmp_path, "entry_robot_link_vs_sim"), monkeypatch)
    first, found = candidates[0], by_id(candidates)
    assert first["entry"] == want["robot"]
    for sim in (want["sim_range"], want["network"]):
        assert found[sim]["score"] < first["score"]
        assert any("runs in simulation" in r and want["send"] in r for r in found[sim]["reasons"])
    assert not any("runs in simulation" in r for r in first["reasons"])


def test_without_the_robot_loop_the_simulator_check_is_not_demoted(tmp_path, monkeypatch):
    want = expected("entry_robot_link_vs_sim")
    root = app(tmp_path, "entry_robot_link_vs_sim")
    drive = root / "rover" / "drive.py"
    # the same loop, but it steps a simulated rover instead of writing to the serial link
    drive.write_text(drive.read_text(encoding="utf-8").replace(
        "self.push_wheel_speeds(float(speeds[0]), float(speeds[1]))", "self.sim.step(speeds)"), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert not any("runs in simulation" in r for c in candidates for r in c["reasons"])
    assert candidates[0]["entry"] != want["robot"]


def test_a_sampling_loop_inside_the_episode_is_the_model_call_of_its_range(tmp_path, monkeypatch):
    want = expected("entry_sampler_in_episode")
    candidates = ranked(app(tmp_path, "entry_sampler_in_episode"), monkeypatch)
    first, found = candidates[0], by_id(candidates)
    assert first["entry"] == want["range"]
    assert any("episode an evaluation repeats" in r for r in first["reasons"])
    for other in (want["field"], want["block"]):
        assert found[other]["score"] < first["score"]
    assert any("a part of another model: VelocityField.__init__" in r for r in found[want["block"]]["reasons"])


def test_a_loop_that_steps_the_world_inside_the_control_loop_is_no_model_call(tmp_path, monkeypatch):
    want = expected("entry_sampler_in_episode")
    root = app(tmp_path, "entry_sampler_in_episode")
    agent = root / "arm" / "agent.py"
    # each integration step now also moves the arm: the inner loop is a control loop of its own
    agent.write_text(agent.read_text(encoding="utf-8").replace(
        "a = a + dt * self.field(a, k * dt, cond)",
        "a = a + dt * self.field(a, k * dt, cond)\n                    env.step(a[0].numpy())"), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert want["range"] not in by_id(candidates)


def test_a_single_file_named_like_a_library_is_the_projects_own(tmp_path):
    (tmp_path / "main.py").write_text("from robomimic import Policy\n\nPolicy().act(None)\n", encoding="utf-8")
    (tmp_path / "robomimic.py").write_text("class Policy:\n    def act(self, obs):\n        return obs\n",
                                           encoding="utf-8")
    assert vendored_modules(load_project([str(tmp_path)]).project) == set()
    package = tmp_path / "pkg"
    package.mkdir()
    (tmp_path / "robomimic.py").unlink()
    (package / "robomimic").mkdir()
    (package / "robomimic" / "__init__.py").write_text("from robomimic.algo import Policy\n", encoding="utf-8")
    (package / "robomimic" / "algo.py").write_text((
        "class Policy:\n    def act(self, obs):\n        return obs\n"), encoding="utf-8")
    (package / "main.py").write_text("from robomimic import Policy\n\nPolicy().act(None)\n", encoding="utf-8")
    (tmp_path / "main.py").unlink()
    assert vendored_modules(load_project([str(package)]).project) == {"robomimic", "robomimic.algo"}


def test_a_block_that_also_steps_the_environment_is_cut_before_the_step(tmp_path, monkeypatch):
    want = expected("entry_eval_block_with_send")
    candidates = ranked(app(tmp_path, "entry_eval_block_with_send"), monkeypatch)
    first = candidates[0]
    assert first["entry"] == want["range"]
    assert first["kind"] == "inline" and first["end"] < want["send_line"]
    assert not any("enter from the previous iteration" in r for r in first["reasons"])


def test_a_log_file_written_in_the_loop_is_no_send_to_the_robot(tmp_path, monkeypatch):
    want = expected("entry_robot_link_vs_sim")
    root = app(tmp_path, "entry_robot_link_vs_sim")
    drive = root / "rover" / "drive.py"
    # the drive loop now only logs the speeds to a file (a dry run): nothing reaches the robot
    drive.write_text(drive.read_text(encoding="utf-8").replace(
        "self.push_wheel_speeds(float(speeds[0]), float(speeds[1]))",
        "with open('speeds.log', 'a') as log:\n                log.write(str(speeds))"), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert not any("runs in simulation" in r for c in candidates for r in c["reasons"])
    assert by_id(candidates)[want["sim_range"]]["score"] > by_id(candidates)[want["robot"]]["score"]



def test_a_clock_loop_in_a_thread_target_is_the_control_loop_never_a_model_call(tmp_path, monkeypatch):
    # a thread runs `hover`, whose body waits, then loops on the clock: the range is inside that loop
    (tmp_path / "hover.py").write_text("""import threading
import time

import torch

policy = torch.jit.load("hover.ts")
shared = {"state": [0.0] * 6, "cmd": None}


def hover():
    time.sleep(1.0)
    start = time.time()
    while time.time() - start < 20.0:
        state = list(shared["state"])
        scaled = torch.tensor([v / 3.0 for v in state])
        thrust = policy(scaled)
        shared["cmd"] = thrust.clamp(0.0, 1.0).tolist()


if __name__ == "__main__":
    threading.Thread(target=hover).start()
""", encoding="utf-8")
    ranges = [c for c in ranked(tmp_path, monkeypatch) if c["kind"] == "inline"]
    assert ranges and all(c["start"] > 13 for c in ranges)     # never from before the `while` (line 13)
