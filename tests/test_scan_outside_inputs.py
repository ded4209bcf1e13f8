"""Values something else fills between the step's calls (a subscriber, a timer's sibling callback, a keyboard
or viewer key handler, a signal handler, a reader thread, an asyncio task): the step's read is LCM903, with the
write as its related location (fixtures/scan_outside_inputs, `analysis/model/filled_outside.py`)."""
from __future__ import annotations

import ast

import pytest
from scanfixture import check_marked, scan_copy

from leapp_codemod.analysis.model.filled_outside import handed_functions


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize(("app", "entry"), [
    ("joy_timer_node", "joy_drive:JoyDrive.tick"),
    ("signal_height_script", "hover:act"),
    ("socket_thread_pusher", "pusher:Pusher.act"),
    ("viewer_key_script", "sim_walk:policy_step"),
    ("async_ws_bridge", "bridge:GripBridge.act"),
    ("gamepad_object_node", "pad_walker:PadWalker.control"),
    ("closure_key_script", "run_arm.py:26-28"),
    ("operator_console_winch", "winch:WinchConsole.step"),
    ("timer_range_kite", "kite.py:20-24"),
    ("timer_range_helper_sweeper", "sweeper.py:26-29"),
    ("gyro_helper_node", "gimbal:Gimbal.stabilise"),
])
def test_reads_of_values_filled_outside_the_step_are_found(tmp_path, monkeypatch, app, entry):
    hits = check_marked("scan_outside_inputs", tmp_path, monkeypatch, app, entry)
    assert hits


def _outside(tmp_path, monkeypatch, app, entry):
    result = scan_copy("scan_outside_inputs", tmp_path, app, entry, monkeypatch)
    return [f for f in result.findings if f.code == "LCM903"]


def test_the_finding_names_the_write_as_related_location(tmp_path, monkeypatch):
    found = {f.line: f for f in _outside(tmp_path, monkeypatch, "joy_timer_node", "joy_drive:JoyDrive.tick")}
    assert [(r[0].rpartition("/")[2], r[1]) for r in found[34].related] == [("joy_drive.py", 23)]   # joy_cb
    assert [r[1] for r in found[35].related] == [26]   # the first element write of imu_cb
    assert "joy_cb" in found[34].message and "(" in found[34].fix


def test_a_write_the_step_makes_itself_is_state_not_an_outside_input(tmp_path, monkeypatch):
    """The timer callback is the entry: what it writes would be state; the constant `armed` flag and the
    `axes is None` gate are no data."""
    found = _outside(tmp_path, monkeypatch, "joy_timer_node", "joy_drive:JoyDrive.tick")
    assert {f.line for f in found} == {34, 35}


def test_a_counter_the_thread_advances_is_no_input_when_the_step_does_not_read_it(tmp_path, monkeypatch):
    found = _outside(tmp_path, monkeypatch, "socket_thread_pusher", "pusher:Pusher.act")
    assert [f.line for f in found] == [26] and "_listen" in found[0].message


def test_the_driver_calling_the_entry_is_not_counted_as_outside(tmp_path, monkeypatch):
    """With the thread's body as the entry, its own writes are pipeline code: no finding."""
    assert _outside(tmp_path, monkeypatch, "socket_thread_pusher", "pusher:Pusher._listen") == []


def _handed(source: str) -> list[str]:
    call = ast.parse(source).body[0].value
    return [ast.unparse(h) for h in handed_functions(call)]


@pytest.mark.parametrize(("source", "expected"), [
    ("threading.Thread(target=self.poll, daemon=True)", ["self.poll", "True"]),
    ("keyboard.Listener(on_press=on_key)", ["on_key"]),
    ("mujoco.viewer.launch_passive(m, d, key_callback=on_key)", ["on_key"]),
    ("signal.signal(signal.SIGINT, stop)", ["signal.SIGINT", "stop"]),
    ("asyncio.create_task(self._pump())", ["self._pump"]),
    ("node.create_subscription(Joy, 'joy', lambda m: self.on_joy(m), 10)", ["Joy", "'joy'", "self.on_joy", "10"]),
    ("rospy.Timer(rospy.Duration(0.1), functools.partial(tick, state))", ["rospy.Duration(0.1)", "tick"]),
    ("tk.Scale(root, from_=0, to=1, command=self.on_slide)", ["self.on_slide"]),
    ("np.clip(x, 0, 1)", []),
    ("model.register_forward_hook(self.probe)", []),
])
def test_registration_shapes(source, expected):
    assert _handed(source) == expected


def test_generate_serves_an_attribute_a_thread_fills_as_a_held_input(tmp_path, monkeypatch):
    """`generate` declares what the step reads from its own instance that a reader thread fills (`self.goal`,
    one attribute deep, read in the entry) in HELD, so the export takes it as an input, not a constant."""
    from click.testing import CliRunner

    from leapp_codemod.cli import main

    app = tmp_path / "app"
    __import__("shutil").copytree(__import__("scanfixture").FIXTURES / "scan_outside_inputs" / "socket_thread_pusher",
                                  app)
    monkeypatch.chdir(app)
    result = CliRunner().invoke(main, ["generate", ".", "--entry", "pusher:Pusher.act"])
    assert result.exit_code == 0, result.output
    module = (app / "leapp_integration.py").read_text()
    assert '"goal": "goal",  # read at pusher.py:26' in module
    assert '"packets"' not in module      # a counter the thread keeps, which the step does not read


def test_filled_outside_keeps_only_the_entry_instance_attributes():
    from leapp_codemod.generate.held_inputs import filled_outside
    from leapp_codemod.model import Finding

    def finding(code, message, function, line=3):
        return Finding(path="m.py", line=line, column=1, end_line=line, end_column=2, code=code,
                       category="io-in-pipeline", severity="warning", message=message, fix="", function=function)

    findings = [finding("LCM903", "`self.cmd` is filled outside the step: ...", "m:Node._observe", 7),
                finding("LCM903", "`SPEED` is filled outside the step: ...", "m:Node.step"),
                finding("LCM903", "`self.q` is filled outside the step: ...", "m:Other.step"),
                finding("LCM901", "`self.port.read()` performs I/O ...", "m:Node.step")]
    assert filled_outside(findings, "m:Node.step") == [("cmd", 7)]
