"""A method entry that takes no inputs: `generate` refuses it and says which fields of the objects it holds it
reads its inputs from, and what to export instead."""
from __future__ import annotations

import textwrap

from click.testing import CliRunner

from leapp_codemod.cli import main

APP = {
    "servo/__init__.py": "",
    "servo/bus.py": """
        import numpy as np

        class Bus:
            def __init__(self):
                self.joints = np.zeros(4)
                self.target = np.zeros(4)
    """,
    "servo/loop.py": """
        import numpy as np
        import torch

        from servo.bus import Bus

        class Servo:
            def __init__(self, net):
                self.net = net
                self.bus = Bus()

            def tick(self):
                q = self.bus.joints
                goal = self.bus.target
                x = torch.as_tensor(np.concatenate([q, goal - q]), dtype=torch.float32)
                return self.net(x[None]).detach().numpy()[0]
    """,
}


def test_a_method_without_inputs_is_refused_naming_the_fields_it_reads(tmp_path, monkeypatch):
    for name, text in APP.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))
    result = CliRunner().invoke(main, ["generate", ".", "--entry", "servo.loop:Servo.tick"])
    assert result.exit_code == 2
    message = result.output.strip().splitlines()[-1]
    assert "Servo.tick takes no inputs to export" in message
    assert "(self.bus.joints, self.bus.target)" in message
    assert "--entry FILE:START-END" in message
    assert not (tmp_path / "leapp_integration.py").exists()
