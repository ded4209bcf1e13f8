"""A driver loop's call on an object a project factory builds runs what the factory returns: when none of those
classes runs a model, the loop body is no inline policy step, whatever the receiver is named; one network among
them keeps the range. Fixture `entry_factory_heuristics`: a rover with a classic steering factory and a learned
policy from a package outside the tree."""
from __future__ import annotations

from test_entry_ranking import app, expected, private_cache, ranked  # noqa: F401  (fixture)

from leapp_codemod.analysis.entry.factory_receivers import returned_classes
from leapp_codemod.scan import load_project

NETWORK_STEERER = '''

import torch
from torch import nn


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1, 1)

    def forward(self, x):
        return self.fc(x)


class NetSteer:
    def __init__(self):
        self.net = TinyNet()

    def predict(self, heading_error):
        return self.net(torch.tensor([[heading_error]]))
'''


def _inline_files(candidates):
    return [c["path"] for c in candidates if c["kind"] == "inline"]


def test_a_loop_on_a_factory_built_object_that_runs_no_model_is_no_policy_step(tmp_path, monkeypatch):
    want = expected("entry_factory_heuristics")
    candidates = ranked(app(tmp_path, "entry_factory_heuristics"), monkeypatch)
    assert _inline_files(candidates) == [want["learned"]]
    assert candidates[0]["path"] == want["learned"]


def test_a_network_among_the_factory_products_keeps_the_range(tmp_path, monkeypatch):
    want = expected("entry_factory_heuristics")
    root = app(tmp_path, "entry_factory_heuristics")
    classic = root / "rover" / "steering" / "classic.py"
    text = classic.read_text(encoding="utf-8") + NETWORK_STEERER
    classic.write_text(text.replace('    return None\n', '    if kind == "net":\n        return NetSteer()\n'
                                                       '    return None\n', 1), encoding="utf-8")
    assert sorted(_inline_files(ranked(root, monkeypatch))) == sorted([want["learned"], want["classic"]])


def test_returned_classes_names_every_product_or_nothing(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_factory_heuristics")
    monkeypatch.chdir(root)
    project = load_project(["."]).project
    factory = project.lookup("rover.steering.classic.make_steerer")
    assert [cls.name for cls in returned_classes(factory, project)] == ["Bang", "Pid"]
    classic = root / "rover" / "steering" / "classic.py"
    classic.write_text(classic.read_text(encoding="utf-8").replace("    return None\n", "    return kind\n"),
                       encoding="utf-8")
    project = load_project(["."]).project
    assert returned_classes(project.lookup("rover.steering.classic.make_steerer"), project) is None
