"""A loop whose model computes a representation for another model (an embedding, features, a latent) and binds no
action is a perception or pre-compute stage: it ranks below the control loop (analysis/entry/representations.py).
Fixtures: a camera process publishing a scene latent over ZMQ next to a serial arm controller (project networks,
function candidates); a feature-caching script next to a gripper loop (TorchScript models, inline ranges)."""
from __future__ import annotations

import ast

import pytest
from test_entry_ranking import app, by_id, ranked

from leapp_codemod.analysis.entry.representations import (
    representation_at,
    representation_output,
)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("name, control, stage", [
    ("entry_representation_stage", "nets:ArmController.forward", "nets:SceneVAE.forward"),
    ("entry_representation_range", "run_policy.py:14-17", "cache_features.py:13-18"),
])
def test_the_control_loop_goes_before_the_representation_stage(name, control, stage, tmp_path, monkeypatch):
    candidates = ranked(app(tmp_path, name), monkeypatch)
    assert candidates[0]["entry"] == control
    found = by_id(candidates)
    assert found[stage]["score"] < found[control]["score"]
    assert any("a perception or pre-compute stage" in r for r in found[stage]["reasons"])
    assert not any("a perception or pre-compute stage" in r for r in found[control]["reasons"])


def test_a_range_that_also_binds_an_action_is_no_representation_stage():
    code = ("def f():\n"
            "    while True:\n"
            "        feats = encoder(obs)\n"
            "        action = head(feats)\n")
    fn = ast.parse(code).body[0]
    assert representation_output(fn, 3, 4, "encoder") is None
    assert representation_output(fn, 3, 3, "encoder") == "feats"
    assert representation_at(fn, 4) is None and representation_at(fn, 3) == "feats"


@pytest.mark.parametrize("bound, stage", [("optical_flow", True), ("detections", True), ("pen_boxes", True),
                                          ("flow_action", False), ("joint_pos", False)])
def test_perception_outputs_name_a_stage_before_the_policy(bound, stage):
    # what a detector or an optical-flow network computes is handed to a policy, it is no action
    fn = ast.parse(f"def f():\n    while True:\n        {bound} = net(frame)\n        shared[0] = {bound}\n").body[0]
    assert (representation_output(fn, 3, 4, "net") == bound) is stage
