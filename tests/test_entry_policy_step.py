"""The policy step ranks first: the method a play loop runs through a getter's bound method, not the loop;
the function that feeds observations to the model and returns the action, not a network block, an encoder
it calls or a training update; a middleware callback that publishes the action, not the model wrapper it
calls. Each on a fixture app of its own shape."""
from __future__ import annotations

from test_entry_ranking import app, by_id, expected, private_cache, ranked  # noqa: F401  (fixture)


def test_a_getters_bound_method_run_in_a_play_loop_outranks_the_loop(tmp_path, monkeypatch):
    want = expected("entry_getter_method")
    candidates = ranked(app(tmp_path, "entry_getter_method"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any("GraspRunner.make_policy returns" in r for r in candidates[0]["reasons"])
    # the evaluation loop's model call is the method's call site, not an inline range above it
    assert not any(c["kind"] == "inline" and c["score"] >= candidates[0]["score"] for c in candidates)
