"""Two nodes run the same agent from a timer: the pilot only drives; the learner also stores each transition
for training (`agent.push_experience(obs, action, reward)`). The learner's tick is training code, ranked below
the pilot's, and the agent's `act` is credited with the pilot's tick (fixtures/entry_training_callbacks)."""
from __future__ import annotations

from test_entry_ranking import app, by_id, expected, ranked

from leapp_codemod.analysis.entry.lookup import TRAINING_CODE


def test_the_tick_that_stores_transitions_ranks_below_the_one_that_only_drives(tmp_path, monkeypatch):
    want = expected("entry_training_callbacks")
    candidates = ranked(app(tmp_path, "entry_training_callbacks"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    learner = by_id(candidates).get(want["learner"])
    assert learner is None or (any(r.endswith(TRAINING_CODE) for r in learner["reasons"])
                               and learner["score"] < candidates[0]["score"])
    act = by_id(candidates)["fleet.agent:Agent.act"]
    assert not any("LearnerNode._tick" in r for r in act["reasons"])


def test_storing_a_transition_is_a_training_operation_recording_a_frame_is_not():
    import ast

    from leapp_codemod.analysis.entry.drivers import training_operation

    def call(text):
        return ast.parse(text).body[0].value

    assert training_operation(call("trainer.store_transition(obs, a, logp, r, done, v)"))
    assert training_operation(call("agent.add_experience(obs, a, r)"))
    assert not training_operation(call("recorder.add_frame(frame)"))      # a dataset recorder in a deploy loop
    assert not training_operation(call("self.filter.update(obs)"))
