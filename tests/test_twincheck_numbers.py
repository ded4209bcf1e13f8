"""The pre-trace value check takes a twin's one-element array where the original returns a number (the
shape `twin_unpack` keeps NumPy numbers in, so that LEAPP traces them), and still refuses any other shape
or value (no LEAPP: values only)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from leapp_codemod.generate.twin_helpers import twin_unpack
from leapp_codemod.runner.intercept import PatchCall
from leapp_codemod.runner.twincheck import check_patch


def pitch_of(quat):          # a quaternion unpacked into NumPy numbers: the result is a NumPy float64
    w, x, y, z = quat
    return np.arcsin(np.clip(2.0 * (w * y - z * x), -1.0, 1.0))


def pitch_of_twin(quat):     # what the twin computes: one-element slices, a one-element result
    w, x, y, z = twin_unpack(quat, 4)
    return np.arcsin(np.clip(2.0 * (w * y - z * x), -1.0, 1.0))


def _check(replacement):
    patch = SimpleNamespace(module="arm.imu", name="pitch_of", replacement=replacement, original="arm.imu:pitch_of",
                            hazards=("arm/imu.py:2 scalar-extraction",))
    q = np.array([0.96, 0.1, 0.2, 0.15])
    return check_patch(patch, pitch_of, [PatchCall(patch, (q / np.linalg.norm(q),), {})])


def test_a_number_kept_as_a_one_element_array_agrees():
    row = _check(pitch_of_twin)
    assert row["ok"] and row["samples"] > 1, row


def test_other_shapes_and_values_still_disagree():
    assert "expected shape ()" in _check(lambda q: np.repeat(pitch_of_twin(q), 2))["error"]
    assert not _check(lambda q: pitch_of_twin(q) + 0.1)["ok"]
