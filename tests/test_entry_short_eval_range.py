"""A short evaluation loop around a project policy method is a candidate (fixtures/entry_short_eval_range).

`Evaluator.run` batches the observation, calls `HopPolicy.act` and steps the simulator with the result. The method
is the first candidate (it holds the model); the loop body that feeds it and hands its action to the world is
offered right below it, with the reason. A loop whose range would be the call alone is no candidate of its own.
"""
from __future__ import annotations

from test_entry_ranking import app, ranked

FIXTURE = "entry_short_eval_range/hopper_eval"


def test_the_loop_feeding_the_policy_is_offered_right_below_it(tmp_path, monkeypatch):
    first, second = ranked(app(tmp_path, FIXTURE), monkeypatch)[:2]
    assert first["entry"] == "policy:HopPolicy.act"
    assert (second["kind"], second["start"], second["end"]) == ("inline", 19, 20)
    assert second["score"] < first["score"] and "ranked right below it" in second["reasons"][-1]


def test_a_loop_that_only_calls_the_policy_offers_no_range(tmp_path, monkeypatch):
    root = app(tmp_path, FIXTURE)
    text = (root / "run_eval.py").read_text()
    old = "                batch = np.asarray(obs, dtype=np.float32)[None]\n                action = self.policy.act(batch)[0]\n"
    assert old in text
    (root / "run_eval.py").write_text(text.replace(old, "                action = self.policy.act(obs)\n"))
    assert not any(c["kind"] == "inline" for c in ranked(root, monkeypatch))
