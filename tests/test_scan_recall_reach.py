"""Rule reach on forms of deploy code (fixtures/scan_recall_reach): a method of a foreign object built from
pipeline data, the items of a NumPy vector taken out by implicit iteration (`zip`, `dict(zip(...))`,
`list.extend`), and the rest of the forms listed in the fixture's README."""
from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner
from scanfixture import FIXTURES, found, scan_copy

from leapp_codemod.cli import main


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("scan_recall_reach", tmp_path, app, entry, monkeypatch)


def test_a_method_of_a_stored_foreign_object_built_from_data_is_foreign(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "level_app", "level:Leveler.act", monkeypatch))
    assert ("level.py", 16, "LCM401") in hits    # Rotation.from_rotvec(imu[:3]), an argument of data
    assert ("level.py", 20, "LCM401") in hits    # self.frame.as_matrix(): no argument, the receiver is data
    assert ("level.py", 22, "LCM401") not in hits   # self.sim.sensor(...): a simulator state built once


def test_items_taken_out_by_implicit_iteration_are_extractions(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "joint_app", "joints:JointBridge.command", monkeypatch))
    assert ("joints.py", 16, "LCM104") in hits   # for joint, a in zip(JOINTS, act): a * gain
    assert ("joints.py", 18, "LCM104") in hits   # dict(zip(JOINTS, act))
    assert ("joints.py", 20, "LCM104") in hits   # trail.extend(act)


def test_zipped_items_never_used_as_numbers_are_not_extractions(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "joint_app", "joints:JointBridge.labels", monkeypatch))
    assert not any(code == "LCM104" for _, _, code in hits)


def test_calling_the_module_itself_runs_its_forward(tmp_path, monkeypatch):
    result = scan(tmp_path, "chunk_app", "chunker:Chunker.act", monkeypatch)
    assert ("chunker.py", 14, "LCM801") in found(result)   # torch.randn in forward, reached through self(obs)
    assert not any(n.text == "self(...)" for n in result.not_followed)


def test_a_project_call_then_the_library_call_through_super_reach_forward(tmp_path, monkeypatch):
    result = scan(tmp_path, "chunk_app", "chunker:Smoothed.act", monkeypatch)
    assert ("chunker.py", 14, "LCM801") in found(result)   # self(obs) -> __call__ -> super().__call__ -> forward


def test_a_buffer_bound_differently_per_branch_is_a_scratch_buffer(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "mix_app", "mixer:Mixer.blend", monkeypatch))
    assert ("mixer.py", 19, "LCM703") in hits    # np.zeros(6) in one arm, REST.copy() (the later line) in the other


def test_a_dict_copied_in_one_arm_is_no_buffer(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "mix_app", "mixer:Mixer.settings", monkeypatch))
    assert not any(code == "LCM703" for _, _, code in hits)


def _entries(tmp_path, app: str, monkeypatch) -> list[dict]:
    """`entrypoints --format json --limit 0` on a copy of the app."""
    root = tmp_path / app
    shutil.copytree(FIXTURES / "scan_recall_reach" / app, root)
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["entrypoints", ".", "--format", "json", "--limit", "0"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["entrypoints"]

def test_a_planning_policy_whose_class_has_reset_is_not_an_environment(tmp_path, monkeypatch):
    ranked = _entries(tmp_path, "wrapper_app", monkeypatch)
    assert ranked[0]["entry"] == "planner:Planner.step"      # reaches its networks through encode/decode
    assert not any("environment" in r for r in ranked[0]["reasons"])
    arena = [e for e in ranked if e["entry"] == "arena:Arena.step"]
    assert not arena or any("environment" in r for r in arena[0]["reasons"])   # it steps the physics


def test_a_step_on_a_class_picked_by_getattr_from_a_package_gets_the_loop(tmp_path, monkeypatch):
    ranked = _entries(tmp_path, "kind_app", monkeypatch)
    for want in ("rigs.hover:HoverRig.step", "rigs.walk:WalkRig.step"):
        step = next(e for e in ranked if e["entry"] == want)
        assert any(r.startswith("called in a loop by main (launch.py:25)") for r in step["reasons"])


def test_a_step_on_a_class_declared_as_type_of_gets_the_loop(tmp_path, monkeypatch):
    ranked = _entries(tmp_path, "typed_app", monkeypatch)
    assert ranked[0]["entry"] == "pilots:Pilot.step"
    assert any(r.startswith("called in a loop by main (fly.py:13)") for r in ranked[0]["reasons"])


def test_an_array_sized_by_a_masked_selection_is_shape_specialization(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "vote_app", "vote:Voter.choose", monkeypatch))
    assert ("vote.py", 13, "LCM002") in hits     # np.ones(strong.shape[0]), strong = scores[scores > floor]


def test_an_array_sized_by_the_whole_batch_is_not(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "vote_app", "vote:Voter.smooth", monkeypatch))
    assert ("vote.py", 18, "LCM002") not in hits  # np.arange(len(scores)): the batch, fixed by the deployment


def test_a_counter_on_self_advanced_by_a_callback_is_a_python_number(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "stride_app", "stride:Strider.act", monkeypatch))
    assert ("stride.py", 18, "LCM103") in hits   # self.beat / self.period, self.beat += 1 in after_step
    assert not any(line == 22 and code == "LCM103" for _, line, code in hits)   # a replan test: left to state


def test_message_fields_read_by_getattr_and_messages_passed_by_keyword(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "arm_app", "arm_node:ArmNode.on_state", monkeypatch))
    # the fields of the message the callback received are the input being made (the input boundary)
    assert ("arm_node.py", 8, "LCM301") not in hits    # pos = getattr(state, "position", []), state passed as state=msg
    assert ("arm_node.py", 12, "LCM301") not in hits   # np.asarray(getattr(state, "effort", [])), passed positionally


def test_a_getattr_by_a_shaped_name_lists_only_the_properties_of_that_shape(tmp_path, monkeypatch):
    from scanfixture import check_marked
    check_marked("scan_recall_reach", tmp_path, monkeypatch, "term_dispatch_app", "perception:Perception.encode")
    result = scan(tmp_path / "again", "term_dispatch_app", "perception:Perception.encode", monkeypatch)
    listed = {(n.line, n.text) for n in result.not_followed}
    assert listed == {(30, "getattr(self, probe)")}   # `term + "_features"` cannot name the property `speed`


def test_an_unpickled_receivers_class_the_script_imports_is_followed_among_many(tmp_path, monkeypatch):
    from scanfixture import check_marked
    check_marked("scan_recall_reach", tmp_path, monkeypatch, "unpickled_agent_app", "play.py:10-11")
    result = scan(tmp_path / "again", "unpickled_agent_app", "play.py:10-11", monkeypatch)
    assert not result.not_followed
    bound = {(b.line, b.targets) for b in result.bound_calls}
    assert (10, ("agents.ppo:PPOAgent.act",)) in bound
