"""Findings off the model's path are the host's (fixtures/scan_model_path, `scan/model_path.py`): a helper that
sends its own setpoints, a disarm gate; what feeds the model, what is computed from its result and gates on them
stay. A step in which no model call is found keeps every finding: nothing is decided."""
from __future__ import annotations

import pytest
from scanfixture import check_marked

from leapp_codemod.scan import scan_project


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_hosts_setpoints_and_gates_are_off_the_path(tmp_path, monkeypatch):
    found = check_marked("scan_model_path", tmp_path, monkeypatch, "drone_app", "pilot:Pilot.step")
    assert {(line, category) for _, line, category in found} == {
        (85, "tensor-branch"), (87, "inplace-state"),
        (88, "io-in-pipeline"),    # the send through the project's link wrapper
        (89, "io-in-pipeline"),    # a status-returning write of the action to a device is a send
        (93, "io-in-pipeline")}    # a log of the action stays reported


def test_without_a_model_call_nothing_is_decided(tmp_path, monkeypatch):
    (tmp_path / "ramp.py").write_text(
        "import numpy as np\n\n\n"
        "class Ramp:\n"
        "    def __init__(self, pub):\n"
        "        self.pub = pub\n"
        "        self.level = 0.0\n\n"
        "    def step(self, x):\n"
        "        self.pub.publish(float(np.max(x)))\n"
        "        return x * 2.0\n")
    monkeypatch.chdir(tmp_path)
    result = scan_project(["."], entry="ramp:Ramp.step")
    assert 10 in {f.line for f in result.findings}


def test_a_builtin_that_waits_for_a_person_stays_reported(tmp_path, monkeypatch):
    """`input(...)` reads no pipeline value, but the step stops on it every call: the export never does."""
    (tmp_path / "stepper.py").write_text(
        "import torch\n\n\n"
        "class Stepper:\n"
        "    def __init__(self, path):\n"
        "        self.net = torch.jit.load(path)\n\n"
        "    def step(self, obs):\n"
        "        action = self.net(obs)\n"
        "        input('apply? ')\n"
        "        print('ready')\n"
        "        return action\n")
    monkeypatch.chdir(tmp_path)
    result = scan_project(["."], entry="stepper:Stepper.step")
    lines = {f.line for f in result.findings}
    assert 10 in lines and 11 not in lines   # the fixed-text print is the host's


def test_a_returned_position_its_caller_discards_puts_nothing_else_on_the_path(tmp_path, monkeypatch):
    # `obs, _ = self.sense(...)` two calls below the step: the diagnostic `sense` returns second (a SciPy call on
    # the raw input) is off the path, the observation it returns first is on it
    found = check_marked("scan_model_path", tmp_path, monkeypatch, "rover_app", "rover:Rover.step")
    assert {(path, category) for path, _, category in found} == {("rover.py", "scalar-extraction")}
