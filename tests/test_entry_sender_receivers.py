"""A link object whose `step` hands the command to `self.controller_pub.run(...)`: a publisher named for what it
carries (`controller` is a model word, `pub` says it sends), not a model. The loop around the TorchScript policy is
the entry, and the link's step is no candidate (fixtures/entry_sender_receivers)."""
from __future__ import annotations

import ast

from test_entry_ranking import app, by_id, expected, ranked

from leapp_codemod.analysis.entry.loops import is_model_name, model_call


def test_the_step_that_only_publishes_is_no_model_candidate(tmp_path, monkeypatch):
    want = expected("entry_sender_receivers")
    candidates = ranked(app(tmp_path, "entry_sender_receivers"), monkeypatch)
    assert candidates[0]["entry"] == "drive.py:10-11"
    assert want["step"] not in by_id(candidates)


def test_a_sender_named_for_what_it_carries_is_no_model():
    assert is_model_name("controller") and is_model_name("policy_net")
    assert not is_model_name("controller_pub") and not is_model_name("policy_publisher")
    assert model_call(ast.parse("self.controller_pub.run(cmd)").body[0].value, set()) is None
    assert model_call(ast.parse("self.controller.run(obs)").body[0].value, set()) == "controller.run"
