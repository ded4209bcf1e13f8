"""A container that grows on every call (a trajectory log the step appends to) is not exported as
state: the plan leaves it out with one note naming it; a fixed-size deque that rolls stays state."""
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

    class Tracker:
        def __init__(self):
            self.trail = []                                    # grows on every call
            self.window = collections.deque([torch.zeros(2)] * 3, maxlen=3)   # rolls, fixed size

        def step(self, x):
            self.trail.append(x.clone())
            self.window.append(x * 2.0)
            return torch.stack(list(self.window)).sum(0) + len(self.trail)
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
