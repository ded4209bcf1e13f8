"""A loop whose `policy.act(...)` is bound at run time to project classes that run no model (scripted planners, a
gamepad) ranks below the loop that runs the learned policy (fixtures/entry_scripted_controllers)."""
from __future__ import annotations

import pytest
from test_entry_ranking import app, by_id, expected, ranked


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_loop_over_scripted_controllers_ranks_below_the_learned_policy(tmp_path, monkeypatch):
    want = expected("entry_scripted_controllers")
    candidates = ranked(app(tmp_path, "entry_scripted_controllers"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    scripted = by_id(candidates)[want["scripted"]]
    assert scripted["score"] < candidates[0]["score"]
    assert any("run no model" in r and "SweepPlanner" in r for r in scripted["reasons"])
