"""`run`'s pre-trace check traces each replacement alone under LEAPP: an argument the original
depends on must reach the graph, a result the original computes from its arguments must be traced,
and a Python number must not come back as a 0-d array that changes the dtype of float32 arithmetic
downstream. Each replacement below agrees with its original on values, so only these checks see it."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from leapp_codemod.generate.twin_helpers import twin_scalar
from leapp_codemod.runner.intercept import PatchCall
from leapp_codemod.runner.twincheck import check_patch, promotion

pytestmark = pytest.mark.slow


def _check(replacement, original, *args, trace=True, tmp_path=None, **kwargs):
    patch = SimpleNamespace(module="rover.steer", name="to_body", replacement=replacement, original="rover.steer:f",
                            hazards=("rover/steer.py:4 scalar-extraction",))
    return check_patch(patch, original, [PatchCall(patch, args, kwargs)], workdir=tmp_path if trace else None)


def heading_error(goal, pose):
    """Goal in the robot frame: planar pose unpacked into Python numbers."""
    x, y, yaw = pose
    c, s = np.cos(yaw), np.sin(yaw)
    dx, dy = goal[0] - x, goal[1] - y
    return np.array([c * dx + s * dy, -s * dx + c * dy])


def heading_error_unpacked(goal, pose):      # what a twin that kept the unpacking traces
    x, y, yaw = pose
    c, s = np.cos(yaw), np.sin(yaw)
    dx, dy = goal[0:1] - x, goal[1:2] - y
    return np.concatenate([c * dx + s * dy, -s * dx + c * dy])


def heading_error_sliced(goal, pose):        # the twin the unpacking rule writes
    x, y, yaw = pose[0:1], pose[1:2], pose[2:3]
    c, s = np.cos(yaw), np.sin(yaw)
    dx, dy = goal[0:1] - x, goal[1:2] - y
    return np.concatenate([c * dx + s * dy, -s * dx + c * dy])


GOAL, POSE = np.array([2.0, 1.0]), np.array([0.5, -0.25, 0.3])


def test_values_agree_but_the_trace_drops_the_pose(tmp_path):
    assert _check(heading_error_unpacked, heading_error, GOAL, POSE, trace=False)["ok"]
    row = _check(heading_error_unpacked, heading_error, GOAL, POSE, tmp_path=tmp_path)
    assert not row["ok"] and row["traced"] is False
    assert row["error"].startswith("argument `pose` changes the original's result but reaches no output")


def test_the_sliced_twin_keeps_every_argument_in_the_trace(tmp_path):
    row = _check(heading_error_sliced, heading_error, GOAL, POSE, tmp_path=tmp_path)
    assert row["ok"] and row["traced"] is True, row.get("error")


def test_an_argument_the_original_ignores_may_be_dropped(tmp_path):
    def original(goal, pose):
        return goal * 2.0 + 0.0 * float(pose.sum() > 1e9)

    row = _check(lambda goal, pose: goal * 2.0, original, GOAL, POSE, tmp_path=tmp_path)
    assert row["ok"], row.get("error")


def test_a_result_computed_in_python_numbers_is_not_traced(tmp_path):
    def speed(vel):
        return np.hypot(vel[0], vel[1])

    def speed_python(vel):
        vx, vy = (float(v) for v in vel)
        return np.asarray((vx * vx + vy * vy) ** 0.5)

    row = _check(speed_python, speed, np.array([0.3, -0.4]), tmp_path=tmp_path)
    assert not row["ok"] and "is not traced" in row["error"], row.get("error")


def test_a_copy_leapp_does_not_follow_is_caught(tmp_path):
    def reverse(v):
        return v[::-1] * 1.0

    def reverse_contiguous(v):
        return np.ascontiguousarray(v[::-1]) * 1.0      # a copy LEAPP does not follow

    assert _check(reverse_contiguous, reverse, np.arange(4.0), trace=False)["ok"]
    row = _check(reverse_contiguous, reverse, np.arange(4.0), tmp_path=tmp_path)
    assert not row["ok"] and ("is not traced" in row["error"] or "LEAPP" in row["error"]), row


def test_a_float_that_comes_back_as_a_float64_array_changes_float32_math():
    def mean_torque(tau):
        return float(tau.mean())

    wide = _check(lambda tau: tau.mean().astype(np.float64), mean_torque, np.ones(6, np.float32), trace=False)
    assert not wide["ok"] and "float32 arithmetic downstream gives float64 instead of float32" in wide["error"]
    kept = _check(lambda tau: twin_scalar(tau.mean(), "float"), mean_torque, np.ones(6, np.float32), trace=False)
    assert kept["ok"], kept.get("error")


@pytest.mark.parametrize("value", [np.float32(1.5), np.array(1.5, np.float32), torch.tensor(1.5)])
def test_twin_scalar_float_keeps_a_floating_dtype(value):
    assert promotion(float(value), twin_scalar(value, "float")) is None
    assert twin_scalar(np.array([3], np.int32), "float").dtype == np.float64


def test_array_item_helpers_keep_values_and_python_behaviour():
    from leapp_codemod.generate.twin_helpers import twin_array, twin_item, twin_take, twin_unpack

    pose = np.array([0.5, -0.25, 0.3], np.float32)
    x, y, yaw = twin_unpack(pose, 3)
    assert [v.shape for v in (x, y, yaw)] == [(1,)] * 3 and float(yaw[0]) == pytest.approx(0.3)
    assert twin_unpack((1, "a"), 2) == (1, "a") and twin_unpack({"k": 1, "j": 2}, 2) == ("k", "j")
    with pytest.raises(ValueError, match="cannot unpack 3 values into 2 names"):
        twin_unpack(pose, 2)
    rows = twin_unpack(np.arange(6.0).reshape(3, 2), 3)                # a higher rank unpacks as Python does
    assert [r.shape for r in rows] == [(2,)] * 3
    assert twin_item(pose, -1).tolist() == [pytest.approx(0.3)] and twin_item([4, 5], 1) == 5
    built = twin_array([x * 2.0, y, 1.0])                              # np.array([...]) of the scalars
    want = np.array([pose[0] * 2.0, pose[1], 1.0])
    assert built.shape == want.shape and built.dtype == want.dtype and np.allclose(built, want)
    nested = twin_array([[x, y], [y, x]])
    assert nested.shape == (2, 2) and np.allclose(nested, [[0.5, -0.25], [-0.25, 0.5]])
    table = [0.4, 0.8, 1.5]
    gathered = twin_take(table, torch.tensor(2))
    assert isinstance(gathered, torch.Tensor) and gathered.ndim == 0 and float(gathered) == pytest.approx(1.5)
    assert twin_take(table, 1) == 0.8
    picked = twin_take(table, np.array(0))          # one number as a one-element array (it stays traced)
    assert picked.shape == (1,) and picked[0] == pytest.approx(0.4)


def bearing(yaw_deg):
    """Unit heading vectors from yaws in degrees (`np.deg2rad` is not mapped by LEAPP 0.7.2)."""
    yaw = np.deg2rad(yaw_deg)
    return np.stack([np.cos(yaw), np.sin(yaw)], axis=-1)


def test_a_twin_is_traced_with_the_pipelines_other_patches_active(tmp_path):
    """A twin that calls a function another FunctionPatch replaces (here `np.deg2rad`, by its adapter)
    traces in the pipeline; checked alone without that patch it looked untraced and was refused."""
    import leapp

    from leapp_codemod.adapters import ADAPTERS

    patch = SimpleNamespace(module="nav.heading", name="bearing", replacement=bearing, original="nav.heading:bearing",
                            hazards=("nav/heading.py:3 unmapped-numpy",))
    calls = [PatchCall(patch, (np.array([10.0, -45.0, 120.0], np.float32),), {})]
    alone = check_patch(patch, bearing, calls, workdir=tmp_path)
    assert not alone["ok"] and "is not traced" in alone["error"], alone
    with_patches = check_patch(patch, bearing, calls, workdir=tmp_path, patching=lambda: [
        leapp.FunctionPatch(np, "deg2rad", ADAPTERS["numpy.deg2rad"].function)])
    assert with_patches["ok"] and with_patches["traced"] is True, with_patches.get("error")


COMMANDS = np.array([[0.0, 0.0], [0.3, 0.0], [0.0, 0.5]], dtype=np.float32)


def command_for(action):
    """A discrete action picks a row of a command table (an integer index, no floating argument)."""
    return COMMANDS[int(action)]


def test_a_replacement_with_no_floating_argument_is_not_called_traced(tmp_path):
    """Nothing can be declared a LEAPP input for an integer index, so the check compares values only and
    says so: never `traced: true` on a check that traced nothing."""
    row = _check(lambda action: COMMANDS[action], command_for, np.int64(2), tmp_path=tmp_path)
    assert row["ok"] is True and row["samples"] >= 1
    assert row["traced"] is None
    assert row["note"].startswith("not traced alone: the recorded call passes no floating array")


def test_a_replacement_with_a_floating_argument_is_still_traced(tmp_path):
    row = _check(heading_error_sliced, heading_error, GOAL, POSE, tmp_path=tmp_path)
    assert row["traced"] is True and "note" not in row


TILT_SOURCE = """import numpy as np


def f(q):
    w, x, y, z = q[0], q[1], q[2], q[3]
    gx = 2.0 * (w * y - x * z)
    gy = -2.0 * (w * x + y * z)
    return np.stack([gx, gy, 1.0 - 2.0 * (x * x + y * y)]).astype(np.float32)
"""


def test_a_stack_of_numbers_computed_from_item_slices_matches_the_original_under_a_trace(tmp_path):
    """The twin keeps `q[k]` as one-element slices; stacking numbers computed from them with `np.stack`
    would give shape (3, 1) where the original gives (3,), so the twin joins them (`twin_array`)."""
    from leapp_codemod.generate import twin_helpers
    from leapp_codemod.generate.adapters import registry
    from leapp_codemod.generate.twin import Example, run_example

    twin = run_example(Example(TILT_SOURCE, (("scalar-extraction", "w, x, y, z = q[0], q[1], q[2], q[3]"),)),
                       registry())
    assert "twin_array([gx, gy" in twin.source, twin.source
    original, replacement = {}, {**vars(twin_helpers), "np": np}
    exec(TILT_SOURCE, original)  # noqa: S102 - the original and its generated twin, run side by side
    exec(twin.source, replacement)  # noqa: S102
    quat = np.array([0.96, 0.1, -0.2, 0.15], dtype=np.float32)
    assert replacement["f"](quat).shape == original["f"](quat).shape == (3,)
    row = _check(replacement["f"], original["f"], quat, tmp_path=tmp_path)
    assert row["ok"] and row["traced"] is True, row.get("error")
