"""Control loops whose action never leaves the loop: a replay of recorded data, not a deployment.

A script that feeds a policy observations read from a recorded episode (`qpos = joints[t]`) and keeps what it
predicts (`predicted.append(action)`, to compare with the recorded actions) has the same inline range as the
script that runs the policy on the robot, often a near-copy of it. What tells them apart is what the loop does
with the action: the deployment sends it out (an environment or robot step, a publish, a write into a command
message or the simulator's control array, `bounds.sends`); the replay sends nothing. Between candidates tied on
score, the range whose loop sends its action goes first (`ties.break_ties`); nothing else moves.

    while t < T:                       # replay: nothing sent, ranks after the twin below on a tie
        a = policy(obs_log[t])
        predicted.append(a)

    while True:                        # deployment
        a = policy(robot.observe())
        robot.step(a)
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.entry.bounds import sends
from leapp_codemod.analysis.entry.loops import steps_or_resets

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def sends_nothing(loop: ast.For | ast.AsyncFor | ast.While) -> bool:
    """Does no statement of the loop's body (nested blocks included) send an action out or step or reset an
    environment?"""
    return not any(sends(stmt) or steps_or_resets(stmt) for stmt in loop.body)


def unsent_ranges(inline) -> set[str]:
    """Ids (`path:start-end`) of the inline ranges (`(fn, pipeline, _)` triples) whose loop sends nothing out.
    A range cut from a callback's body (no loop of its own) is never one: the framework sends for it."""
    out = set()
    for fn, pipeline, _ in inline:
        loop = next((n for n in fn.nodes if isinstance(n, _LOOPS) and n.lineno == pipeline.loop_line), None)
        if loop is not None and sends_nothing(loop):
            out.add(f"{fn.path}:{pipeline.start}-{pipeline.end}")
    return out
