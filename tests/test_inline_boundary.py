"""Where an inline range's boundary sits: a loop counter's computations run on the host, an input
object read through attributes gives one input per attribute, a container the range appends to and
reads is carried state, one it only appends to is not (snippets; no torch)."""
from __future__ import annotations

import ast
import textwrap

import pytest

from leapp_codemod.analysis.inline.boundary_plan import loop_counters, plan_boundary
from leapp_codemod.analysis.inline.range import read_range
from leapp_codemod.generate.driver import (
    DriverArgsError,
    parse_driver_args,
    parse_driver_env,
)

LOOP = '''\
def main(sim, policy, dt, period):
    hist = make_history()
    log = []
    tick = 0
    while tick < 100:
        tick += 1
        q = sim.joints.copy()
        phase = (tick * dt) % period / period
        wave = np.array([np.sin(phase), np.cos(phase)])
        frame = np.concatenate([q, sim.rates, wave])
        hist.append(frame)
        act = policy(np.concatenate(hist))
        log.append(float(act[0]))
        sim.ctrl[:] = act
'''


def _range(text: str, start: int, end: int):
    return read_range("drive.py", textwrap.dedent(text), start, end)[1]


def test_a_counter_feeding_a_phase_moves_to_the_host_and_its_array_is_the_input():
    rng = _range(LOOP, 7, 13)
    assert "tick" in rng.inputs and loop_counters(rng) == {"tick"}
    plan = plan_boundary(rng)
    assert [s.lineno for s in plan.host] == [8, 9]          # phase, wave: counter and constants only
    assert "tick" not in plan.rng.inputs and "wave" in plan.rng.inputs
    assert plan.counters == ("tick",) and "counter `tick`" in plan.notes[0] and "`wave`" in plan.notes[0]
    assert [s.lineno for s in plan.rng.statements] == [7, 10, 11, 12, 13]


def test_an_object_read_through_attributes_gives_one_input_per_attribute():
    plan = plan_boundary(_range(LOOP, 7, 13))
    assert plan.rng.inputs[:2] == ("sim_joints", "sim_rates")
    assert {(a.port, a.obj, a.attr) for a in plan.attr_inputs} == {("sim_joints", "sim", "joints"),
                                                                   ("sim_rates", "sim", "rates")}
    body = "\n".join(ast.unparse(s) for s in plan.rng.statements)
    assert "sim.joints" not in body and "sim_joints.copy()" in body
    assert ast.unparse(plan.port_value("sim_rates")) == "sim.rates"


def test_an_object_the_range_also_writes_into_stays_one_value():
    plan = plan_boundary(_range(LOOP, 7, 14))      # `sim.ctrl[:] = act`: the simulator is used, not only read
    assert not plan.attr_inputs and not any(n.startswith("sim_") for n in plan.rng.inputs)


def test_a_history_the_range_appends_to_and_reads_is_state_a_log_it_only_appends_to_is_not():
    rng = _range(LOOP, 7, 13)
    assert "hist" in rng.state and "hist" not in rng.constants
    assert "log" not in rng.state and "log" in rng.constants


def test_a_range_without_counter_or_object_inputs_is_unchanged():
    text = '''\
    def main(policy):
        for _ in range(3):
            obs = read()
            act = policy(obs * 2.0)
            send(act)
    '''
    rng = _range(text, 3, 4)
    plan = plan_boundary(rng)
    assert plan.rng is rng and not plan.host and not plan.notes


def test_driver_arguments_and_environment_are_parsed_once_with_shell_quoting():
    assert parse_driver_args('cfg/go2.yaml --name "two words"') == ("cfg/go2.yaml", "--name", "two words")
    assert parse_driver_args(None) == ()
    assert parse_driver_env(["MUJOCO_GL=egl", "A=1", "A=2"]) == (("MUJOCO_GL", "egl"), ("A", "2"))
    with pytest.raises(DriverArgsError, match="No closing quotation"):
        parse_driver_args("'open")
    with pytest.raises(DriverArgsError, match="NAME=VALUE"):
        parse_driver_env(["1BAD=x"])


def test_a_full_fixed_size_history_is_one_stacked_state_port():
    import collections

    import numpy as np

    from leapp_codemod.boundary import is_history, state_leaves

    frames = collections.deque([np.full(4, i, dtype=np.float32) for i in range(3)], maxlen=3)
    ports = state_leaves(frames, "hist")
    assert list(ports) == ["hist"] and ports["hist"].shape == (3, 4) and ports["hist"][2, 0] == 2.0
    assert not is_history(collections.deque([np.zeros(4)], maxlen=3))          # still filling up
    assert not is_history(collections.deque([np.zeros(4), np.zeros(5)], maxlen=2))   # ragged
    assert list(state_leaves(collections.deque([np.zeros(2)]), "buf")) == ["buf_0"]  # unbounded: per item


def test_a_phase_written_into_a_preallocated_observation_is_lifted_out_of_its_statement():
    """The counter's values join an array only inside `obs[8:10] = np.array([...])`, a statement that
    also writes the carried buffer: that expression is what the host computes, and its array is the input."""
    text = '''\
    def main(d, policy, dt):
        obs = np.zeros(10, dtype=np.float32)
        counter = 0
        while True:
            counter += 1
            q = d.qpos[7:]
            period = 0.8
            phase = counter * dt % period / period
            s, c = np.sin(2 * np.pi * phase), np.cos(2 * np.pi * phase)
            obs[:8] = q
            obs[8:10] = np.array([s, c])
            act = policy(obs)
            d.ctrl[:] = act
    '''
    plan = plan_boundary(_range(text, 6, 12))
    assert plan.rng.inputs == ("d_qpos", "host_l11")
    assert ast.unparse(plan.host[-1]) == "host_l11 = np.array([s, c])"
    kept = [ast.unparse(s) for s in plan.rng.statements]
    assert "obs[8:10] = host_l11" in kept and "period = 0.8" in kept
    assert not any("phase" in k for k in kept)
