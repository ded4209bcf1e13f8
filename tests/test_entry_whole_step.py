"""The whole step outranks a network-only fragment it calls, and the configs pick the receiver of a driver
loop's call: a callback that sends through a camelCase method, a many-parameter function that returns what a
policy closure computes, a node's own loop around a small model wrapper, and a loop's `agent.step(...)` on an
object restored from a checkpoint whose class the Hydra defaults select. Each on a fixture app of its own shape."""
from __future__ import annotations

from test_entry_ranking import app, by_id, expected, ranked  # noqa: F401

from leapp_codemod.analysis.entry.composers import first_word


def test_a_callback_sending_through_a_camel_case_method_outranks_the_wrapper_it_calls(tmp_path, monkeypatch):
    want = expected("entry_camel_send_callback")
    candidates = ranked(app(tmp_path, "entry_camel_send_callback"), monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["entry"], want["wrapper"]]
    assert any("a send of the result (line 34)" in r for r in candidates[1]["reasons"])


def testfirst_word_splits_snake_and_camel_case():
    assert [first_word(n) for n in ("sendCommand", "publish_action", "_writeOut", "Write", "apply")] == [
        "send", "publish", "write", "write", "apply"]


def test_a_function_returning_what_a_policy_closure_computes_outranks_the_closure(tmp_path, monkeypatch):
    want = expected("entry_step_returns_closure_result")
    candidates = ranked(app(tmp_path, "entry_step_returns_closure_result"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any(r.startswith("the policy step") and "returns the result" in r for r in candidates[0]["reasons"])
    closure = by_id(candidates)[want["closure"]]
    assert closure["score"] < candidates[0]["score"]
    assert any("a return (line 15)" in r for r in closure["reasons"])


def test_a_nodes_own_loop_around_a_small_model_wrapper_is_the_step(tmp_path, monkeypatch):
    want = expected("entry_node_loop_wrapper")
    candidates = ranked(app(tmp_path, "entry_node_loop_wrapper"), monkeypatch)
    first = candidates[0]
    assert first["kind"] == "inline" and first["path"] == want["range_path"]
    assert first["start"] <= 42 <= first["end"]      # the wrapper's call is inside the range
    wrapper = by_id(candidates)[want["wrapper"]]
    assert wrapper["score"] < first["score"]
    assert any("the range around it is the policy step" in r for r in wrapper["reasons"])


def test_a_plain_script_loop_keeps_the_policy_method_a_thin_wrapper_is(tmp_path, monkeypatch):
    # the closure fixture's play script calls the closure in a loop of a script, not of a node: no range for it
    candidates = ranked(app(tmp_path, "entry_step_returns_closure_result"), monkeypatch)
    assert not any(c["kind"] == "inline" and c["path"].startswith("tools") for c in candidates)


def test_the_configs_pick_which_class_a_loops_step_call_runs_among_agents_and_an_environment(tmp_path,
                                                                                              monkeypatch):
    want = expected("entry_selected_step_among_env")
    candidates = ranked(app(tmp_path, "entry_selected_step_among_env"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any("the configs select this one (conf/agent/planner.yaml)" in r for r in candidates[0]["reasons"])
    assert not any(c["kind"] == "inline" for c in candidates)
    peer = by_id(candidates)[want["peer"]]
    assert peer["score"] < candidates[0]["score"]
