"""The entry a user would export is offered and ranked first: a private method named like a policy step that a
loop runs, a module base class whose step calls `self(...)`, a deploy step that builds the model's input beside
a network's own method run by a simulator's watch loop; and a range refused for crossing blocks names the nearest
valid ranges."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_entry_discovery import tree_hash
from test_entry_ranking import app, by_id, expected, ranked

from leapp_codemod.cli import main


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_private_method_named_like_a_step_that_a_loop_runs_is_offered_first(tmp_path, monkeypatch):
    want = expected("entry_private_step")
    candidates = ranked(app(tmp_path, "entry_private_step"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any(r.startswith("called in a loop by main") for r in candidates[0]["reasons"])
    offered = by_id(candidates)
    for helper in want["not_offered"]:     # private helpers not named like a step stay out
        assert helper not in offered


def test_a_self_call_in_a_module_base_class_is_a_model_call(tmp_path, monkeypatch):
    want = expected("entry_self_call_policy")
    candidates = ranked(app(tmp_path, "entry_self_call_policy"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    reasons = candidates[0]["reasons"]
    assert "calls an nn.Module or a loaded model" in reasons
    assert not any("no sign of a model" in r for r in reasons)
    builder = by_id(candidates).get(want["builder"])     # `cls(...)` in a classmethod builds a module
    assert builder is None or "calls an nn.Module or a loaded model" not in builder["reasons"]
    assert builder is None or builder["score"] < candidates[0]["score"]


def test_a_network_method_ranks_below_the_deploy_step_that_builds_its_input(tmp_path, monkeypatch):
    want = expected("entry_network_vs_deploy_step")
    candidates = ranked(app(tmp_path, "entry_network_vs_deploy_step"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    network = by_id(candidates)[want["network"]]
    assert network["score"] < candidates[0]["score"]
    assert any(r.startswith("a network of a library copied into the project: ranked below HexController.tick")
               for r in network["reasons"])
    # the network's signs stay: it is still run in the watch loop, only ranked below the deploy step
    assert any(r.startswith("called in a loop by play") for r in network["reasons"])


@pytest.mark.parametrize("rng, taken", [
    ("10-14", "10-17"),     # ends one block deeper: the whole `if` it cuts is taken in
    ("14-18", "13-18"),     # starts one block deeper: from the `if` that holds it
    ("13-14", "14-14"),     # starts at the `if` header, ends in its body: the body's statements
])
def test_a_range_across_blocks_is_taken_to_the_whole_statements(rng, taken, tmp_path, monkeypatch):
    check_taken(tmp_path, monkeypatch, "rig/balance.py", rng, taken)


@pytest.mark.parametrize("rng, taken", [
    ("9-12", "8-12"),        # starts inside `with torch.no_grad()`, ends after it: from the `with`
    ("7-9", "7-10"),         # ends inside the `with`: through the whole `with`
    ("8-9", "9-9"),          # starts at the `with` header, ends inside it: its statements
])
def test_a_range_that_cuts_a_with_block_is_taken_to_the_with_statement(rng, taken, tmp_path, monkeypatch):
    check_taken(tmp_path, monkeypatch, "rig/steer.py", rng, taken)


def check_taken(tmp_path, monkeypatch, path, rng, taken):
    """A range that cuts a compound statement is scanned as the whole statements it touches, and says so."""
    root = app(tmp_path, "inline_range_hint")
    monkeypatch.chdir(root)
    before = tree_hash(root)
    result = CliRunner().invoke(main, ["scan", "rig", "--entry", f"{path}:{rng}", "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    assert f"<lines {taken}>" in result.output
    assert f"lines {rng} cut a compound statement: taken as {taken}" in result.output
    assert tree_hash(root) == before


def test_a_loop_over_demos_that_restores_a_simulator_is_an_evaluation(tmp_path, monkeypatch):
    want = expected("entry_demo_replay_eval")
    candidates = ranked(app(tmp_path, "entry_demo_replay_eval"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert any(r.startswith("called in a loop by score_demos") for r in candidates[0]["reasons"])


@pytest.mark.parametrize("source, offline", [
    ("for demo in demos:\n    sim.reset_to_state(demo)\n    score(agent.act(demo))\n", False),
    ("for demo in demos:\n    score(agent.act(demo))\n", True),                       # a pass over recorded data
    ("for batch in loader:\n    model.reset_hidden()\n    score(model(batch))\n", True),  # the model's own reset
])
def test_offline_loops_and_demo_replays(source, offline):
    import ast

    from leapp_codemod.analysis.entry.loops import offline_loop
    assert offline_loop(ast.parse(source).body[0]) is offline


def test_a_harness_around_the_policy_step_ranks_below_it(tmp_path, monkeypatch):
    want = expected("entry_step_harness")
    candidates = ranked(app(tmp_path, "entry_step_harness"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    harness = by_id(candidates)[want["harness"]]
    assert harness["score"] < candidates[0]["score"]
    assert any(r.startswith("runs the model only through Trials._parcels, whose loop runs the policy step "
                            "SorterAgent.choose_action") for r in harness["reasons"])


def test_a_loop_below_main_that_builds_a_steps_input_is_offered_as_a_range(tmp_path, monkeypatch):
    want = expected("entry_range_below_main")
    root = app(tmp_path, "entry_range_below_main")
    candidates = ranked(root, monkeypatch)
    the_range = candidates[0]
    assert the_range["entry"] == want["entry"] and the_range["kind"] == "inline"
    assert any("the loop is in a driver (Shift.grade_all)" in r for r in the_range["reasons"])
    assert any(r.startswith("calls `self.grader.predict`, a project function that runs a model,")
               for r in the_range["reasons"])
    step = by_id(candidates)[want["step"]]      # a part of the range, ranked right below it
    assert step["score"] == the_range["score"] - 1
    assert f"ranked below the range {want['entry']} that calls it with the pipeline around it" in step["reasons"]
    result = CliRunner().invoke(main, ["scan", ".", "--entry", want["entry"], "--format", "json"])
    assert result.exit_code in (0, 1) and "<lines 16-24>" in result.output


def test_a_model_in_a_declared_field_of_a_parameter_marks_the_step_and_its_loop_range(tmp_path, monkeypatch):
    want = expected("entry_annotated_model_field")
    candidates = ranked(app(tmp_path, "entry_annotated_model_field"), monkeypatch)
    offered = by_id(candidates)
    step = offered[want["entry"]]
    # `loaded.scripted(batch)` with `loaded: Loaded` and `scripted: torch.jit.ScriptModule` runs a model
    assert "calls an nn.Module or a loaded model" in step["reasons"]
    assert not any("no sign of a model" in r for r in step["reasons"])
    # the driver loop builds the pilot's input in several statements and turns its output into the command: the
    # range is the pipeline, first; `query_controller` is a part of it, right below
    the_range = candidates[0]
    assert the_range["entry"] == want["range"] and the_range["kind"] == "inline"
    assert any("the loop is in a driver (fly)" in r for r in the_range["reasons"])
    assert step["score"] == the_range["score"] - 1


@pytest.mark.parametrize("spelled", ["ctl/pilot.py:Pilot.act", "./ctl/pilot.py:Pilot.act", "pilot.py:Pilot.act"])
def test_an_entry_named_by_its_file_path_is_the_dotted_module_entry(spelled):
    import json
    root = Path(__file__).parent.parent / "fixtures" / "entry_package_root_scheme"
    before = tree_hash(root)
    out = CliRunner().invoke(main, ["scan", str(root), "--entry", spelled, "--format", "json", "--exit-zero",
                                    "--no-cache"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["entry"] == "ctl.pilot:Pilot.act"
    assert tree_hash(root) == before


def test_a_file_path_entry_naming_no_scanned_file_is_one_line_with_the_nearest_names():
    root = Path(__file__).parent.parent / "fixtures" / "entry_package_root_scheme"
    out = CliRunner().invoke(main, ["scan", str(root), "--entry", "ctl/pilots.py:Pilot.act", "--no-cache"])
    assert out.exit_code == 2
    assert "'ctl/pilots.py' is not among the scanned files; nearest: ctl.pilot:Pilot.act" in out.output
    assert "Traceback" not in out.output


def test_a_step_handed_to_the_robot_with_its_result_unused_is_no_model_call(tmp_path, monkeypatch):
    # `controller.step(q)` alone on its line in a homing sweep: the action leaves for the world there, so the
    # sweep is no inline pipeline; the loop that runs the policy is offered first
    want = expected("entry_world_step_not_model")
    candidates = ranked(app(tmp_path, "entry_world_step_not_model"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert want["homing"] not in by_id(candidates)


def test_a_helper_that_is_only_the_model_call_gets_no_credit_as_the_loop_bodys_model_call(tmp_path, monkeypatch):
    # `infer(model, x)` is a `with torch.no_grad(): return model(x)`: the sub-step that calls it builds its input
    # and sends its output, so the helper is not "the model call of the loop body" and never ranks first
    want = expected("entry_thin_model_wrapper")
    candidates = ranked(app(tmp_path, "entry_thin_model_wrapper"), monkeypatch)
    helper = by_id(candidates)[want["wrapper"]]
    assert candidates[0]["entry"] != want["wrapper"]
    assert any("only wraps its model call: Balancer._sub_cycle builds the input" in r for r in helper["reasons"])
    assert not any(r.endswith("the model call of the loop body") for r in helper["reasons"])


def test_a_policy_call_in_the_arm_of_a_stand_in_branch_is_offered_with_the_block_that_feeds_it(tmp_path, monkeypatch):
    # `if calibrating: act = STAND else: ... act = net(x)`: the `if` picks the step's value, not when the step runs;
    # the decimation block pushes the frame into a history object the `else` arm reads, so the range starts there
    want = expected("entry_fallback_branch_range")
    candidates = ranked(app(tmp_path, "entry_fallback_branch_range"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]


def test_a_served_network_called_amid_pipeline_code_makes_the_range_the_step(tmp_path, monkeypatch):
    # `net = make_policy(kind)` serves nn.Modules called as networks; the loop builds their input and smooths
    # their output, so the range around the call ranks first and the networks are its parts (a loop that only
    # feeds the served model keeps the model first: test_entry_discovery's getter app)
    want = expected("entry_served_network_range")
    candidates = ranked(app(tmp_path, "entry_served_network_range"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    for part in want["parts"]:
        assert any("the range around it is the policy step" in r for r in by_id(candidates)[part]["reasons"])


def test_a_robot_step_that_sends_its_command_itself_ranks_above_a_simulated_rollout(tmp_path, monkeypatch):
    # `while True: walker.tick()` at the top level: the loop sends nothing, the tick does (`self.send_targets`
    # writes through the SDK publisher), so the tick is a step of a robot's loop, above the simulator's rollout
    want = expected("entry_self_sending_robot_step")
    candidates = ranked(app(tmp_path, "entry_self_sending_robot_step"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]


def test_a_loop_around_a_wrapper_named_like_no_step_is_the_pipeline(tmp_path, monkeypatch):
    # the model runs inside a project class's `__call__` (a TorchScript wrapper): the loop that builds its input
    # and scales its output is offered first, the wrapper right below it
    want = expected("entry_range_around_wrapper")
    candidates = ranked(app(tmp_path, "entry_range_around_wrapper"), monkeypatch)
    the_range, wrapper = candidates[0], by_id(candidates)[want["wrapper"]]
    assert the_range["entry"] == want["entry"] and the_range["kind"] == "inline"
    assert the_range["reasons"][0].startswith("calls `head`, a project function that runs a model, in a loop")
    assert wrapper["score"] == the_range["score"] - 1
    assert f"ranked below the range {want['entry']} that calls it with the pipeline around it" in wrapper["reasons"]


def test_the_class_the_configs_select_is_a_part_of_the_range_that_builds_its_input(tmp_path, monkeypatch):
    want = expected("entry_selected_amid_pipeline")
    candidates = ranked(app(tmp_path, "entry_selected_amid_pipeline"), monkeypatch)
    the_range, selected = candidates[0], by_id(candidates)[want["selected"]]
    assert the_range["entry"] == want["entry"] and the_range["kind"] == "inline"
    assert selected["score"] == the_range["score"] - 1
    assert "its class is the one the configs select by default (conf/agent/learned.yaml)" in selected["reasons"]
    assert f"ranked below the range {want['entry']} that calls it with the pipeline around it" in selected["reasons"]
    assert not any("the configs select" in r for r in by_id(candidates)[want["other"]]["reasons"])


def test_a_short_loop_around_a_model_wrapper_leaves_the_wrapper_first(tmp_path, monkeypatch):
    # with only a read before the call and the send after it, the loop adds no pipeline code: the wrapper is
    # the step, and no range around it is offered
    root = app(tmp_path, "entry_range_around_wrapper")
    script = root / "squeeze.py"
    text = script.read_text(encoding="utf-8")
    start = text.index("        pads = hand.pads()")
    end = text.index("        hand.squeeze_to(forces)")
    script.write_text(text[:start] + "        forces = head(torch.from_numpy(hand.pads()))\n" + text[end:],
                      encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == expected("entry_range_around_wrapper")["wrapper"]
    assert not any(c["kind"] == "inline" for c in candidates)


@pytest.mark.parametrize("method, body, offered", [
    ("act", "return self.forces(tactile)", True),
    ("refresh", "return self.forces(tactile)", True),
    ("act", "out = None\n        for _ in range(3):\n            out = self.forces(tactile)\n        return out", True),
    ("settle", "out = None\n        for _ in range(3):\n            out = self.forces(tactile)\n        return out",
     False),
    ("detect", "return self.forces(tactile)", False),   # a detector's call feeds a policy, it is none
    # the loop one call down: `trial` hands the work to `sweep`, which runs the model in a loop of its own
    ("trial", "return self.sweep(tactile)\n\n    def sweep(self, tactile):\n        out = None\n"
              "        for _ in range(3):\n            out = self.forces(tactile)\n        return out", False)])
def test_a_call_reaching_a_model_through_a_helper_marks_a_range_unless_it_runs_episodes(tmp_path, monkeypatch,
                                                                                       method, body, offered):
    # `head.act(x)` / `head.refresh(x)` reaches the TorchScript module only through a helper method: the call
    # runs the model once, and the loop around it is the pipeline; `head.settle(x)` runs the helper in a loop of
    # its own, named like no policy step: an episode or a trial runner, no part of one step
    root = app(tmp_path, "entry_range_around_wrapper")
    wrapper = root / "gripper_head.py"
    wrapper.write_text(wrapper.read_text(encoding="utf-8").replace(
        "    def __call__(self, tactile: torch.Tensor) -> torch.Tensor:\n        with torch.no_grad():\n"
        "            return self.module(tactile)\n",
        f"    def {method}(self, tactile):\n        {body}\n\n"
        "    def forces(self, tactile):\n        with torch.no_grad():\n            return self.module(tactile)\n"),
        encoding="utf-8")
    script = root / "squeeze.py"
    script.write_text(script.read_text(encoding="utf-8").replace("head(tactile)", f"head.{method}(tactile)"),
                      encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    ranges = [c for c in candidates if c["kind"] == "inline"]
    assert bool(ranges) is offered
    if offered:
        assert candidates[0]["entry"] == expected("entry_range_around_wrapper")["entry"]


def test_a_closure_a_driver_defines_and_calls_in_its_loop_is_the_step(tmp_path, monkeypatch):
    want = expected("entry_closure_in_loop")
    root = app(tmp_path, "entry_closure_in_loop")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert "calls an nn.Module or a loaded model" in candidates[0]["reasons"]   # the network it closes over
    # its call is a project function's: the loop holds no model call of its own, so no range around it
    assert not any(c["kind"] == "inline" for c in candidates)
    result = CliRunner().invoke(main, ["scan", ".", "--format", "json", "--no-cache"])
    import json
    doc = json.loads(result.output)
    assert {(f["line"], f["code"]) for f in doc["findings"]} >= {(20, "LCM702")}   # the `nonlocal` torque


def test_a_closure_name_the_function_rebinds_is_not_taken_for_the_def(tmp_path, monkeypatch):
    # `control_policy = ...` after the `def`: the loop may call something else; the def is not its callee
    root = app(tmp_path, "entry_closure_in_loop")
    script = root / "balance.py"
    script.write_text(script.read_text(encoding="utf-8").replace(
        "    for _ in range(ticks):\n",
        "    if ticks < 0:\n        control_policy = plant.fallback\n    for _ in range(ticks):\n"), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert not any(c["entry"] == expected("entry_closure_in_loop")["entry"] and
                   any(r.startswith("called in a loop by run") for r in c["reasons"]) for c in candidates)


def test_a_controllers_per_tick_update_is_the_step_and_a_learners_update_stays_training(tmp_path, monkeypatch):
    from leapp_codemod.analysis.entry.signs import trains
    from leapp_codemod.analysis.model.index import FunctionInfo
    want = expected("entry_update_tick")
    candidates = ranked(app(tmp_path, "entry_update_tick"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert not any("training code" in r for r in candidates[0]["reasons"])
    learner = by_id(candidates).get(want["learner"])
    assert learner is None or any("training code" in r for r in learner["reasons"])
    import ast
    node = ast.parse("def update(self, b):\n    loss = f(b)\n    self.optim.step()\n").body[0]
    assert trains(FunctionInfo("m:update", "m", "update", node, None, "m.py"))
    node = ast.parse("def update(self):\n    self.env.step(self.act())\n").body[0]
    assert not trains(FunctionInfo("m:update", "m", "update", node, None, "m.py"))


def test_a_class_a_package_star_exports_over_its_same_named_submodule_is_what_the_script_builds(tmp_path,
                                                                                               monkeypatch):
    want = expected("entry_star_reexport")
    candidates = ranked(app(tmp_path, "entry_star_reexport"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert "the loop is in a driver (a __main__ block or what it calls)" in candidates[0]["reasons"]


def test_a_policy_method_a_library_base_class_provides_is_a_model_call(tmp_path, monkeypatch):
    # `self.get_action(obs)` in a subclass of an RL library's player: no project class defines it, the library base
    # does; the method calling it runs a policy, and the thread-driven step around that method ranks above it
    want = expected("entry_library_player_step")
    candidates = ranked(app(tmp_path, "entry_library_player_step"), monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["entry"], want["wrapper"]]
    wrapper = by_id(candidates)[want["wrapper"]]
    assert "runs a policy through `self.get_action`, an object the scan does not follow" in wrapper["reasons"]
    assert not any("no sign of a model" in r for r in wrapper["reasons"])


def test_a_method_of_self_is_a_library_policy_call_only_when_a_library_base_provides_it(tmp_path):
    import ast

    from leapp_codemod.analysis.entry.signs import unfollowed_policy_call
    from leapp_codemod.scan.load import load_project
    source = ("from lib import Player\nclass Own(Player):\n    def get_action(self, x):\n        return x\n"
              "class Walker(Player):\n    def step(self, x):\n        return self.get_action(x)\n"
              "class Plain:\n    def step(self, x):\n        return self.get_action(x)\n")
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    project = load_project([str(tmp_path)]).project
    call = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call))
    classes = project.modules["m"].classes
    assert unfollowed_policy_call(call, "self", project, classes["Walker"])
    assert not unfollowed_policy_call(call, "self", project, classes["Plain"])   # no library base: unknown
    assert not unfollowed_policy_call(call, "self", project, classes["Own"])     # the project defines it
    assert not unfollowed_policy_call(call, "self")                             # no class given


def test_a_short_range_whose_helper_builds_the_models_input_ranks_above_the_model_step(tmp_path, monkeypatch):
    want = expected("entry_range_with_preprocess")
    root = app(tmp_path, "entry_range_with_preprocess")
    candidates = ranked(root, monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["entry"], want["step"]]
    assert any(r.startswith("runs GaitPolicy.infer with the project's own pre- or post-processing around it")
               for r in candidates[0]["reasons"])


def test_a_getter_called_with_nothing_is_a_read_of_the_world_not_preprocessing(tmp_path, monkeypatch):
    want = expected("entry_range_with_preprocess")
    root = app(tmp_path, "entry_range_with_preprocess")
    script = root / "sim2sim.py"
    text = script.read_text(encoding="utf-8")
    start = text.index("obs_builder.assemble(")
    script.write_text(text[:start] + "obs_builder.latest()" + text[text.index("last)", start) + 5:], encoding="utf-8")
    helper = root / "obs_builder.py"
    helper.write_text(helper.read_text(encoding="utf-8") + "\n\ndef latest():\n    return torch.zeros(1, 39)\n",
                      encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == want["step"]
    assert not any(c["kind"] == "inline" and c["score"] > candidates[0]["score"] for c in candidates)


def _post_processing_variant(root, *extra_args: str) -> None:
    """The loop builds the observation inline and hands the network's output to a project helper (with
    `extra_args`: other values the helper mixes in)."""
    script = root / "sim2sim.py"
    text = script.read_text(encoding="utf-8")
    start, end = text.index("            obs = obs_builder.assemble("), text.index("        data.ctrl[:]")
    args = ", ".join(("action", *extra_args))
    script.write_text(text[:start] + (
        "            obs = torch.from_numpy(np.concatenate([data.qpos[7:], command]).astype(np.float32))\n"
        "            action = policy.infer(obs)\n"
        f"            targets = obs_builder.to_targets({args})\n") + text[end:], encoding="utf-8")
    script.write_text("import torch\n" + script.read_text(encoding="utf-8"), encoding="utf-8")
    helper = root / "obs_builder.py"
    helper.write_text(helper.read_text(encoding="utf-8") + "\n\ndef to_targets(action, *rest):\n"
                      "    return 0.25 * action.numpy()[0]\n", encoding="utf-8")


def test_a_short_range_whose_helper_turns_the_models_output_into_the_action_ranks_above_it(tmp_path, monkeypatch):
    want = expected("entry_range_with_preprocess")
    root = app(tmp_path, "entry_range_with_preprocess")
    _post_processing_variant(root)
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["kind"] == "inline" and candidates[1]["entry"] == want["step"]


def test_a_helper_mixing_the_action_with_other_readings_is_no_post_processing(tmp_path, monkeypatch):
    # `to_targets(action, data.qpos)`: a low-level controller on the action and the simulator's state
    want = expected("entry_range_with_preprocess")
    root = app(tmp_path, "entry_range_with_preprocess")
    _post_processing_variant(root, "data.qpos")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == want["step"]


def test_a_loop_that_throws_the_models_result_away_is_no_pipeline(tmp_path, monkeypatch):
    # `_ = net(dummy)` a hundred times: a timing (or warm-up) loop; its range is not offered
    want = expected("entry_discarded_warmup")
    candidates = ranked(app(tmp_path, "entry_discarded_warmup"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    assert want["timing_loop"] not in {c["entry"] for c in candidates}


@pytest.mark.parametrize("source, discarded", [
    ("_ = net(x)\n", True),
    ("_, __ = net(x)\n", True),
    ("_out = net(x)\n", False),          # a private local: may be read later
    ("self._last = net(x)\n", False),
    ("net(x)\n", False),                 # a bare call is judged elsewhere (a step that sends inside)
])
def test_a_result_bound_only_to_throwaway_names_is_discarded(source, discarded):
    import ast

    from leapp_codemod.analysis.entry.loops import _discarded
    assert _discarded(ast.parse(source).body[0]) is discarded


def test_an_action_servers_execute_callback_drives_its_control_loop(tmp_path, monkeypatch):
    want = expected("entry_action_server_goal")
    candidates = ranked(app(tmp_path, "entry_action_server_goal"), monkeypatch)
    first = candidates[0]
    assert (first["kind"], first["path"], first["start"], first["end"]) == (
        "inline", want["entry_file"], want["entry_start"], want["entry_end"])


def test_of_tied_scripts_the_original_goes_before_its_numbered_variant(tmp_path, monkeypatch):
    want = expected("entry_numbered_variant")
    candidates = ranked(app(tmp_path, "entry_numbered_variant"), monkeypatch)
    assert [c["entry"] for c in candidates[:2]] == [want["entry"], want["variant"]]
    assert candidates[0]["score"] == candidates[1]["score"]
    assert any("a numbered variant or a copy of this script" in r for r in candidates[0]["reasons"])


@pytest.mark.parametrize("path, original", [
    ("scripts/walk2.py", "scripts/walk.py"),
    ("deploy_v3.py", "deploy.py"),
    ("hover-2.py", "hover.py"),
    ("scripts/walk.py", None),
    ("b/go2.py", None),              # `go.py` is no candidate: a robot's name, not a variant
    ("other/walk2.py", None),        # another folder's `walk.py` is not its original
    ("scripts/walk copy.py", "scripts/walk.py"),     # a file manager's copies
    ("scripts/walk (copy).py", "scripts/walk.py"),
    ("deploy - Copy.py", "deploy.py"),
    ("hover (2).py", "hover.py"),
    ("copy_of_deploy.py", "deploy.py"),
    ("b/go_copy.py", None),          # no `go.py` beside it
    ("copy.py", None),
])
def test_a_numbered_variant_is_named_after_a_tied_script(path, original):
    from leapp_codemod.analysis.entry.ties import numbered_variant
    paths = ["scripts/walk.py", "scripts/walk2.py", "deploy.py", "deploy_v3.py", "hover.py", "hover-2.py",
             "b/go2.py", "other/walk2.py", "scripts/walk copy.py", "scripts/walk (copy).py", "deploy - Copy.py",
             "hover (2).py", "copy_of_deploy.py", "b/go_copy.py", "copy.py"]
    assert numbered_variant(path, paths) == original
