"""A registered callback whose inline range is its whole body up to the send: statements after the range that
only send the output (writes into a command frame's fields, under a lock) leave the callback first."""
from __future__ import annotations
import ast
import textwrap
from test_entry_ranking import app, by_id, expected, ranked
from leapp_codemod.analysis.entry.ordering import covers_body


def test_the_callback_ending_in_field_writes_is_offered_above_its_range(tmp_path, monkeypatch):
    want = expected("entry_callback_field_send")
    candidates = ranked(app(tmp_path, "entry_callback_field_send"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    callback = by_id(candidates)[want["entry"]]
    assert any(r.startswith(f"its body is the inline range {want['range']}") for r in callback["reasons"])
    assert by_id(candidates)[want["range"]]["score"] < callback["score"]


def test_writes_into_another_objects_fields_after_the_range_are_sends():
    fn = ast.parse(textwrap.dedent('''
        def tick(self):
            q = self.read()
            a = self.net(q)
            with self.lock:
                for i in range(3):
                    self.frame.motors[i].q = a[i]
        ''')).body[0]
    assert covers_body(fn, 3, 4)             # the `with` only writes the frame's fields: the send
    fn_kept = ast.parse(textwrap.dedent('''
        def tick(self):
            q = self.read()
            a = self.net(q)
            with self.lock:
                self.last = a
        ''')).body[0]
    assert not covers_body(fn_kept, 3, 4)    # `self.last = a` is kept for the next call: not a send


def test_a_step_the_loop_reaches_through_an_object_that_holds_its_owner_is_offered_first(tmp_path, monkeypatch):
    """`Scheduler(self)` types the scheduler's `owner` as the rover that builds it, so the spin the drive loop
    calls reaches the rover's tick and, through it, the autopilot's `wheel_speeds` (which runs the network through a
    private helper): that is the step, not the spin that runs a model only deep."""
    want = expected("entry_deep_dispatch")
    candidates = ranked(app(tmp_path, "entry_deep_dispatch"), monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["entry"], want["spin"]]
    reasons = by_id(candidates)[want["entry"]]["reasons"]
    assert reasons[0].startswith("reached from Scheduler.spin_once") and "through Rover.on_tick" in reasons[0]
