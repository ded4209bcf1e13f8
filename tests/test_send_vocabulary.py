"""Calls that hand the action to a controller by scheduling it (`robot.schedule_waypoint(pose, t)`, a trajectory
queued on an arm): sends, so a loop that makes them is a deployment, not a replay of recorded data."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.entry.bounds import send_call
from leapp_codemod.analysis.entry.unsent import sends_nothing


def _call(text: str) -> ast.Call:
    return ast.parse(text).body[0].value


def test_scheduling_a_waypoint_or_queueing_a_trajectory_sends():
    assert send_call(_call("robot_client.schedule_waypoint(target_pose, t)"), discarded=True)
    assert send_call(_call("arm.queue_trajectory(traj)"), discarded=True)
    assert not send_call(_call("planner.schedule_replan(t)"), discarded=True)   # names no action
    assert not send_call(_call("log.schedule_flush()"), discarded=True)


def test_a_loop_that_schedules_its_actions_sends_them():
    loop = ast.parse("while True:\n    a = policy(obs)\n    for k in range(4):\n"
                     "        hand.schedule_waypoint(a[k], times[k])\n").body[0]
    assert not sends_nothing(loop)
    kept = ast.parse("while True:\n    a = policy(obs)\n    predicted.append(a)\n").body[0]
    assert sends_nothing(kept)
