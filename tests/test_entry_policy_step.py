"""The policy step ranks first: the method a play loop runs through a getter's bound method, not the loop;
the function that feeds observations to the model and returns the action, not a network block, an encoder
it calls or a training update; a middleware callback that publishes the action, not the model wrapper it
calls. Each on a fixture app of its own shape."""
from __future__ import annotations

import json

from test_entry_ranking import app, by_id, expected, private_cache, ranked  # noqa: F401  (fixture)


def test_a_getters_bound_method_run_in_a_play_loop_outranks_the_loop(tmp_path, monkeypatch):
    want = expected("entry_getter_method")
    candidates = ranked(app(tmp_path, "entry_getter_method"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any("GraspRunner.make_policy returns" in r for r in candidates[0]["reasons"])
    # the evaluation loop's model call is the method's call site, not an inline range above it
    assert not any(c["kind"] == "inline" and c["score"] >= candidates[0]["score"] for c in candidates)


def test_a_callback_chaining_two_model_runners_outranks_each_of_them(tmp_path, monkeypatch):
    want = expected("entry_encoder_then_planner")
    candidates = ranked(app(tmp_path, "entry_encoder_then_planner"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any(r.startswith("the policy step") and "ScanEncoderRunner.embed" in r and "PlannerRunner.plan" in r
               for r in candidates[0]["reasons"])
    found = by_id(candidates)
    for part in want["parts"]:
        assert found[part]["score"] < candidates[0]["score"]
        assert any("a part of that step" in r for r in found[part]["reasons"])
    # the goal callback runs no model: never above the step
    goal = found.get("nav.node:NavNode.on_goal")
    assert goal is None or goal["score"] < candidates[0]["score"]


def test_a_tick_that_sends_out_what_a_thin_model_wrapper_returns_outranks_the_wrapper(tmp_path, monkeypatch):
    want = expected("entry_wrapper_in_tick")
    candidates = ranked(app(tmp_path, "entry_wrapper_in_tick"), monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["entry"], want["wrapper"]]
    assert any("a model wrapper Crawler.tick calls" in r and "(line 27)" in r for r in candidates[1]["reasons"])


def test_a_policy_method_on_an_object_the_scan_cannot_follow_is_a_model_sign(tmp_path, monkeypatch):
    want = expected("entry_unfollowed_policy")
    candidates = ranked(app(tmp_path, "entry_unfollowed_policy"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert "runs a policy through `self.brain.select_action`, an object the scan does not follow" in \
        candidates[0]["reasons"]
    assert not any(r.startswith("no sign of a model") for r in candidates[0]["reasons"])


def test_calls_in_different_branches_are_no_chain():
    import ast
    import textwrap

    from leapp_codemod.analysis.entry.composers import _exclusive
    fn = ast.parse(textwrap.dedent('''
        def f(self, x):
            if self.fast:
                a = self.small(x)
            else:
                a = self.big(x)
            b = self.head(a)
        ''')).body[0]
    calls = {c.func.attr: c for c in ast.walk(fn) if isinstance(c, ast.Call)}
    assert _exclusive(fn, calls["small"], calls["big"])
    assert not _exclusive(fn, calls["small"], calls["head"])
    assert not _exclusive(fn, calls["head"], calls["big"])


def test_a_deploy_loop_five_calls_below_the_main_guard_through_the_drivers_own_methods_is_found(
        tmp_path, monkeypatch):
    want = expected("entry_deep_driver")
    candidates = ranked(app(tmp_path, "entry_deep_driver"), monkeypatch)
    assert candidates and candidates[0]["entry"] == want["range"]
    assert candidates[0]["kind"] == "inline"
    assert "calls the model `net.step` inline" in candidates[0]["reasons"][0]


def test_a_drivers_own_methods_cost_no_depth_but_other_callees_do():
    from types import SimpleNamespace

    from leapp_codemod.analysis.entry.drivers import driver_ids
    root = SimpleNamespace(id="app:<module>")      # driver_ids reads only the roots' ids
    callees = {"app:<module>": {"app:main"}, "app:main": {"robot:Robot.serve"},
               "robot:Robot.serve": {"robot:Robot._mode"}, "robot:Robot._mode": {"robot:Robot._loop", "lib:helper"},
               "robot:Robot._loop": {"robot:Other.deep"}, "robot:Other.deep": {"robot:Other.deeper"},
               "lib:helper": {"lib:inner"}}
    found = driver_ids([root], callees, depth=2)
    assert {"app:main", "robot:Robot.serve", "robot:Robot._mode", "robot:Robot._loop"} <= found
    assert "lib:helper" not in found and "robot:Other.deep" not in found


def test_the_agents_call_outranks_the_rollout_that_drives_it_and_a_routine_whose_result_is_only_logged(
        tmp_path, monkeypatch):
    want = expected("entry_rollout_and_report")
    candidates = ranked(app(tmp_path, "entry_rollout_and_report"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    found = by_id(candidates)
    assert any(r.startswith("runs the model and steps the environment in one loop of its own")
               for r in found[want["rollout"]]["reasons"])
    assert any(r.startswith("its result only reaches a logger (fly_glider.py:16)")
               for r in found[want["logged"]]["reasons"])
    # the episode loop's reset is bookkeeping, not pipeline code: the agent's call is not demoted below it
    assert not any("the range around it is the policy step" in r for r in candidates[0]["reasons"])


def test_generate_names_the_send_of_a_step_that_returns_nothing():
    import ast
    import textwrap

    import pytest

    from leapp_codemod.generate.source_info import SourceError, output_structure
    fn = ast.parse(textwrap.dedent('''
        def on_frame(self, msg):
            x = self.encode(msg.data)
            cmd = self.head(x)
            self.bus.send(cmd.tolist())
        ''')).body[0]
    with pytest.raises(SourceError) as caught:
        output_structure(fn, set())
    text = str(caught.value)
    assert "on_frame returns nothing" in text
    assert "it sends its result out at line 5: `self.bus.send(cmd.tolist())`" in text
    quiet = ast.parse("def idle(self):\n    self.count = 0\n").body[0]
    with pytest.raises(SourceError) as caught:
        output_structure(quiet, set())
    assert "sends" not in str(caught.value)


def test_a_sim2sim_range_that_builds_the_observation_outranks_a_method_run_only_by_a_play_rollout(
        tmp_path, monkeypatch):
    want = expected("entry_play_and_sim2sim")
    candidates = ranked(app(tmp_path, "entry_play_and_sim2sim"), monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["range"], want["method"]]
    reasons = candidates[1]["reasons"]
    assert any(r.startswith("run only by simulation rollouts (the loop at quad/scripts/play.py:11") for r in reasons)
    assert f"ranked below the range {want['range']}, which builds the observation itself (11 statements)" in reasons


def test_stepping_an_environment_is_not_stepping_an_optimizer_a_scheduler_or_the_model():
    import ast

    from leapp_codemod.analysis.entry.loops import steps_or_resets

    def steps(code: str) -> bool:
        return steps_or_resets(ast.parse(code).body[0])
    assert steps("obs, r, done, info = env.step(action)")
    assert steps("results = [e.step(a) for e, a in zip(envs, actions)]")
    assert steps("obs = self.sim.reset()")
    assert not steps("x = self.noise_scheduler.step(eps, t, x).prev_sample")
    assert not steps("optimizer.step()")
    assert not steps("action, logs = self.model.step(frames)")
    assert not steps("hidden = policy.reset()")


def test_the_class_a_command_line_default_builds_is_first_of_its_peers(tmp_path, monkeypatch):
    want = expected("entry_cli_default")
    candidates = ranked(app(tmp_path, "entry_cli_default"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert "its class is the one the configs select by default (evaluate.py:24 (--algo default 'td3'))" in \
        candidates[0]["reasons"]
    # the loop's `agent.act(obs)` runs the selected class: the peer gets no credit for that loop
    peer = by_id(candidates)[want["peer"]]
    assert peer["score"] < candidates[0]["score"] and not any(r.startswith("called in a loop")
                                                              for r in peer["reasons"])


def test_argparse_choices_read_only_the_branch_the_default_takes():
    import ast
    import textwrap

    from leapp_codemod.analysis.entry.config_choice import argparse_choices
    tree = ast.parse(textwrap.dedent('''
        p.add_argument("--policy-kind", default="mlp")
        p.add_argument("--seed", default=0)
        if args.policy_kind == "rnn":
            net = RNNPolicy()
        elif args.policy_kind == "mlp":
            net = MLPPolicy(make_layers())
        if args.seed == "x":
            other = Other()
        '''))
    assert argparse_choices(tree) == {"MLPPolicy": "6 (--policy_kind default 'mlp')"}


def test_a_closure_a_helper_returns_and_a_driver_loop_calls_is_the_step(tmp_path, monkeypatch):
    want = expected("entry_returned_closure")
    root = app(tmp_path, "entry_returned_closure")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any(r.startswith("called in a loop by main") for r in candidates[0]["reasons"])
    # a link method sending a command by name over RPC (`self._rpc.act("drive", ...)`) runs no policy
    link = by_id(candidates)[want["link"]]
    assert link["score"] < candidates[0]["score"]
    assert not any("runs a policy through" in r for r in link["reasons"])
    # a plain scan starts from the closure and reports what its body does
    from test_entry_discovery import run
    document = json.loads(run(root, monkeypatch, "scan", ".", "--format", "json").stdout)
    assert document["entry"] == want["entry"]
    assert any(f["line"] == want["finding_line"] and f["path"].endswith("controllers.py")
               for f in document["findings"])


def test_a_networks_method_the_agent_runs_by_the_same_name_ranks_below_the_agent(tmp_path, monkeypatch):
    want = expected("entry_delegated_model")
    candidates = ranked(app(tmp_path, "entry_delegated_model"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    network = by_id(candidates)[want["network"]]
    assert network["score"] == candidates[0]["score"] - 1
    assert any("SortingAgent.predict runs through `self.model.predict`" in r for r in network["reasons"])


def test_a_shipped_shell_script_picks_the_registry_key_among_the_leading_peers(tmp_path, monkeypatch):
    want = expected("entry_registry_script")
    candidates = ranked(app(tmp_path, "entry_registry_script"), monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["entry"], want["peer"]]
    assert candidates[0]["score"] == by_id(candidates)[want["peer"]]["score"] + 1
    assert any("run_vents.sh:4 (--controller gru)" in r and "the key `gru` registered at" in r
               for r in candidates[0]["reasons"])


def test_registry_keys_and_shell_values_are_read_as_text():
    import ast
    import textwrap

    from leapp_codemod.analysis.entry.config_choice import registry_keys, shell_values

    tree = ast.parse(textwrap.dedent('''
        register(name="walk", entry_point="pkg.gaits.walk:WalkGait", config="pkg.gaits:walk.yaml")
        register("trot", "pkg.gaits.TrotGait")
        log("x", "y")
        GAITS = {"bound": BoundGait, "pace": gaits.PaceGait, "n": 3}
        '''))
    assert registry_keys(tree) == {"walk": ("WalkGait", "pkg.gaits.walk.WalkGait", 2),
                                   "trot": ("TrotGait", "pkg.gaits.TrotGait", 3),
                                   "bound": ("BoundGait", None, 5), "pace": ("PaceGait", None, 5)}
    texts = [("a.sh", ("GAIT='walk'\n# GAIT='trot'\nexport MODE=fast  # note\npython run.py --gait=pace \\\n"
                       "   --seed 3 --out $DIR\nif [ \"$GAIT\" == 'bound' ]; then\n"))]
    values = shell_values(texts)
    assert set(values) == {"walk", "fast", "pace"}
    assert values["walk"].endswith("a.sh:1 (GAIT='walk')")


def test_the_config_target_picks_the_class_a_call_runs_and_training_helpers_drive_nothing(tmp_path, monkeypatch):
    want = expected("entry_selected_receiver")
    candidates = ranked(app(tmp_path, "entry_selected_receiver"), monkeypatch)
    first, namesake = candidates[0], by_id(candidates)[want["namesake"]]
    assert first["entry"] == want["entry"]
    # the call `pilot.act(...)` may run three classes; the primary config's `_target_` names one of them
    assert "of the 3 classes whose `act` the call may run, the configs select this one (conf/pilot/neural.yaml)" \
        in first["reasons"]
    assert "its class is the one the configs select by default (conf/pilot/neural.yaml)" in first["reasons"]
    for other in want["others"]:    # the classes the config does not select get no credit for that loop
        assert not any(r.startswith("called in a loop") for r in by_id(candidates)[other]["reasons"])
    # the same short name in another module is not what the dotted target names, and the loop that runs it is
    # reached only through training code
    assert not any("select" in r for r in namesake["reasons"])
    assert not any(r.startswith("called in a loop") for r in namesake["reasons"])
    assert namesake["score"] < first["score"] - 4


def test_of_several_configs_selecting_a_receiver_class_the_one_the_code_runs_decides(tmp_path, monkeypatch):
    want = expected("entry_run_config")
    root = app(tmp_path, "entry_run_config")
    candidates = ranked(root, monkeypatch)
    first, other = candidates[0], by_id(candidates)[want["other"]]
    assert first["entry"] == want["entry"]
    assert any("classes whose `step` the call may run" in r and "run.yaml, the config the code runs" in r
               for r in first["reasons"])
    assert not any(r.startswith("called in a loop") for r in other["reasons"])
    # the script composes the other config: the loop runs the other class
    script = root / "run_arm.py"
    script.write_text(script.read_text(encoding="utf-8").replace('"run.yaml"', '"run_sim"'), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == want["other"]
    assert not any(r.startswith("called in a loop") for r in by_id(candidates)[want["entry"]]["reasons"])
    # a config no code runs settles nothing: neither class is bound to the loop
    script.write_text(script.read_text(encoding="utf-8").replace('"run_sim"', '"other"'), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert not any("classes whose `step` the call may run" in r for c in candidates for r in c["reasons"])


def test_a_harness_handed_the_model_is_no_model_call(tmp_path, monkeypatch):
    from leapp_codemod.analysis.entry.loops import is_model_name

    want = expected("entry_harness_call")
    candidates = ranked(app(tmp_path, "entry_harness_call"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert want["harness"] not in by_id(candidates)
    assert not any("validate_policy" in r for c in candidates for r in c["reasons"])
    # the verb makes the name a harness; a model's own name (an evaluation network included) stays a model
    assert not any(is_model_name(n) for n in ("evaluate_policy", "train_actor", "test_model", "plot_net"))
    assert all(is_model_name(n) for n in ("policy", "eval_net", "target_actor", "policy_model"))


def test_a_rollout_below_the_driver_depth_binds_its_call_and_the_harness_above_is_no_step(tmp_path, monkeypatch):
    want = expected("entry_deep_harness")
    candidates = ranked(app(tmp_path, "entry_deep_harness"), monkeypatch)
    first = candidates[0]
    assert first["entry"] == want["entry"]
    # the episode loop is four calls below the script: its `agent.act(...)` is still bound to the selected class
    assert any("of the 2 classes whose `act` the call may run, the configs select this one" in r
               for r in first["reasons"])
    assert not any("the configs select this one" in r for r in by_id(candidates)[want["other"]]["reasons"])
    # the suite reaches the model through run_task, whose model helper run_episode is the rollout: no step itself
    harness = by_id(candidates).get(want["harness"])
    if harness is not None:
        assert any("runs the model only through run_episode" in r for r in harness["reasons"])
        assert harness["score"] <= first["score"] - 6
    # the episode loop itself is no inline candidate (a loop below the driver depth only binds its call)
    assert not any(c["kind"] == "inline" and "harness.py" in c["entry"] for c in candidates)


def test_drivers_are_not_reached_through_blocked_functions():
    import ast

    from leapp_codemod.analysis.entry.drivers import driver_ids
    from leapp_codemod.analysis.model.index import FunctionInfo

    node = ast.parse("def main():\n    pass\n").body[0]
    root = FunctionInfo("app:main", "app", "main", node, None, "app.py")
    callees = {"app:main": {"app:train", "app:serve"}, "app:train": {"app:collect"}, "app:serve": {"app:step"}}
    assert driver_ids([root], callees) >= {"app:collect", "app:step"}
    reached = driver_ids([root], callees, blocked={"app:train"})
    assert "app:step" in reached and "app:collect" not in reached


def test_a_simulators_upkeep_of_its_actors_is_no_model_call():
    import ast

    from leapp_codemod.analysis.entry.loops import model_call
    for source in ("env.gym.refresh_actor_root_state_tensor(env.sim)", "gym.acquire_actor_root_state_tensor(sim)",
                   "viewer.render_actor(a)", "self.sync_actor_weights()"):
        assert model_call(ast.parse(source).body[0].value, set()) is None, source
    assert model_call(ast.parse("self.actor_critic(obs)").body[0].value, set()) is not None
