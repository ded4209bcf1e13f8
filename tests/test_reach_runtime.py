"""Reach into pipelines assembled at run time (fixtures/scan_reach_runtime): a method called on an untyped
parameter bound by duck typing to the class the calling module names, never to a class elsewhere that only
shares the name; `self.<method>` a library base provides listed as not followed; shapes carried by names
and arguments; classes named by `eval` of a config-group value; `self.training` handed to a helper."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from scanfixture import found, scan_copy

from leapp_codemod.scan import scan_project

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "scan_reach_runtime"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("scan_reach_runtime", tmp_path, app, entry, monkeypatch)


def test_untyped_parameter_bound_to_the_class_the_calling_module_registers(tmp_path, monkeypatch):
    result = scan(tmp_path, "planners_app", "plan_utils:plan", monkeypatch)
    assert ("grasp.py", 10, "LCM201") in found(result)             # GraspPlanner is only registered, never built
    assert not any(path == "replay.py" for path, _, _ in found(result))  # the tool's own `propose` is not it
    bound = {(b.line, b.targets) for b in result.bound_calls}
    assert (14, ("planners.grasp:GraspPlanner.propose",)) in bound
    assert any("duck typing" in b.how for b in result.bound_calls if b.line == 14)


def test_a_self_method_from_a_library_base_is_listed_not_guessed(tmp_path, monkeypatch):
    result = scan(tmp_path, "planners_app", "plan_utils:plan", monkeypatch)
    assert not any(path == "smoother.py" for path, _, _ in found(result))   # np.convolve there is not reached
    listed = {(Path(n.path).name, n.line): n.reason for n in result.not_followed}
    assert "library base class" in listed[("grasp.py", 12)]


def test_shapes_carried_by_a_name_and_an_argument(tmp_path, monkeypatch):
    result = scan(tmp_path, "shapes_app", "tiles:Tiler.forward", monkeypatch)
    hits = found(result)
    assert ("tiles.py", 38, "LCM002") in hits        # flat.view(dims): the whole size() stored earlier
    assert ("tiles.py", 10, "LCM001") in hits        # refresh(frames.shape) branches on dims[1]
    assert ("tiles.py", 21, "LCM001") not in hits    # a feature width (the last dimension) handed on
    assert ("tiles.py", 39, "LCM002") not in hits    # reshape(batch, -1): one size, not a stored whole shape


def test_eval_of_a_config_group_value_builds_the_named_class(tmp_path, monkeypatch):
    result = scan(tmp_path, "eval_app", "agent:Agent.act", monkeypatch)
    hits = found(result)
    assert ("parts.py", 11, "LCM201") in hits        # MlpDecoder, named in conf/decoder/mlp.yaml
    assert ("parts.py", 23, "LCM801") in hits        # NoisySampler, named under `sampler:` in conf/base.yaml
    assert ("parts.py", 18, "LCM301") not in hits and not any(c == "LCM101" for _, _, c in hits)  # ConvDecoder unnamed
    hows = {b.line: b.how for b in result.bound_calls}
    assert "decoder" in hows[9] and "sampler" in hows[10]
    assert not result.not_followed


def test_a_training_flag_passed_as_self_training_rules_out_the_noise(tmp_path, monkeypatch):
    assert found(scan(tmp_path, "flags_app", "blocks:Noisy.forward", monkeypatch)) == set()
    (tmp_path / "flags_app").rename(tmp_path / "flags_app_1")
    noisy = scan(tmp_path, "flags_app", "blocks:AlwaysNoisy.forward", monkeypatch)
    assert ("blocks.py", 7, "LCM801") in found(noisy)   # a caller passing True keeps it


def test_a_step_counter_on_self_passed_by_the_driver_is_a_setting(tmp_path, monkeypatch):
    root = tmp_path / "counter_app"
    shutil.copytree(FIXTURES / "counter_app", root)
    (root / "replay.py").unlink()
    monkeypatch.chdir(root)
    assert found(scan_project(["."], entry="agent:Agent.decide")) == set()   # `tick` is an int counter


def test_a_tensor_attribute_passed_for_the_counter_keeps_it_data(tmp_path, monkeypatch):
    result = scan(tmp_path, "counter_app", "agent:Agent.decide", monkeypatch)
    assert ("agent.py", 11, "LCM201") in found(result)    # replay.py passes `self.level`, a tensor


def test_container_lookups_and_missing_modules_in_a_range_are_listed_with_their_reason(tmp_path, monkeypatch):
    result = scan(tmp_path, "loop_app", "run_loop.py:13-16", monkeypatch)
    listed = {(n.line, n.text): n.reason for n in result.not_followed}
    assert "what `nets` holds is unknown" in listed[(14, "nets['encoder'](...)")]
    reason = listed[(15, "sched.denoise(...)")]
    assert "line 10, before the range" in reason and "fancy_sched.CosineNoise" in reason


def test_an_attribute_set_from_a_moved_parameter_holds_the_parameter_class(tmp_path, monkeypatch):
    result = scan(tmp_path, "loop_app", "heads:Wrapper.forward", monkeypatch)
    assert ("heads.py", 6, "LCM801") in found(result)     # self.body = body.to(device): NoisyBody
    assert not result.not_followed


def test_an_attribute_set_from_its_own_builder_method_holds_what_it_returns(tmp_path, monkeypatch):
    result = scan(tmp_path, "loop_app", "builder:Agent.forward", monkeypatch)
    assert ("builder.py", 8, "LCM801") in found(result)   # self.head = self.make_head(path): Jittery


def test_fields_another_thread_fills_in_a_shared_object_are_pipeline_data(tmp_path, monkeypatch):
    result = scan(tmp_path, "board_app", "stepper:Stepper.step", monkeypatch)
    hits = found(result)
    assert ("stepper.py", 10, "LCM301") in hits       # np.linalg.norm(self.board.joints)
    assert ("stepper.py", 11, "LCM201") in hits       # branch on self.board.speed
    assert ("stepper.py", 13, "LCM201") not in hits   # `gain`, a float the driver sets once: a setting


def test_numpy_items_unpacked_into_names_leave_the_trace(tmp_path, monkeypatch):
    result = scan(tmp_path, "unpack_app", "balancer:Balancer.act", monkeypatch)
    unpacks = {(path, line) for path, line, code in found(result) if code == "LCM104"}
    assert ("tilt.py", 5) in unpacks          # ax, ay, az = accel[:3], then np.arctan2 on the names
    assert ("balancer.py", 15) in unpacks     # [v * 0.5 for v in gyro], gyro a known NumPy slice
    assert ("balancer.py", 16) not in unpacks  # a loop over a list of gains (settings)
    assert ("balancer.py", 18) not in unpacks  # vx, vy = cmd[:2] feeds torch ops: 0-d tensors stay traced
    assert ("tilt.py", 11) not in unpacks     # rows indexed further (row[0]): rows of a 2-D array stay traced
    assert ("tilt.py", 22) not in unpacks     # frames handed whole to another call: arrays, not numbers
    assert ("tilt.py", 24) not in unpacks     # points has two axes (count, dims = points.shape): rows stay traced


def test_a_buffer_filled_in_place_then_rebound_from_itself_is_still_a_filled_buffer(tmp_path, monkeypatch):
    result = scan(tmp_path, "refill_app", "gripper:GripperPolicy.act", monkeypatch)
    by_line = {(line, code) for path, line, code in found(result) if path == "gripper.py"}
    assert (14, "LCM703") in by_line          # self.fingers[:3] = ..., then self.fingers = np.clip(self.fingers, ...)
    assert not any(code == "LCM703" for line, code in by_line if line in (18, 20))  # wrist, offset: not buffers
    fix = next(f.fix for f in result.findings if f.code == "LCM703" and f.line == 14)
    assert "rebound" in fix and "FunctionPatch of `act`" in fix   # run would not keep it as state


def test_an_inline_range_that_updates_self_follows_the_objects_on_self(tmp_path, monkeypatch):
    result = scan(tmp_path, "station_app", "station/loop.py:38-46", monkeypatch)
    hits = found(result)
    assert {("buffers.py", 11, "LCM701"), ("buffers.py", 12, "LCM701")} <= hits   # the factory's frame stack
    assert ("loop.py", 44, "LCM702") in hits      # self.heading carried to the next iteration
    assert ("loop.py", 45, "LCM301") in hits      # np.array of a list holding pipeline values
    assert not any(path == "frames.py" for path, _, _ in hits)   # the unrelated top-level `buffers` package
    bound = {(b.line, b.targets) for b in result.bound_calls}
    assert (42, ("main:Net.forward_policy",)) in bound   # the network attached through a setter


def test_values_a_thread_or_key_handler_writes_into_nested_objects_are_inputs(tmp_path, monkeypatch):
    result = scan(tmp_path, "teleop_app", "teleop.node:TeleopNode.act", monkeypatch)
    hits = found(result)
    assert {("node.py", 37, "LCM102"), ("node.py", 38, "LCM102")} <= hits   # lists the polling thread fills
    assert ("node.py", 39, "LCM102") in hits       # a target the inherited key handler nudges
    assert ("node.py", 43, "LCM702") in hits
    assert ("node.py", 35, "LCM201") not in hits   # a toggled flag is a mode, not pipeline data


def test_a_function_handed_to_a_thread_runs_on_the_data_it_is_handed(tmp_path, monkeypatch):
    result = scan(tmp_path, "teleop_app", "teleop.node:TeleopNode.act", monkeypatch)
    hits = found(result)
    assert ("recorder.py", 13, "LCM901") in hits       # np.save in the thread's target, on the observation
    assert ("recorder.py", 18, "LCM701") not in hits   # the list of thread handles holds no pipeline data


def test_numpy_arrays_held_on_self_are_known_by_how_they_are_allocated(tmp_path, monkeypatch):
    result = scan(tmp_path, "gimbal_app", "gimbal.control:Gimbal.track", monkeypatch)
    hits = found(result)
    assert ("control.py", 19, "LCM104") in hits       # the limiter returns its NumPy `self.out`
    assert ("control.py", 16, "LCM002") not in hits   # a fixed-size buffer's length is no run-time shape
    assert ("control.py", 16, "LCM702") in hits       # the slot counter is still state


def test_stages_built_through_a_registry_factory_are_followed(tmp_path, monkeypatch):
    result = scan(tmp_path, "stages_app", "stages.pipeline:Chain.run", monkeypatch)
    hits = found(result)
    assert ("filters.py", 13, "LCM702") in hits      # LowPass.__call__: the filter memory
    assert ("filters.py", 23, "LCM201") in hits      # Deadzone.__call__: a branch on the data
    assert not result.not_followed


def test_a_callable_taken_from_a_loop_over_unknown_items_is_listed(tmp_path, monkeypatch):
    result = scan(tmp_path, "stages_app", "stages.pipeline:Plugins.run", monkeypatch)
    listed = {n.line: n.reason for n in result.not_followed}
    assert "`st` is an item of `self.stages`" in listed[25]
    assert "`loaded` argument of Plugins.__init__" in listed[25]


def test_objects_a_top_level_script_passes_type_the_entry_parameters(tmp_path, monkeypatch):
    result = scan(tmp_path, "script_app", "fly:step_once", monkeypatch)
    hits = found(result)
    assert ("models.py", 11, "LCM801") in hits     # estimator(obs) runs the ScriptModule's forward
    assert ("models.py", 21, "LCM101") in hits
    assert not result.not_followed


def test_objects_a_main_function_passes_type_the_entry_parameters(tmp_path, monkeypatch):
    result = scan(tmp_path, "script_app", "replay:replay_step", monkeypatch)
    assert ("models.py", 11, "LCM801") in found(result)    # model(obs) runs StateEstimator.forward
    assert not result.not_followed


def test_a_library_base_method_runs_the_project_override(tmp_path, monkeypatch):
    result = scan(tmp_path, "hook_app", "pick.controller:Controller.act", monkeypatch)
    hits = found(result)
    assert ("table.py", 9, "LCM201") in hits                  # TableEnv._read, reached through EnvBase.step -> _step
    assert not any(code == "LCM401" or line == 16 for path, line, code in hits if path == "table.py")  # ShelfEnv
    bound = {b.line: b for b in result.bound_calls if Path(b.path).name == "controller.py"}
    assert bound[12].targets == ("pick.envs.base:PickBase._step",)
    assert "library base" in bound[12].how
    assert not any(Path(n.path).name == "controller.py" and n.line == 12 for n in result.not_followed)


def test_an_inline_range_input_built_from_a_project_class_is_typed(tmp_path, monkeypatch):
    result = scan(tmp_path, "hook_app", "pick/run.py:10-11", monkeypatch)
    assert ("sensors.py", 8, "LCM901") in found(result)       # Stamp.grab reads the clock
    assert not any(Path(f.path).name == "sensors.py" and f.line == 16 for f in result.findings)  # Replay.grab
    assert not any(Path(b.path).name == "run.py" and b.line == 10 for b in result.bound_calls)   # typed, no guess


def test_a_value_the_callee_replaces_and_an_appended_log_are_not_carried(tmp_path, monkeypatch):
    from leapp_codemod.analysis.inline.function import inline_function
    from leapp_codemod.analysis.inline.range import parse_inline_entry
    from leapp_codemod.scan.load import load_project

    root = tmp_path / "hook_app"
    shutil.copytree(FIXTURES / "hook_app", root)
    monkeypatch.chdir(root)
    fn, rng = inline_function(load_project(["."]).project, parse_inline_entry("pick/loop.py:13-16"))
    assert "sample" not in fn.carried and "sample" not in rng.state   # LiveEnv._step rebinds its argument first
    assert "trace" not in fn.carried                                  # only appended to: a log
    hits = found(scan(tmp_path / "again", "hook_app", "pick/loop.py:13-16", monkeypatch))
    assert {(path, line, code) for path, line, code in hits if path == "loop.py"} == {
        ("loop.py", 13, "LCM904")}   # no carried state: only the world's step the range starts with


def test_settings_from_a_constructor_helper_and_arguments_handed_to_the_base(tmp_path, monkeypatch):
    result = scan(tmp_path, "setup_app", "rover.fast:FastRover.step", monkeypatch)
    assert ("base.py", 16, "LCM701") not in found(result)     # window is 0: the history block never runs
    assert not any(Path(b.path).name == "base.py" for b in result.bound_calls)   # typed: UdpLink, no guess
    assert not result.not_followed


def test_a_scan_root_that_is_a_package_keeps_the_driver_sites(tmp_path, monkeypatch):
    root = tmp_path / "rovers"
    shutil.copytree(FIXTURES / "setup_app", root)
    (root / "__init__.py").write_text("")           # `rovers.rover.base` too; the driver imports `rover.base`
    monkeypatch.chdir(root)
    result = scan_project(["."], entry="rover.fast:FastRover.step")
    assert not any(Path(b.path).name == "base.py" for b in result.bound_calls)
    assert ("base.py", 16, "LCM701") not in found(result)


@pytest.mark.parametrize("entry, hit", [("walker.agent:WalkAgent.act", ("nets.py", 12, "LCM801")),
                                        ("walker.agent:HeadAgent.act", ("nets.py", 17, "LCM201"))])
def test_a_network_the_library_base_builds_from_a_named_class(tmp_path, monkeypatch, entry, hit):
    result = scan(tmp_path, "libbuilt_app", entry, monkeypatch)
    assert hit in found(result)
    assert not result.not_followed
    assert any("library base builds" in b.how for b in result.bound_calls)


def test_an_isinstance_check_on_a_loaded_network_rules_out_the_fallback(tmp_path, monkeypatch):
    result = scan(tmp_path, "loaded_app", "arm_policy:ArmPolicy.act", monkeypatch)
    assert not any(line == 15 for _, line, _ in found(result))   # the `not isinstance` block is dead


def test_an_empty_container_and_a_forwarded_setting_are_not_data(tmp_path, monkeypatch):
    result = scan(tmp_path, "sampler_app", "planner:Planner.plan", monkeypatch)
    hits = found(result)
    assert ("planner.py", 15, "LCM201") not in hits     # `if options:` -- the caller passes `{}`
    assert ("planner.py", 18, "LCM201") not in hits     # a level of the schedule built from settings only


def test_a_project_instantiate_helper_builds_what_the_yaml_target_names(tmp_path, monkeypatch):
    result = scan(tmp_path, "target_app", "grip.controller:GripController.command", monkeypatch)
    hits = found(result)
    assert ("filters.py", 17, "LCM201") in hits              # Deadband, named by conf/grip.yaml
    assert ("filters.py", 24, "LCM801") not in hits          # Passthrough: a subclass no config names
    assert any(b.targets == ("grip.filters:Deadband",) for b in result.bound_calls)
