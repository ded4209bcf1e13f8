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


def test_a_callback_around_an_adapter_that_only_moves_values_is_the_step(tmp_path, monkeypatch):
    """The timer callback builds the features in one line, calls a module helper whose only work is the network
    call (the rest moves values between numpy, a device and the network's dict), then clips, keeps and publishes:
    the callback is offered first, the adapter as the model wrapper it calls."""
    want = expected("entry_adapter_helper")
    candidates = ranked(app(tmp_path, "entry_adapter_helper"), monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["entry"], want["adapter"]]
    assert any("a model wrapper Helm.steer calls" in r for r in by_id(candidates)[want["adapter"]]["reasons"])


def test_lines_that_only_move_values_are_no_work_of_a_wrapper():
    from leapp_codemod.analysis.entry.composers import _plumbing
    plumbing = ["torch.from_numpy(obs).to('cuda:0').type(torch.float32)", "{'obs': t, 'rnn_states': None}",
                "out['mus']", "a.cpu().numpy()", "x.view(-1, 3)"]
    work = ["obs / self.scale", "np.clip(a, -1, 1)", "torch.cat([a, b])", "out[i]", "self.net(obs)"]
    assert all(_plumbing(ast.parse(e).body[0].value) for e in plumbing)
    assert not any(_plumbing(ast.parse(e).body[0].value) for e in work)


def test_a_private_callback_whose_range_reads_what_it_built_before_is_offered_above_the_range(tmp_path, monkeypatch):
    """`_timer_fired` (registered with a timer) builds the features, then runs the network only under a test on them:
    the range around the network reads `features`, built before it, so the callback itself is the step."""
    want = expected("entry_guarded_callback")
    candidates = ranked(app(tmp_path, "entry_guarded_callback"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"] and candidates[1]["kind"] == "inline"
    assert any("reads `features`, which the callback builds before it" in r for r in candidates[0]["reasons"])


def test_an_empty_message_made_after_the_range_for_the_send_leaves_the_body_covered():
    fn = ast.parse(textwrap.dedent('''
        def on_scan(self, msg):
            x = np.asarray(msg.ranges)
            a = self.net(x)
            out = DriveStamped()
            out.drive.speed = a[1]
            self.pub.publish(out)
        ''')).body[0]
    assert covers_body(fn, 3, 4)             # the message made empty, its fields written, sent: the send
    kept = ast.parse(textwrap.dedent('''
        def on_scan(self, msg):
            x = np.asarray(msg.ranges)
            a = self.net(x)
            out = make_drive(a)
            self.pub.publish(out)
        ''')).body[0]
    assert not covers_body(kept, 3, 4)       # built from the result: work after the range
