"""A container that grows on every call (a trajectory log the step appends to) is not exported as
state: the plan leaves it out with one note naming it when the outputs do not depend on it, and refuses
with one line naming it when they do; a fixed-size deque that rolls stays state (the slots it reads)."""
from __future__ import annotations

import collections
import sys
import textwrap

import pytest

from leapp_codemod.runner.intercept import Recorder, intercepted, resolve_entry
from leapp_codemod.runner.stateplan import plan_state

APP = textwrap.dedent('''
    import collections
    import torch

    READ_TRAIL = False

    class Tracker:
        def __init__(self):
            self.trail = []                                    # grows on every call
            self.window = collections.deque([torch.zeros(2)] * 3, maxlen=3)   # rolls, fixed size

        def step(self, x):
            self.trail.append(x.clone())
            self.window.append(x * 2.0)
            return torch.stack(list(self.window)).sum(0) + (len(self.trail) if READ_TRAIL else 0.0)
''')


@pytest.fixture
def app(tmp_path, monkeypatch):
    (tmp_path / "growapp.py").write_text(APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield __import__("growapp")
    sys.modules.pop("growapp", None)


def test_a_container_growing_every_call_is_left_out_with_a_note(app):
    import torch

    entry = resolve_entry("growapp:Tracker.step")
    recorder = Recorder(entry=entry, input_names=("x",), static_names=(), n_trace=3, n_check=2)
    tracker = app.Tracker()
    with intercepted(entry, recorder):
        for i in range(4):
            app.Tracker.step(tracker, torch.full((2,), float(i)))
    plan = plan_state({}, recorder)
    paths = [observe_path for _, observe_path in plan.entries]
    described = " ".join(str(p) for p in paths)
    assert "window" in described and "trail" not in described
    note = next(n for n in plan.notes if "trail" in n)
    assert "changes length on every call (1 then 4 over 4 calls)" in note
    assert isinstance(tracker.window, collections.deque)


def test_a_growing_container_the_outputs_depend_on_is_refused_in_one_line(app, monkeypatch):
    import torch

    from leapp_codemod.runner.errors import RunnerError

    monkeypatch.setattr(app, "READ_TRAIL", True)
    entry = resolve_entry("growapp:Tracker.step")
    recorder = Recorder(entry=entry, input_names=("x",), static_names=(), n_trace=3, n_check=2)
    tracker = app.Tracker()
    with intercepted(entry, recorder):
        for i in range(4):
            app.Tracker.step(tracker, torch.full((2,), float(i)))
    with pytest.raises(RunnerError) as err:
        plan_state({}, recorder)
    text = str(err.value)
    assert "\n" not in text and text.startswith("self.trail grows on every call (1 then 4 items over 4 calls)")
    assert "deque(maxlen=N)" in text
