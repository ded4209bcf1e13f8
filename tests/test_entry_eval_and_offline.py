"""Which loops drive the exported step: the evaluation branch of a training script does (and what it calls
through parameters passed on binds the receiver); a loop over a recorded dataset that sends nothing out does
not. Each on a fixture app of its own shape."""
from __future__ import annotations

import ast

from test_entry_ranking import app, by_id, expected, private_cache, ranked  # noqa: F401  (fixture)

from leapp_codemod.analysis.entry.drivers import (
    evaluation_branch_calls,
    in_training_path,
    is_training_loop,
)
from leapp_codemod.analysis.entry.loops import offline_loop
from leapp_codemod.analysis.model.index import FunctionInfo


def test_the_deploy_branch_of_a_fitting_script_drives_a_plain_function_named_to_act(tmp_path, monkeypatch):
    want = expected("entry_eval_branch")
    candidates = ranked(app(tmp_path, "entry_eval_branch"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any(r.startswith("called in a loop by main") for r in candidates[0]["reasons"])


def test_a_pilot_passed_on_through_two_functions_binds_the_loops_receiver(tmp_path, monkeypatch):
    want = expected("entry_forwarded_pilot")
    candidates = ranked(app(tmp_path, "entry_forwarded_pilot"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any(r.startswith("called in a loop by _leg") for r in candidates[0]["reasons"])
    peer = by_id(candidates).get(want["peer"])
    assert peer is None or peer["score"] < candidates[0]["score"]


def test_a_metrics_loop_over_a_dataloader_is_no_control_loop(tmp_path, monkeypatch):
    want = expected("entry_offline_metrics")
    candidates = ranked(app(tmp_path, "entry_offline_metrics"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert not any(c["kind"] == "inline" and c["path"] == want["offline_file"] for c in candidates)


def _loop(source: str) -> ast.AST:
    return next(n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.For, ast.While)))


def test_offline_loops_walk_a_dataset_and_send_nothing_out():
    assert offline_loop(_loop("for batch in loader:\n    errs.append(model(batch) - batch.y)\n"))
    assert offline_loop(_loop("for i in range(0, n, batch_size):\n    preds.append(net(x[i:i + batch_size]))\n"))
    # a replay that commands the robot, a rollout that steps a simulator, a loop over time steps: control loops
    assert not offline_loop(_loop("for batch in loader:\n    arm.send(model(batch))\n"))
    assert not offline_loop(_loop("for sample in samples:\n    obs, r, d, _ = env.step(policy(sample))\n"))
    assert not offline_loop(_loop("for t in range(steps):\n    out.append(policy(obs))\n"))
    assert not offline_loop(_loop("while True:\n    batch = next(it)\n    preds.append(model(batch))\n"))


def _function(source: str) -> FunctionInfo:
    node = ast.parse(source).body[0]
    return FunctionInfo(f"train_x:{node.name}", "train_x", node.name, node, None, "train_x.py")


def test_only_an_if_on_an_evaluation_flag_is_an_evaluation_branch():
    fn = _function("def main(args):\n    if args.play:\n        run(policy)\n    if epoch % 10 == 0:\n"
                   "        save(model)\n    if args.train_eval:\n        fit(model)\n    fit(model)\n"
                   "    for epoch in range(9):\n        if eval_mode:\n            rollout(policy)\n")
    calls = {ast.unparse(c.func) for c in ast.walk(fn.node) if isinstance(c, ast.Call) and id(c) in
             evaluation_branch_calls(fn)}
    assert calls == {"run"}


def test_a_function_named_to_act_is_not_training_by_its_name_alone():
    def named(name: str, module: str = "estimator") -> FunctionInfo:
        node = ast.parse(f"def {name}(x):\n    return x\n").body[0]
        return FunctionInfo(f"{module}:{name}", module, name, node, None, f"{module}.py")
    assert not is_training_loop(named("update_belief_and_act"))
    assert is_training_loop(named("update_policy"))
    # a module named for training decides nothing by itself (only ties: `in_training_path`)
    assert not is_training_loop(named("update_belief_and_act", "train_world_model"))


def test_ties_put_the_inline_range_first_and_scan_chooses_what_entrypoints_lists_first():
    from leapp_codemod.analysis.entry.entrypoints import tie_order
    from leapp_codemod.analysis.entry.lookup import choose_entry
    from leapp_codemod.model import Entrypoint

    class NoProject:    # built_count finds no module: 0 sites
        modules: dict = {}

    thread = Entrypoint("fly", "get_action", "fly.py", 10, 10, ("registered as a thread target",))
    short = Entrypoint("fly", "get_action@20", "fly.py", 20, 10, ("inline",), kind="inline", start=22, end=30)
    long = Entrypoint("fly", "get_action@20", "a.py", 20, 10, ("inline",), kind="inline", start=22, end=60)
    better = Entrypoint("fly", "step", "fly.py", 70, 11, ("more signs",))
    ranked = sorted([thread, short, better, long], key=lambda e: tie_order(e, NoProject()))
    assert ranked == [better, long, short, thread]
    chosen, _ = choose_entry(ranked[1:], inline=True)
    assert chosen is long


def test_the_peer_built_outside_training_code_is_the_deployed_one(tmp_path, monkeypatch):
    want = expected("entry_deploy_built_peer")
    candidates = ranked(app(tmp_path, "entry_deploy_built_peer"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any("built at 1 place in the project outside tests and training code" in r
               for r in candidates[0]["reasons"])
    peer = by_id(candidates)[want["peer"]]
    assert peer["score"] < candidates[0]["score"]
    assert not any("built at" in r for r in peer["reasons"])   # the training script's builds do not count


def test_a_function_that_runs_the_model_only_through_a_rollout_helper_is_no_policy_step(tmp_path, monkeypatch):
    want = expected("entry_rollout_helper")
    candidates = ranked(app(tmp_path, "entry_rollout_helper"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    rollout = by_id(candidates)[want["rollout"]]    # still listed (a driver loop calls it), below the step
    assert rollout["score"] < candidates[0]["score"]
    assert any(r.startswith("runs the model only through _fly_once, whose loop also steps the environment")
               for r in rollout["reasons"])


def test_an_evaluator_in_a_training_package_is_evaluation_code(tmp_path, monkeypatch):
    want = expected("entry_evaluator_in_train_pkg")
    candidates = ranked(app(tmp_path, "entry_evaluator_in_train_pkg"), monkeypatch)
    assert [c["path"] for c in candidates[:2]] == [want["evaluator"], want["tool"]]
    assert candidates[0]["score"] > candidates[1]["score"]
    assert "run from deploy, play or evaluation code (`evaluator.py`)" in candidates[0]["reasons"]


def test_a_file_named_for_evaluating_is_no_training_path_unless_it_also_trains():
    assert not in_training_path("training/evaluator.py")
    assert not in_training_path("train/play.py")
    assert in_training_path("training/learner.py")
    assert in_training_path("scripts/train_eval.py")      # named for both: still training by name
