"""A container whose length changes between calls without growing on every call (a queue refilled
with N items when empty and popped once per call) is not fixed-size state: the plan refuses it in one
line naming it when the outputs depend on it, suggesting a fixed-size buffer with an index or the chunk
boundary on the host; a history that rolls at one length is still state."""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

from leapp_codemod.runner.errors import RunnerError
from leapp_codemod.runner.intercept import Recorder, intercepted, resolve_entry
from leapp_codemod.runner.stateplan import length_changes, plan_state
from tests.test_run import generate, project, run_json, tree_hash

APP = textwrap.dedent('''
    import collections
    import torch

    class ChunkPlayer:
        """Plays action chunks: three actions made at once, one handed out per call."""
        def __init__(self, use_queue=True):
            self.queue = collections.deque()
            self.frames = collections.deque([torch.zeros(2)] * 3, maxlen=3)   # rolls at one length
            self.use_queue = use_queue

        def act(self, x):
            self.frames.append(x * 1.0)
            if not self.queue:
                self.queue.extend(x * (k + 1.0) for k in range(3))
            action = self.queue.popleft()
            return (action if self.use_queue else 0.0) + torch.stack(list(self.frames)).mean(0)
''')


@pytest.fixture
def app(tmp_path, monkeypatch):
    (tmp_path / "chunkapp.py").write_text(APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield __import__("chunkapp")
    sys.modules.pop("chunkapp", None)


def _record(app, use_queue: bool) -> Recorder:
    import torch

    entry = resolve_entry("chunkapp:ChunkPlayer.act")
    recorder = Recorder(entry=entry, input_names=("x",), static_names=(), n_trace=4, n_check=3)
    player = app.ChunkPlayer(use_queue)
    with intercepted(entry, recorder):
        for i in range(6):
            app.ChunkPlayer.act(player, torch.full((2,), float(i)))
    return recorder


def test_lengths_that_change_between_calls_and_lengths_that_settle():
    assert length_changes([2, 1, 0, 2, 1, 0]) and length_changes([1, 2, 3, 4]) and length_changes([3, 3, 2])
    assert not length_changes([1, 2, 3, 3, 3]) and not length_changes([3, 3, 3]) and not length_changes([4])


def test_a_queue_refilled_and_popped_the_outputs_read_is_refused_in_one_line(app):
    recorder = _record(app, use_queue=True)
    with pytest.raises(RunnerError) as err:
        plan_state({}, recorder)
    text = str(err.value)
    assert "\n" not in text and text.startswith("self.queue changes length between calls (2, 1, ")
    assert "fixed-size buffer with an index" in text and "on the host" in text


def test_a_queue_the_outputs_do_not_read_is_left_out_and_the_rolling_history_stays_state(app):
    plan = plan_state({}, _record(app, use_queue=False))
    described = " ".join(str(p) for _, p in plan.entries)
    assert "frames" in described and "queue" not in described
    assert any(n.startswith("self.queue (deque) changes length between calls") for n in plan.notes)


@pytest.mark.e2e
def test_a_list_used_as_a_fifo_of_waypoints_is_refused_naming_it(tmp_path):
    work = project(tmp_path, "run_waypoints")
    generate(work, "routeapp", "routeapp.follow:WaypointFollower.steer")
    before = tree_hash(work / "routeapp")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert proc.returncode == 1 and report["status"] == "failed", json.dumps(report)[:400]
    assert report["error"].startswith("self.waypoints changes length between calls (")
    assert "fixed-size buffer with an index" in report["error"] and "Reentering" not in report["error"]
    assert tree_hash(work / "routeapp") == before
