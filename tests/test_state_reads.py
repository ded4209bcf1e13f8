"""State decided by reads, not by change: a changed value is state only when a call reads its old
value and that read reaches the outputs. Probed on copies of the application's objects (no LEAPP)."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from leapp_codemod.runner.intercept import Recorder, intercepted, resolve_entry
from leapp_codemod.runner.state_observe import describe_path
from leapp_codemod.runner.stateplan import plan_state, start_state

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "run_state_reads"


def _record(entry_name: str, calls, n_trace: int = 3, n_check: int = 3) -> Recorder:
    """Run `calls()` with the entry intercepted; `calls` must make fewer than n_trace + n_check calls."""
    entry = resolve_entry(entry_name)
    recorder = Recorder(entry=entry, input_names=tuple(p for p in entry.signature.parameters if p != "self"),
                        static_names=(), n_trace=n_trace, n_check=n_check)
    with intercepted(entry, recorder):
        calls()
    assert recorder.error is None and len(recorder.checks) >= 2
    return recorder


@pytest.fixture
def velest(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE))
    import velest.estimator as module
    yield module
    for name in [n for n in sys.modules if n == "velest" or n.startswith("velest.")]:
        sys.modules.pop(name)


def test_only_the_values_a_call_reads_before_writing_them_are_state(velest):
    est = velest.VelocityEstimator()

    def drive():
        for t in range(5):
            est.update(np.array([0.1 * t, 0.0, 1.0], dtype=np.float32), np.float32(0.1 * t))

    recorder = _record("velest.estimator:VelocityEstimator.update", drive)
    # every one of these changed on every call ...
    changed = {describe_path(p) for p in recorder.changed}
    assert {"self.positions", "self.clock", "self.updates", "self._feature"} <= changed
    plan = plan_state({}, recorder)
    # ... but only the history slots read after the append and the clock feeding the phase are state
    assert {name: describe_path(path) for name, path in plan.entries} == {
        "clock": "self.clock", "positions_1": "self.positions[1]", "positions_2": "self.positions[2]"}
    notes = "\n".join(plan.notes)
    for left_out in ("self.positions[0]", "self.updates", "self._feature"):
        assert f"{left_out}: its old value never reaches the outputs" in notes
    assert plan.probed_calls == [c.index for c in (recorder.checks[0], recorder.checks[-1])]


def test_a_float_counter_read_by_numpy_code_is_carried_as_a_numpy_array(velest):
    est = velest.VelocityEstimator()

    def drive():
        for t in range(5):
            est.update(np.array([0.1 * t, 0.0, 1.0], dtype=np.float32), np.float32(0.2))

    recorder = _record("velest.estimator:VelocityEstimator.update", drive)
    plan = plan_state({}, recorder)
    assert plan.kinds == {"clock": "numpy"}
    from leapp_codemod.runner.stateplan import fresh_roots

    roots, _ = fresh_roots(recorder)
    refs, _ = start_state(recorder, plan, roots)
    clock = next(r for r in refs if r.name == "clock").get()
    assert isinstance(clock, np.ndarray) and clock.shape == (1,) and clock.dtype == np.float64
    # the carried kind gives the application's own outputs (the port is what validation feeds back)
    ports = plan.ports(recorder.checks[0].state_before)
    assert isinstance(ports["clock"], np.ndarray) and ports["clock"].shape == (1,)


TORCH_APP = textwrap.dedent('''
    import torch

    class Gait:
        def __init__(self):
            self.tick = 0                       # a Python int read by torch code
            self.episode_start = torch.ones(1)  # set by the host at an episode start, reset by every call
            self.h = torch.zeros(2)

        def act(self, x):
            self.h = self.h * (1.0 - self.episode_start) + x
            self.episode_start = torch.zeros(1)
            self.tick += 1
            return self.h + torch.sin(torch.as_tensor(self.tick * 0.1))
''')


@pytest.fixture
def gait(tmp_path, monkeypatch):
    (tmp_path / "gaitmod.py").write_text(TORCH_APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield __import__("gaitmod")
    sys.modules.pop("gaitmod", None)


def test_a_flag_reset_to_one_constant_by_every_call_is_host_driven_and_an_int_read_by_torch_stays_torch(gait):
    import torch

    agent = gait.Gait()

    def drive():
        for t in range(5):
            if t == 3:
                agent.episode_start = torch.ones(1)    # the host starts an episode
            agent.act(torch.full((2,), float(t)))

    recorder = _record("gaitmod:Gait.act", drive)
    assert any(describe_path(p) == "self.episode_start" for p in recorder.changed)
    plan = plan_state({}, recorder)
    assert {name for name, _ in plan.entries} == {"h", "tick"}
    assert plan.kinds == {"tick": "torch"}
    note = next(n for n in plan.notes if n.startswith("self.episode_start"))
    assert "reset to tensor([0.])" in note and "host sets before a call" in note


IO_APP = textwrap.dedent('''
    import numpy as np

    class Trimmed:
        def __init__(self, path):
            self.path = path
            self.offsets = np.zeros(3)

        def act(self, x):
            self.offsets = np.loadtxt(self.path)      # read from the file on every call
            return x + self.offsets
''')


def test_a_value_read_from_a_file_inside_the_step_is_never_self_fed_state(tmp_path, monkeypatch):
    (tmp_path / "trimmod.py").write_text(IO_APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    trim = tmp_path / "offsets.txt"
    try:
        module = __import__("trimmod")
        agent = module.Trimmed(str(trim))

        def drive():
            for t in range(5):
                np.savetxt(trim, np.full(3, 0.01 * t))   # the file changes between calls
                agent.act(np.full(3, float(t)))

        recorder = _record("trimmod:Trimmed.act", drive)
        assert any(describe_path(p) == "self.offsets" for p in recorder.changed)
        plan = plan_state({}, recorder)
        assert plan.entries == []
        assert any(n.startswith("self.offsets: its old value never reaches the outputs") for n in plan.notes)
    finally:
        sys.modules.pop("trimmod", None)


def test_a_numpy_scalar_argument_is_a_zero_d_input_not_a_constant():
    from leapp_codemod import boundary
    from leapp_codemod.runner import values

    assert values.constant_key(np.float32(0.1)) == values.constant_key(np.float32(0.2))
    assert not values.has_constants({"yaw": np.float32(0.1)})
    assert list(boundary.flatten({"pos": np.zeros(3), "yaw": np.float32(0.1)})) == ["pos", "yaw"]
    assert isinstance(boundary.as_state(np.float64(2.0)), np.ndarray)


BUFFER_APP = textwrap.dedent('''
    import torch

    class Filler:
        def __init__(self):
            self.obs = torch.zeros(4)      # preallocated, filled in place on every call
            self.scratch = torch.zeros(4)  # rebuilt on every call

        def act(self, x):
            self.obs[:2] = x
            self.obs[2:] = 2.0 * x
            self.scratch = self.obs * 3.0
            return self.scratch.sum()
''')


def test_a_buffer_filled_in_place_stays_state_although_every_slot_is_written_first(tmp_path, monkeypatch):
    import torch

    (tmp_path / "fillmod.py").write_text(BUFFER_APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        module = __import__("fillmod")
        agent = module.Filler()

        def drive():
            for t in range(5):
                agent.act(torch.full((2,), float(t)))

        recorder = _record("fillmod:Filler.act", drive)
        plan = plan_state({}, recorder)
        assert [name for name, _ in plan.entries] == ["obs"]
        assert any(n.startswith("self.scratch: its old value never reaches the outputs") for n in plan.notes)
    finally:
        sys.modules.pop("fillmod", None)
