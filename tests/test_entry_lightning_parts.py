"""A Lightning module is an nn.Module (installed or not): its parts rank below the network that builds them, and
a training subclass running `self(...)` is that network's own code, not another network calling it
(analysis/model/project.NN_MODULE_BASES, analysis/entry/submodules.below_calling_networks). Fixture: a ROS 1
navigation node whose policy (in one module) keeps a depth encoder from another module."""
from __future__ import annotations

import pytest
from test_entry_ranking import app, by_id, ranked

from leapp_codemod.analysis.model.project import NN_MODULE_BASES


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_encoder_of_a_lightning_policy_ranks_below_the_policy_network(tmp_path, monkeypatch):
    candidates = by_id(ranked(app(tmp_path, "entry_lightning_parts"), monkeypatch))
    policy, encoder = candidates["nav.policy:NavPolicy.forward"], candidates["nav.encoders:DepthEncoder.forward"]
    assert encoder["score"] < policy["score"]
    assert any(r.startswith("a part of another model: NavPolicy.__init__") for r in encoder["reasons"])
    # the training subclass's `self(...)` does not make the policy a sub-block of another network
    assert not any("sub-block" in r for r in policy["reasons"])


def test_both_lightning_spellings_are_module_bases():
    assert {"lightning.LightningModule", "pytorch_lightning.LightningModule"} <= NN_MODULE_BASES
