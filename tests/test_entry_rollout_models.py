"""Evaluation rollouts wherever they are written (a trainer's method, a library player no file calls) and
models that reach a loop only through a parameter (handed by a call site, or used as one): their loops'
ranges are offered like a script's. Each on a fixture app of its own shape."""
from __future__ import annotations

import ast

from test_entry_ranking import app, by_id, expected, private_cache, ranked  # noqa: F401  (fixture)

from leapp_codemod.analysis.entry.loops import model_call, runs_the_model
from leapp_codemod.analysis.entry.rollout_models import evaluation_rollout, used_as_model
from leapp_codemod.analysis.model.index import FunctionInfo


def _first_range(candidates: list[dict], want: dict) -> dict:
    top = candidates[0]
    assert top["kind"] == "inline", [c["entry"] for c in candidates[:3]]
    assert top["path"].endswith(want["range_file"])
    assert top["start"] <= want["model_line"] <= top["end"]
    return top


def test_a_trainers_evaluate_method_offers_its_rollout_range_above_the_network(tmp_path, monkeypatch):
    want = expected("entry_trainer_method_loop")
    candidates = ranked(app(tmp_path, "entry_trainer_method_loop"), monkeypatch)
    top = _first_range(candidates, want)
    assert top["start"] < want["model_line"] < top["end"]     # the reading's scaling and the clip are in it
    assert any("is an evaluation rollout" in r for r in top["reasons"])
    network = by_id(candidates)[want["network"]]
    assert network["score"] < top["score"]


def test_a_library_players_rollout_no_file_calls_is_offered(tmp_path, monkeypatch):
    want = expected("entry_player_class")
    candidates = ranked(app(tmp_path, "entry_player_class"), monkeypatch)
    top = _first_range(candidates, want)
    assert "self.helm" in top["reasons"][0]


def test_a_model_handed_positionally_from_a_project_loader_marks_the_loop(tmp_path, monkeypatch):
    want = expected("entry_handed_loaded_model")
    candidates = ranked(app(tmp_path, "entry_handed_loaded_model"), monkeypatch)
    top = _first_range(candidates, want)
    assert any("`brain` is a parameter that carries a model: a call site hands it one" in r for r in top["reasons"])


def test_a_parameter_used_as_a_model_marks_the_loop_of_a_notebook_script(tmp_path, monkeypatch):
    want = expected("entry_notebook_usage_sign")
    candidates = ranked(app(tmp_path, "entry_notebook_usage_sign"), monkeypatch)
    top = _first_range(candidates, want)
    assert any("`driver` is a parameter that carries a model: the function uses it as one" in r
               for r in top["reasons"])


def _function(source: str, cls: str | None = None) -> FunctionInfo:
    node = ast.parse(source).body[0]
    qual = f"{cls}.{node.name}" if cls else node.name
    return FunctionInfo(f"m:{qual}", "m", qual, node, cls, "m.py")


def test_evaluation_rollouts_are_named_for_it_train_nothing_and_step_an_environment():
    assert evaluation_rollout(_function(
        "def _eval_agent(self):\n    for _ in range(3):\n        o = self.env.reset()\n"
        "        a = self.pi(o)\n        o = self.env.step(a)\n    self.pi.train()\n", "Agent"))
    assert evaluation_rollout(_function("def play_games(agent, table):\n    while True:\n"
                                        "        table.step(agent(table.state))\n"))
    # trains (an optimizer step), named for training, or no environment stepped in its loop: no rollout
    assert not evaluation_rollout(_function(
        "def evaluate(self):\n    for o in range(3):\n        self.env.step(self.pi(o))\n        self.loss(o).backward()\n",
        "Agent"))
    assert not evaluation_rollout(_function("def train_and_evaluate(env, pi):\n    for _ in range(9):\n"
                                            "        env.step(pi(env.obs))\n"))
    assert not evaluation_rollout(_function("def evaluate(pi, xs):\n    for x in xs:\n        print(pi(x))\n"))
    assert not evaluation_rollout(_function("def forward(self, x):\n    for b in self.blocks:\n"
                                            "        x = self.env.step(b(x))\n    return x\n", "Net"))


def test_a_parameter_is_used_as_a_model_in_eval_mode_or_called_under_no_grad():
    assert used_as_model(_function("def f(m, xs):\n    m.eval()\n    return [x for x in xs]\n")) == {"m"}
    assert used_as_model(_function("def f(m, x):\n    with torch.no_grad():\n        y = m(x)\n    return y\n")) == {"m"}
    assert used_as_model(_function("def f(m, x):\n    y = m(x)\n    with torch.no_grad():\n        z = x + 1\n"
                                   "    return y, z\n")) == set()


def _call(source: str) -> ast.Call:
    return ast.parse(source).body[0].value


def test_known_models_are_run_by_their_methods_not_by_their_upkeep():
    assert model_call(_call("brain.decide(x)"), {"brain"}) == "brain.decide"
    assert model_call(_call("self.helm(x)"), {"self.helm"}) == "self.helm"
    assert model_call(_call("self.helm.decide(x)"), {"self.helm"}) == "helm.decide"
    assert model_call(_call("brain.decide(x)"), set()) is None
    for upkeep in ("eval", "to", "load_state_dict", "reset_memory", "_cache", "parameters"):
        assert not runs_the_model(upkeep)
        assert model_call(_call(f"brain.{upkeep}(x)"), {"brain"}) is None


def test_a_loop_that_stores_transitions_for_training_is_no_evaluation_rollout():
    assert not evaluation_rollout(_function(
        "def run_episode(self):\n    o = self.env.reset()\n    while True:\n        a = self.pi(o)\n"
        "        o2, r, d = self.env.step(a)\n        self.replay_buffer.add(o, a, r, o2)\n        o = o2\n", "Agent"))
    assert not evaluation_rollout(_function("def collect_rollouts(env, pi):\n    for _ in range(9):\n"
                                            "        env.step(pi(env.obs))\n"))
    assert not evaluation_rollout(_function(  # a batch gathered for an update, whatever the method's name
        "def rollout(self):\n    s = self.env.reset()\n    for _ in range(99):\n        obs_batch.append(s)\n"
        "        s, r, d = self.env.step(self.get_action(s))\n", "PPO"))
    assert not evaluation_rollout(_function(    # rollouts of a learned model that fill a pool for the update
        "def rollout_model(predict_env, agent, model_pool, steps):\n    for _ in range(steps):\n"
        "        nxt = predict_env.step(s, agent.select_action(s))\n        model_pool.push_batch(nxt)\n"))


def test_a_checkpoint_dicts_accessors_do_not_run_a_model():
    assert model_call(_call("ckpt.get('policy')"), {"ckpt"}) is None
    assert model_call(_call("ckpt.items()"), {"ckpt"}) is None
    assert used_as_model(_function("def f(cfg: dict, x):\n    with torch.no_grad():\n        y = cfg(x)\n"
                                   "    return y\n")) == set()
