"""A value the step updates inside a container whose length changes between the observed calls (per-sensor
deques(maxlen=4) of floats that fill up over the first calls) has no fixed slot: the state plan stops with
one line naming the container, where it is made and its lengths, never reading a slot blindly; a slot
missing when the starting state is set is refused in one line too, never an IndexError."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from leapp_codemod.runner import state_holders
from leapp_codemod.runner.errors import EnoughCalls, RunnerError
from leapp_codemod.runner.intercept import Recorder, intercepted, resolve_entry
from leapp_codemod.runner.stateplan import (
    StatePlan,
    fresh_roots,
    plan_state,
    start_state,
)

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "run_sensor_window"


@pytest.fixture
def smoother(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE))
    monkeypatch.chdir(FIXTURE)
    import sensorwin.smoother as module
    yield module
    for name in ("sensorwin.smoother", "sensorwin"):
        sys.modules.pop(name, None)


def _record(module, calls: int = 8) -> Recorder:
    entry = resolve_entry("sensorwin.smoother:SensorSmoother.command")
    recorder = Recorder(entry=entry, input_names=("readings",), static_names=(), n_trace=5, n_check=3)
    app = module.SensorSmoother(["left", "right", "yaw"])
    _drive(module, entry, recorder, app, calls)
    return recorder


def _drive(module, entry, recorder, app, calls: int) -> None:
    with intercepted(entry, recorder):
        try:
            for k in range(calls + 1):
                module.SensorSmoother.command(app, np.full(3, 0.5 * k, dtype=np.float32))
        except EnoughCalls:
            pass
    assert len(recorder.traced) + len(recorder.checks) == calls


def test_values_inside_windows_that_fill_up_are_refused_in_one_line_naming_the_window(smoother):
    recorder = _record(smoother)
    assert any(len(p) > 3 and p[1] == ("attr", "windows") for p in recorder.changed)   # the floats did change
    with pytest.raises(RunnerError) as err:
        plan_state({}, recorder)
    text = str(err.value)
    assert err.value.stage == "state" and "\n" not in text
    assert text.startswith("state: self.windows['left'] (sensorwin/smoother.py:13, a deque(maxlen=4)) changes length "
                           "between the observed calls (0, 1, 2, 3, 4, 4, 4, 4, 4 items before the first observed "
                           "call and after each of 8)")
    assert "self.windows['left'][0]" in text and "fill it to its 4 slots" in text


def test_a_window_already_full_before_the_observed_calls_is_not_refused(smoother):
    entry = resolve_entry("sensorwin.smoother:SensorSmoother.command")
    app = smoother.SensorSmoother(["left", "right", "yaw"])
    for k in range(5):                                     # filled before the recorder sees a call
        smoother.SensorSmoother.command(app, np.full(3, -1.0 * k, dtype=np.float32))
    recorder = Recorder(entry=entry, input_names=("readings",), static_names=(), n_trace=5, n_check=3)
    _drive(smoother, entry, recorder, app, 8)
    window = ("self", ("attr", "windows"), ("key", "yaw"))
    assert [s[window] for s in recorder.sizes] == [4] * 9
    assert any(p[:3] == window for p in recorder.changed)          # its slots shift on every call
    assert state_holders.holders(recorder.changed, recorder.sizes) == {}   # but each window keeps 4 slots


def test_a_state_slot_missing_when_the_plan_is_applied_is_refused_not_an_index_error(smoother):
    recorder = _record(smoother)
    slot = ("self", ("attr", "windows"), ("key", "yaw"), ("key", 3))
    plan = StatePlan(entries=[("windows_yaw_3", slot)])
    roots, _ = fresh_roots(recorder)          # the copy from before the first call: its windows are empty
    with pytest.raises(RunnerError) as err:
        start_state(recorder, plan, roots)
    text = str(err.value)
    assert err.value.stage == "state" and "\n" not in text and "IndexError" not in text
    assert text.startswith("state: self.windows['yaw'][3] (state 'windows_yaw_3') is not there when the starting "
                           "state is set: self.windows['yaw'] (sensorwin/smoother.py:13) holds 1 items")


def test_a_state_refusal_is_explained_by_the_findings_on_the_container_it_names():
    from types import SimpleNamespace

    from leapp_codemod.runner.verdict import holder_findings

    append = "buf/ring.py:17 inplace-state: `self.slots.append([x, 0])` mutates persistent state `self.slots` in place"
    other = "buf/ring.py:30 inplace-state: `self.slots_seen += 1` mutates persistent state `self.slots_seen` in place"
    draw = "buf/ring.py:9 random-in-pipeline: `torch.randn(3)` draws random numbers inside the pipeline"
    info = SimpleNamespace(unresolved=(append, other), left_out=(), host_runtime=(draw,))
    msg = "state: self.ring.slots (buf/ring.py:11, a deque) changes length between the observed calls (0, 1 items"
    assert holder_findings(info, msg) == [append]
    assert holder_findings(info, "state: self.gains['kp'] (buf/ring.py:5, a deque) changes length") == []
    assert holder_findings(info, "self.slots grows on every call") == []


def test_a_container_the_first_call_fills_once_is_no_varying_holder():
    cache = ("step", ("attr", "logger"), ("attr", "_cache"))
    value = (*cache, ("item", 20))
    filled_once = [{cache: 0}, {cache: 1}, {cache: 1}, {cache: 1}]
    growing = [{cache: 0}, {cache: 1}, {cache: 2}, {cache: 2}]
    assert state_holders.varying_holder(value, filled_once) is None
    assert state_holders.varying_holder(value, growing) == cache
