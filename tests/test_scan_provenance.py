"""A step without data parameters (a ROS 1 timer, a `step(self)` fed by a reader thread, a poll loop's worker)
reads attributes that other code of the class fills: only those some write fills from data are pipeline data
(fixtures/scan_provenance)."""
from __future__ import annotations

import ast

import pytest
from scanfixture import check_marked

from leapp_codemod.analysis.model.class_state import callback_inputs, setup_methods
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_timer_node_reads_settings_clocks_and_constants_its_handlers_store_as_settings(tmp_path, monkeypatch):
    hits = check_marked("scan_provenance", tmp_path, monkeypatch, "timer_node_app", "balancer_node:Balancer.control")
    assert ("balancer_node.py", 66, "tensor-branch") in hits   # the joints a helper stores from the message
    assert ("balancer_node.py", 64, "tensor-branch") in hits   # a trim the message's value decides to advance


def test_a_reader_thread_makes_only_what_it_parses_off_the_port_data(tmp_path, monkeypatch):
    hits = check_marked("scan_provenance", tmp_path, monkeypatch, "serial_arm_app", "arm_link:ArmLink.step")
    assert ("arm_link.py", 57, "tensor-branch") in hits


def test_a_poll_loop_reads_a_device_through_a_project_wrapper_but_not_a_gain_table(tmp_path, monkeypatch):
    hits = check_marked("scan_provenance", tmp_path, monkeypatch, "poll_hopper_app", "hopper:Hopper.step")
    assert ("hopper.py", 55, "scalar-extraction") in hits


def _class(source: str) -> ClassInfo:
    tree = ast.parse(source)
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    cls = ClassInfo(f"m:{node.name}", "m", node.name, node, "m.py", node.bases)
    for fn in (n for n in node.body if isinstance(n, ast.FunctionDef)):
        cls.methods[fn.name] = FunctionInfo(f"m:{node.name}.{fn.name}", "m", f"{node.name}.{fn.name}", fn,
                                            node.name, "m.py")
    return cls


def test_callback_writes_count_by_what_they_are_built_from():
    cls = _class(
        "class Node:\n"
        "    def on_state(self, msg):\n"
        "        self.q = msg.q\n"                   # the message: data
        "        self.seen += 1\n"                   # a counter: no data
        "        self.stamp = time.monotonic()\n"    # the host's time
        "        self.copy = self.q * 2\n"           # another data attribute
        "        self.mode = 'run'\n"                # a constant
        "        if msg.up:\n"
        "            self.speed += 0.1\n"            # the message picks it
        "        self._keep(msg.v, 3)\n"
        "    def _keep(self, v, n):\n"
        "        self.v = v\n"                       # a helper's parameter the message fills
        "        self.n = n\n")                      # ... and one only a constant fills
    assert callback_inputs(cls) == {"q", "copy", "speed", "v"}


def test_a_helper_only_the_constructor_calls_is_setup_and_one_a_handler_calls_is_not():
    cls = _class(
        "class Arm:\n"
        "    def __init__(self):\n"
        "        self._load()\n"
        "        self._reset()\n"
        "    def _load(self):\n"
        "        self._read_table()\n"
        "    def _read_table(self):\n"
        "        pass\n"
        "    def _reset(self):\n"
        "        pass\n"
        "    def on_stop(self, msg):\n"
        "        self._reset()\n")
    assert setup_methods(cls) == {"_load", "_read_table"}
    assert setup_methods(cls, {"_read_table"}) == {"_load"}   # `loader._read_table()` elsewhere runs it again

