"""Rule gaps on reached code (fixtures/scan_recall_gaps): scratch buffers from every NumPy allocator (identity
matrices, `_like` allocations, shapes read off the data), tensors turned into Python bools by `not`/`and`/`or`
outside a test, libraries LEAPP cannot trace named by module, and a slice of an array that grows every call."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("scan_recall_gaps", tmp_path, app, entry, monkeypatch)


def test_scratch_buffers_from_identity_and_like_allocators(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "alloc_app", "frames:Pose.forward", monkeypatch))
    assert ("frames.py", 7, "LCM703") in hits       # np.identity(4) filled with a traced rotation
    assert ("frames.py", 8, "LCM703") in hits
    # np.empty_like(x) of a traced array is itself traced in LEAPP 0.7.2 (its `__array_function__` maps the `_like`
    # allocators to torch's): writes into it are traced, no LCM703 (see LEAPP_TRACED_LIKE in scratch_buffer)
    assert ("frames.py", 21, "LCM703") not in hits
    assert ("frames.py", 14, "LCM703") in hits      # np.zeros(trans.shape[:-1] + (4, 4), dtype=trans.dtype)
    assert ("frames.py", 15, "LCM703") not in hits  # a constant written into it


def test_not_and_or_on_a_tensor_outside_a_test(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "bool_app", "gate:Gate.forward", monkeypatch))
    assert ("gate.py", 12, "LCM202") in hits        # idle = not touching
    assert ("gate.py", 13, "LCM202") in hits        # the tensor is an operand `and` converts
    assert ("gate.py", 14, "LCM202") not in hits    # the tensor is the last operand: returned as it is
    assert ("gate.py", 16, "LCM202") not in hits    # `if not touching`: LCM201's, reported once
    assert ("gate.py", 16, "LCM201") in hits
    assert ("gate.py", 19, "LCM202") not in hits    # `self.enabled or False`: a setting


def test_calls_on_the_function_a_selector_returns_are_followed(tmp_path, monkeypatch):
    result = scan(tmp_path, "select_app", "shaping:Head.forward", monkeypatch)
    hits = found(result)
    assert ("shaping.py", 6, "LCM301") in hits      # shaper_for(self.kind)(y): an if-chain returns clip_unit ...
    assert ("shaping.py", 14, "LCM301") in hits     # ... or wrap
    assert ("shaping.py", 10, "LCM301") in hits     # self.pick("squash")(y): a table lookup a method returns
    assert not result.not_followed


def test_a_selector_whose_callable_stays_unknown_is_listed(tmp_path, monkeypatch):
    result = scan(tmp_path, "select_app", "shaping:Mixer.forward", monkeypatch)
    listed = {(n.line, n.text) for n in result.not_followed}
    assert (51, "opaque(self.kind)(...)") in listed
    assert ("shaping.py", 14, "LCM301") in found(result)


def test_rotation_helpers_of_robotics_stacks_are_foreign_even_when_not_installed(tmp_path, monkeypatch):
    result = scan(tmp_path, "ros_app", "pose_node:PoseNode.on_pose", monkeypatch)
    hits = found(result)
    assert ("pose_node.py", 15, "LCM401") in hits   # tf.transformations.quaternion_matrix
    assert ("pose_node.py", 16, "LCM401") in hits   # tf_transformations.euler_from_quaternion
    assert ("pose_node.py", 17, "LCM401") in hits   # tf2_geometry_msgs.do_transform_pose
    assert not any(n.line in (15, 16, 17) for n in result.not_followed)


def test_an_inline_range_follows_the_objects_the_callers_of_its_function_pass(tmp_path, monkeypatch):
    """`sampler` is a parameter of the function around the range; its caller builds it in an if-chain with
    function-local imports. Seven project classes define `draw`, too many for duck typing."""
    result = scan(tmp_path, "local_import_app", "evaluate.py:6-8", monkeypatch)
    hits = found(result)
    assert ("flow.py", 9, "LCM801") in hits          # FlowSampler.draw: torch.randn
    assert ("greedy.py", 9, "LCM201") in hits        # GreedySampler.draw: a branch on the condition
    assert not any(path == "others.py" for path, _, _ in hits)   # classes no caller passes are not guessed
    assert not result.not_followed


def test_flags_already_python_bools_and_toggles_are_not_conversions(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "bool_app", "gate:Latch.forward", monkeypatch))
    assert ("gate.py", 24, "LCM202") in hits        # not torch.all(...)
    assert ("gate.py", 25, "LCM202") in hits        # not contacts.any() (moving is a Python bool already)
    assert ("gate.py", 26, "LCM202") not in hits    # self.enabled = not self.enabled: a flag flipped
    assert ("gate.py", 27, "LCM202") not in hits    # both operands hold Python bools


def test_pipeline_values_formatted_into_text_the_step_keeps(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "text_app", "speaker:Speaker.forward", monkeypatch))
    assert ("speaker.py", 19, "LCM102") in hits     # self.line = f"MOVE {v[0]:.3f} ...": a command built from data
    assert ("speaker.py", 16, "LCM102") not in hits  # note: only printed
    assert ("speaker.py", 18, "LCM102") not in hits  # inside a logging call
    assert ("speaker.py", 20, "LCM102") not in hits  # a shape, not a value
    assert ("speaker.py", 21, "LCM102") not in hits  # a message, printed and raised


def test_a_fixed_slice_of_the_end_of_a_growing_array(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "window_app", "smoother:Smoother.step", monkeypatch))
    assert ("smoother.py", 23, "LCM002") in hits     # rows grow by one per call, no trim
    assert ("smoother.py", 24, "LCM002") not in hits  # trail is trimmed to 4 rows where it grows


def test_a_list_of_pipeline_values_bound_to_a_name_before_the_join(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "join_app", "tracker:Tracker.step", monkeypatch))
    assert ("tracker.py", 13, "LCM304") in hits     # extra = [heading, ...]; np.concatenate([pose, extra])
    assert ("tracker.py", 14, "LCM304") not in hits  # bounds: constants only
