"""Inline range bounds: from where the loop reads this iteration's observation to the last statement computing
what it sends out (analysis/entry/bounds.py). Fixtures of three shapes: a UDP script whose chunking model runs in
an `if` every few ticks, a runner class around a PyBullet-style simulator whose send is a camelCase
`setJointMotorControlArray`, a MuJoCo-style hover loop that packs its result into the full actuator vector."""
from __future__ import annotations

import ast

import pytest
from click.testing import CliRunner
from test_entry_discovery import tree_hash
from test_entry_ranking import app, expected, ranked

from leapp_codemod.analysis.entry.bounds import (
    packing_tail,
    reads_world,
    send_call,
    sends,
)
from leapp_codemod.analysis.entry.loops import (
    defined_names,
    inline_pipelines,
    used_names,
)
from leapp_codemod.cli import main


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("name", ["inline_bounds_udp_chunks", "inline_bounds_bullet_runner",
                                  "inline_bounds_rotor_packing"])
def test_the_offered_range_runs_from_the_observation_to_what_is_sent(name, tmp_path, monkeypatch):
    want = expected(name)
    root = app(tmp_path, name)
    first = ranked(root, monkeypatch)[0]
    assert first["kind"] == "inline" and first["entry"] == want["entry"]
    # `scan` takes the offered range as it is (one block, nothing refused) and the tree stays untouched
    before = tree_hash(root)
    result = CliRunner().invoke(main, ["scan", ".", "--entry", want["entry"], "--no-cache"], catch_exceptions=False)
    assert "inline statement range" in result.stdout and "Traceback" not in result.stdout + result.stderr
    assert tree_hash(root) == before


def test_a_gated_model_call_is_offered_with_the_statements_around_its_block(tmp_path, monkeypatch):
    want = expected("inline_bounds_udp_chunks")
    first = ranked(app(tmp_path, "inline_bounds_udp_chunks"), monkeypatch)[0]
    start, end = first["start"], first["end"]
    assert start < want["gated_call"] < end      # not the call alone: the statements before and after its `if`
    # counted as before: the widened statements are no evidence of pipeline work (rank unchanged)
    assert not any(r.endswith("statements of pipeline code") for r in first["reasons"])


def _loop(code: str) -> ast.AST:
    return next(n for n in ast.walk(ast.parse(code)) if isinstance(n, (ast.For, ast.While)))


def _range(code: str) -> tuple[int, int]:
    found = inline_pipelines(_loop(code), set(), lambda call: False)
    assert len({(p.start, p.end) for p in found}) == 1
    return found[0].start, found[0].end


def test_a_write_that_computes_the_command_ends_the_range_inside_it_and_a_handover_outside():
    computed = ("for _ in range(9):\n    q = d.qpos[2:]\n    a = policy(q)\n    t = a * 0.5\n"
                "    d.ctrl[:] = 30.0 * (t - q)\n    step(m, d)\n    trace.append(t)\n")
    handed = ("for _ in range(9):\n    q = d.qpos[2:]\n    a = policy(q)\n    t = a * 0.5\n"
              "    d.ctrl[:] = t\n    trace.append(t)\n")
    assert _range(computed) == (2, 5)
    assert _range(handed) == (2, 4)


def test_a_gated_call_whose_block_builds_its_input_keeps_its_block():
    # a decimation block that does the observation work itself: the range stays inside it
    code = ("while True:\n    tau = pd(target, d.qpos)\n    d.ctrl[:] = tau\n    if k % 10 == 0:\n"
            "        q = d.qpos[7:] * 2.0\n        a = policy(q)\n        target = a * 0.25\n    k += 1\n")
    assert _range(code) == (5, 7)


def test_a_gated_call_sent_inside_its_block_is_not_widened():
    code = ("while True:\n    x = prep(read_sensor())\n    if k % 4 == 0:\n        a = policy(x)\n"
            "        bus.send(a)\n    k += 1\n")
    assert _range(code) == (4, 4)


@pytest.mark.parametrize("code, sent", [
    ("env.step(a)", True), ("obs, r, done, info = env.step(a)", True), ("mujoco.mj_step(m, d)", True),
    ("pub.publish(msg)", True), ("robot.set_joint_command(q)", True), ("p.setJointMotorControlArray(b, j, t)", True),
    ("env.exec_actions(actions=a)", True), ("data.ctrl[:] = u", True), ("self.cmd.motor_cmd[i].q = u[i]", True),
    ("optimizer.step()", False), ("self.model.step(x)", False), ("self.last_action = a", False),
    ("obs[3:6] = g", False), ("self.hist[:, 0] = a", False), ("x = self.apply_action_scale(a)", False),
    ("env.set_camera(pos, look)", False), ("queue.append(a)", False), ("print(a)", False),
])
def test_what_sends_an_action_out(code, sent):
    assert sends(ast.parse(code).body[0]) is sent


@pytest.mark.parametrize("code, boundary", [
    ("obs, r, done, info = env.step(a)", True), ("obs = env.reset()", True), ("packet, _ = sock.recvfrom(64)", False),
    ("obs = env.get_obs()", False), ("q = d.qpos[7:]", False), ("obs = self.latest.copy()", False),
    ("h = self.model.reset()", False),
])
def test_which_reads_are_the_ranges_input_boundary(code, boundary):
    assert reads_world(ast.parse(code).body[0]) is boundary


def test_a_buffer_allocated_only_for_the_send_is_trimmed_and_one_read_in_the_range_is_kept():
    block = ast.parse("a = policy(x)\nt = a * 2\nu = np.zeros(8)\nu[ids] = t\nd.ctrl[:] = u\n").body
    assert packing_tail(block, [0, 1, 3], 0, block[4], defined_names, used_names) == [0, 1]
    reread = ast.parse("u = np.zeros(8)\na = policy(u)\nu[ids] = a\nd.ctrl[:] = u\n").body
    assert packing_tail(reread, [0, 1, 2], 1, reread[3], defined_names, used_names) == [0, 1, 2]
    assert not send_call(ast.parse("self.model.step(x)").body[0].value, discarded=True)


def test_a_loop_that_reads_its_next_observation_after_the_send_keeps_that_code():
    rotated = ("x = first_obs()\nfor _ in range(9):\n    a = policy(x)\n    cmd = a * 2.0\n"
               "    arm.set_joint_targets(cmd)\n    raw = arm.joint_state()\n    x = np.concatenate([raw, cmd])\n"
               "    trace.append(cmd)\n")
    assert _range(rotated) == (3, 7)
    # what follows the send only derives from the range's results: state for the next iteration, not kept
    carried = ("for _ in range(9):\n    a = policy(np.concatenate([src.latest(), last]))\n"
               "    arm.set_joint_targets(a)\n    last = np.clip(a, -1, 1)\n")
    assert _range(carried) == (2, 2)


def test_only_a_send_of_the_ranges_results_ends_it_not_a_write_reading_other_fields_of_self():
    code = ("class Runner:\n    def run(self):\n        while True:\n            q = self.sim.q()\n"
            "            self.last = self.policy(q)\n            target = self.last * 0.5\n"
            "            self.viewer.cam.lookat = self.sim.base()\n            self.hist.append(q)\n"
            "            self.sim.ctrl[:] = target\n")
    assert _range(code) == (4, 8)
