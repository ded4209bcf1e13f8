"""Findings that are not hazards (fixtures/scan_precision): one hazard reported once, checks that only raise,
values scaled by a count, blocks a counter's own start value rules out, buffers nothing reads."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("scan_precision", tmp_path, app, entry, monkeypatch)


def test_sizes_are_reported_once_and_scaled_values_are_data(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "sizes_app", "smooth:Smoother.step", monkeypatch))
    assert ("smooth.py", 6, "LCM001") in hits          # a size handed over as a value, branched on
    assert ("smooth.py", 6, "LCM201") not in hits      # ... reported once, as a shape branch
    assert ("smooth.py", 17, "LCM002") in hits         # arithmetic in a raise-only guard: still reported
    assert ("smooth.py", 19, "LCM002") in hits         # the count mixed into a value: the baked size
    assert ("smooth.py", 20, "LCM102") in hits         # float() of the data
    assert ("smooth.py", 20, "LCM001") not in hits     # the scaled value is data, not a shape


def test_a_counter_its_start_value_keeps_out_of_its_block_rules_the_block_out(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "warmup_app", "relay:Relay.step", monkeypatch))
    assert not {(line, code) for _, line, code in hits if line in (16, 17, 18, 24)}   # hold_steps starts at 0
    assert not any(name == "main.py" for name, _, _ in hits)   # the send only the dead block calls
    assert ("relay.py", 20, "LCM201") in hits      # `settle`: reset() sets it again, outside any guard
    assert ("relay.py", 21, "LCM702") in hits


def test_a_buffer_nothing_reads_is_a_dead_store(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "unread_buffer_app", "arm:Arm.step", monkeypatch))
    assert ("arm.py", 12, "LCM703") in hits        # `self.obs`, filled then handed to the network
    assert not {code for _, line, code in hits if line in (14, 15)}   # `self.trace`: written, never read


def test_a_draw_only_a_block_the_callers_rule_out_reads_is_not_reported(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "idle_noise_app", "settle:Settler.act", monkeypatch))
    assert ("settle.py", 7, "LCM801") not in hits   # `boost` is 0 for every call: `kick` is never used
    assert ("settle.py", 16, "LCM801") in hits      # `shake(..., churn=0.8)`: the noise is added


def test_a_size_handed_to_a_tensor_method_is_not_mutated_state(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "sized_pick_app", "picker:Picker.step", monkeypatch))
    assert ("picker.py", 14, "LCM201") not in hits   # `self.k` only given to `scores.topk`: a constant size
    assert ("picker.py", 16, "LCM201") in hits       # `self.gain` handed to a project helper that scales it


def test_fields_of_a_record_compared_with_strings_are_not_tensor_branches(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "ui_events_app", "teleop:Teleop.step", monkeypatch))
    assert ("teleop.py", 11, "LCM201") not in hits   # `msg.kind == "tap" and msg.down`: a UI event's fields
    assert ("teleop.py", 14, "LCM201") not in hits   # `name in ("pad", "wheel")`: a name, never a tensor
    assert ("teleop.py", 16, "LCM201") in hits       # `obs.sum() > 0`: the data, still reported


def test_training_arms_are_not_the_exported_pipeline(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "collect_mode_app", "pilot:Pilot.act", monkeypatch))
    assert ("pilot.py", 5, "LCM801") not in hits    # `jitter`, called only under `if is_training:` in `_head`
    assert ("pilot.py", 25, "LCM801") not in hits   # after `if not is_training: return`: the collect path
    assert ("pilot.py", 20, "LCM201") in hits       # the inference path stays scanned


def test_a_step_counter_only_tests_and_indexes_read_is_named_once_on_the_plan(tmp_path, monkeypatch):
    result = scan(tmp_path, "chunk_counter_app", "chunker:Chunker.act", monkeypatch)
    hits = found(result)
    assert not {(line, code) for _, line, code in hits if line in (23, 25, 26, 27, 28)}   # `self.tick`'s uses
    plan = [f for f in result.findings if f.line == 24 and f.code == "LCM702"]   # the chunk the step carries
    assert plan and "self.tick" in plan[0].message and "line 23" in plan[0].message
    assert ("chunker.py", 21, "LCM701") in hits   # `self.gait_steps` feeds the observation: a real hazard
    assert ("chunker.py", 22, "LCM102") in hits


def test_state_written_in_one_mode_and_read_only_in_the_other_is_not_carried(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "mode_arms_app", "follower:Follower.step", monkeypatch))
    assert ("follower.py", 15, "LCM702") not in hits   # written in live mode, read only after `if self.replay:`
    assert ("follower.py", 21, "LCM702") in hits       # read and written in the same mode: carried
    assert ("follower.py", 23, "LCM702") in hits       # read before the write on every path


def test_a_clock_read_whose_value_reaches_nothing_is_not_reported(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "unused_clock_app", "balancer:Balancer.step", monkeypatch))
    assert ("balancer.py", 13, "LCM901") not in hits   # `self.began`: no code of the project reads it
    assert ("balancer.py", 15, "LCM901") not in hits   # `finished`: a dead local
    assert ("balancer.py", 16, "LCM901") in hits       # the time feeds the output
    assert ("balancer.py", 17, "LCM901") in hits       # `self.stamp`: `since` reads it


def test_a_module_tensor_built_from_literals_is_a_constant(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "constant_table_app", "mapper:Mapper.step", monkeypatch))
    assert ("mapper.py", 10, "LCM101") not in hits   # `ORDER[i].item()`: a literal index table
    assert ("mapper.py", 18, "LCM701") in hits       # `TRIM` is written by the step: state
    assert ("mapper.py", 19, "LCM101") in hits       # ... and its item is pipeline data


def test_the_length_of_a_list_the_settings_fill_is_no_shape_even_if_rebound_later(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "rebound_list_app", "fuser:Fuser.step", monkeypatch))
    assert ("fuser.py", 14, "LCM001") not in hits   # one entry per configured key; `parts` rebound after the test
    assert ("fuser.py", 19, "LCM001") in hits       # one entry per row of the data: a run-time shape


def test_a_keyword_no_call_puts_in_forwarded_kwargs_takes_its_default(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "forwarded_kwargs_app", "agent:Agent.act", monkeypatch))
    assert ("agent.py", 12, "LCM801") not in hits   # `kw.get("goal")` is None: `goal is None` returns first
    hits = found(scan(tmp_path / "again", "forwarded_kwargs_app", "agent:Agent.pursue", monkeypatch))
    assert ("agent.py", 12, "LCM801") in hits       # `goal=target` is passed: the draw runs
    hits = found(scan(tmp_path / "third", "forwarded_kwargs_app", "agent:Agent.glide", monkeypatch))
    assert ("agent.py", 12, "LCM801") not in hits   # `**{"goal": target}` with `target` at its None default


def test_a_counter_of_events_in_the_data_stays_reported(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "chunk_counter_app", "watch:Watch.step", monkeypatch))
    assert ("watch.py", 12, "LCM701") in hits   # `self.alarms += 1` under `if obs.abs().max() > 3.0:`
    assert ("watch.py", 13, "LCM201") in hits   # the count of data events decides the refresh


def test_command_line_flags_and_the_settings_a_caller_stores_with_the_state_are_not_data(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "cli_flags_app", "glide:control_tick", monkeypatch))
    assert ("glide.py", 10, "LCM201") not in hits   # `smoothing_on`: `opts.smooth` from parse_known_args
    assert ("glide.py", 14, "LCM201") not in hits   # `memo["clip"]`: the caller stores `opts.clip_limit` there
    assert ("glide.py", 18, "LCM201") not in hits   # `safe_mode`: read from the environment
    assert ("glide.py", 20, "LCM201") in hits       # the action itself: still a tensor branch


def test_node_parameters_and_the_fields_an_object_was_built_with_are_not_data(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "node_settings_app", "pilot:Pilot.step", monkeypatch))
    assert ("pilot.py", 39, "LCM201") not in hits   # `self.side`: a node parameter, a string method on it
    assert ("pilot.py", 41, "LCM201") not in hits   # `self.brain.arms`: read from the spec file at construction
    assert ("pilot.py", 43, "LCM201") in hits       # the camera frame: still a tensor branch


def test_lookups_on_a_simulator_model_loaded_once_are_not_data(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "sim_model_app", "balance:balance", monkeypatch))
    assert ("balance.py", 9, "LCM401") not in hits    # `mj_name2id(model, ..., "imu")`: a constant of the run
    assert ("balance.py", 10, "LCM201") not in hits   # `if site < 0`: the same constant
    assert ("balance.py", 21, "LCM201") in hits       # the torque: still a tensor branch


def test_a_function_that_only_reports_has_its_io_as_the_one_finding(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "debug_printer_app", "arm:reach", monkeypatch))
    assert not {(line, code) for _, line, code in hits if line in (10, 11, 13)}   # computed only for the log
    assert ("arm.py", 15, "LCM901") in hits    # the log call itself
    assert ("arm.py", 22, "LCM102") in hits    # float() of the output, used in the result


def test_a_watchdog_on_the_time_since_the_last_message_is_host_logic(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "stale_watchdog_app", "rover:Rover.drive", monkeypatch))
    assert ("rover.py", 22, "LCM901") not in hits   # the clock read feeds only the stale-input check
    assert ("rover.py", 23, "LCM201") not in hits   # `heard_at` is a timestamp, not a value of the message
    assert ("rover.py", 25, "LCM901") not in hits   # the watchdog's error log: host-side, off the model's path
    assert ("rover.py", 28, "LCM201") in hits       # the command: still a tensor branch


def test_arrays_built_from_message_fields_are_the_input_boundary(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "message_input_app", "glider:Glider.fly", monkeypatch))
    assert ("glider.py", 26, "LCM102") not in hits   # torch.tensor of a copied message's fields: the input
    assert ("glider.py", 27, "LCM301") not in hits   # np.asarray of a stored message's field: the input
    assert ("glider.py", 33, "LCM301") not in hits   # the fields of what a transform lookup returned
    assert ("glider.py", 30, "LCM301") in hits       # a traced output packed into a list: still lost
    assert ("glider.py", 31, "LCM901") in hits       # the lookup itself is I/O


def test_a_clock_read_kept_on_self_only_to_log_the_interval_is_host_timing(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "interval_log_app", "pacer:Pacer.infer", monkeypatch))
    assert ("pacer.py", 16, "LCM901") not in hits   # `stamp`: logged, and kept in `self.last_stamp` only to log
    assert ("pacer.py", 19, "LCM901") not in hits   # the log call reports only that host timing
    assert ("pacer.py", 21, "LCM901") in hits       # a clock read that feeds the action


def test_a_list_the_step_only_fills_is_write_only_not_state(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "write_only_log_app", "gripper:Gripper.close", monkeypatch))
    assert ("gripper.py", 16, "LCM701") not in hits   # `self.sent.append`: nothing reads the list
    assert ("gripper.py", 17, "LCM701") not in hits   # `self.sent.extend`: the same list
    assert ("gripper.py", 13, "LCM701") in hits       # `self.seen`: read back by the next call's stack


def test_a_tally_a_data_branch_advances_and_only_a_log_reads_is_not_state(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "logged_tally_app", "sorter:Sorter.classify", monkeypatch))
    assert ("sorter.py", 19, "LCM701") not in hits   # `self.rejects += 1`: read only by the log in note()
    assert ("sorter.py", 20, "LCM701") in hits       # `self.hits += 1`: scales the returned score
    assert ("sorter.py", 26, "LCM901") not in hits   # the tally's log: off the model's path (scan/model_path.py)


def test_an_attribute_rebuilt_and_read_inside_one_data_branch_is_scratch(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "replan_scratch_app", "planner:Planner.act", monkeypatch))
    assert ("planner.py", 14, "LCM702") not in hits   # `self.legs = {...}`: read only after it, in the branch
    assert ("planner.py", 15, "LCM701") not in hits   # the entry added to that fresh dict
    assert ("planner.py", 17, "LCM702") in hits       # `self.detour`: reads the previous call's value
    assert ("planner.py", 13, "LCM201") in hits       # the data branch itself


def test_flags_imported_from_a_settings_module_rule_their_blocks_out(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "settings_module_app", "rover/pilot.py:Pilot.drive", monkeypatch))
    assert ("pilot.py", 39, "LCM102") in hits   # `options.ADAPTIVE_GAIN`: a script assigns it
    assert not {(line, code) for _, line, code in hits if line != 39}, hits


def test_a_field_of_the_same_name_another_class_reads_on_its_own_self_is_not_this_objects(tmp_path):
    # `self.prev_err` in a training environment elsewhere is that environment's field: it does not keep this
    # controller's bookkeeping alive; a subclass's `self.prev_err` and a read through another receiver still do
    import types

    from leapp_codemod.analysis.infer.state_liveness import StateLivenessQuestions
    from leapp_codemod.analysis.infer.telemetry import attribute_reads
    from leapp_codemod.scan.load import load_project
    (tmp_path / "m.py").write_text(
        "class Rover:\n    def track(self, e):\n        self.prev_err = e\n\n"
        "class Fast(Rover):\n    def gain(self):\n        return self.prev_err\n\n"
        "class Env:\n    def reward(self, e):\n        return self.prev_err - e\n\n"
        "def report(rover):\n    return rover.prev_err\n", encoding="utf-8")
    project = load_project([str(tmp_path)]).project
    rover = project.modules["m"].classes["Rover"]
    asker = types.SimpleNamespace(project=project, cls=rover)
    owners = {fn.qualname: StateLivenessQuestions._another_classes_own(asker, fn, node)
              for fn, node in attribute_reads(project)["prev_err"] if fn is not None}
    assert owners == {"Fast.gain": False, "Env.reward": True, "report": False}
