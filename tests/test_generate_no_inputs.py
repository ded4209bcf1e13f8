"""A method entry that takes no arguments: the fields it reads from objects it holds become the module's HELD
inputs (leapp_codemod.held); when it reads them only through calls on those objects, `generate` refuses it
naming the calls and what to export instead."""
from __future__ import annotations

import textwrap

from click.testing import CliRunner

from leapp_codemod.cli import main

BUS = """
    import numpy as np

    class Bus:
        def __init__(self):
            self.joints = np.zeros(4)
            self.target = np.zeros(4)

        def read(self):
            return self.joints.copy()
"""
LOOP = """
    import numpy as np
    import torch

    from servo.bus import Bus

    class Servo:
        def __init__(self, net):
            self.net = net
            self.bus = Bus()

        def tick(self):
            {body}
            x = torch.as_tensor(np.concatenate([q, goal - q]), dtype=torch.float32)
            return self.net(x[None]).detach().numpy()[0]
"""


def _write(tmp_path, monkeypatch, files: dict[str, str]) -> None:
    """Write the app's files under tmp_path and work from there with a private cache."""
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def _generate(tmp_path, monkeypatch, body: str):
    files = {"servo/__init__.py": "", "servo/bus.py": BUS, "servo/loop.py": LOOP.replace("{body}", body)}
    _write(tmp_path, monkeypatch, files)
    return CliRunner().invoke(main, ["generate", ".", "--entry", "servo.loop:Servo.tick"])


def test_the_fields_a_method_without_arguments_reads_become_held_inputs(tmp_path, monkeypatch):
    result = _generate(tmp_path, monkeypatch, "q = self.bus.joints\n            goal = self.bus.target")
    assert result.exit_code == 0, result.output
    module = (tmp_path / "leapp_integration.py").read_text()
    assert '"bus_joints": "bus.joints",  # read at loop.py:13' in module
    assert '"bus_target": "bus.target",  # read at loop.py:14' in module
    assert "held_inputs.bind(entry, HELD, fed)()" in module
    assert "INPUTS = ()" in module


def test_a_method_reading_only_through_calls_is_refused_naming_the_calls(tmp_path, monkeypatch):
    result = _generate(tmp_path, monkeypatch, "q = self.bus.read()\n            goal = np.zeros(4)")
    assert result.exit_code == 2
    message = result.output.strip().splitlines()[-1]
    assert "Servo.tick takes no inputs to export" in message
    assert "calls on objects it holds (self.bus.read())" in message
    assert "--entry FILE:START-END" in message
    assert not (tmp_path / "leapp_integration.py").exists()


def test_a_closure_entry_is_refused_in_one_line_naming_the_function_that_makes_it(tmp_path, monkeypatch):
    """A function defined inside another one exists only once that one has run: nothing can import it to wrap
    it, so `generate` says so (never "takes no inputs") and points at an inline range around its call."""
    files = {"pilot/__init__.py": "", "pilot/make.py": """
        import torch

        def build_pilot(net, scale):
            def fly(obs):
                with torch.no_grad():
                    return net(torch.as_tensor(obs, dtype=torch.float32)) * scale
            return fly
    """}
    _write(tmp_path, monkeypatch, files)
    result = CliRunner().invoke(main, ["generate", ".", "--entry", "pilot.make:build_pilot.<locals>.fly"])
    assert result.exit_code == 2, result.output
    message = result.output.strip().splitlines()[-1]
    assert "pilot/make.py:5: build_pilot.<locals>.fly is a function made at run time inside `build_pilot`" in message
    assert "--entry FILE:START-END" in message
    assert "Traceback" not in result.output
    assert not (tmp_path / "leapp_integration.py").exists()
