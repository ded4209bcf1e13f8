"""LCM706 (fixtures/scan_train_mode): project torch modules whose layers depend on the training flag (Dropout in a
`Sequential`, BatchNorm one project class down, a normaliser testing `self.training`), called by the pipeline and
never put in evaluation mode; a linear critic stays clean, and an `.eval()` call on the model (after loading, or
on the object that holds it) removes the finding."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_variant


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize(("app", "entry", "line"), [
    ("walker_eval", "evaluate.py:31-34", 32),
    ("camera_node", "steer_node:SteerNode.steer", 17),
    ("norm_server", "server:ActionHandler.handle", 15),
])
def test_models_left_in_training_mode_are_found(tmp_path, monkeypatch, app, entry, line):
    found = check_marked("scan_train_mode", tmp_path, monkeypatch, app, entry)
    assert line in {number for _, number, category in found if category == "inplace-state"}


@pytest.mark.parametrize(("app", "entry", "module", "old", "new"), [
    ("walker_eval", "evaluate.py:31-34", "evaluate.py", "    policy.load_state_dict(torch.load(path))\n",
     "    policy.load_state_dict(torch.load(path)); policy.eval()\n"),
    ("camera_node", "steer_node:SteerNode.steer", "steer_node.py", "        self.pub = rospy",
     "        self.encoder.train(False)\n        self.pub = rospy"),
    ("norm_server", "server:ActionHandler.handle", "server.py", "        self.agent = Agent(12, 4)\n",
     "        self.agent = Agent(12, 4).eval()\n"),
])
def test_an_eval_call_on_the_model_removes_the_finding(tmp_path, monkeypatch, app, entry, module, old, new):
    result = scan_variant("scan_train_mode", tmp_path, monkeypatch, app, entry, module, old, new)
    assert not [f for f in result.findings if f.code == "LCM706"]
