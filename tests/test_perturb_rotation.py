"""Validation inputs vary every input on its manifold: an attitude given as rotation matrices (the
same in every recorded call, as for a robot standing level) is turned by small rotations, so the
varied inputs are still rotations and none equals the recorded one."""
from __future__ import annotations

import numpy as np
import torch

from leapp_codemod.runner.perturb import is_rotation_matrix, perturbed_inputs


def _rotz(a):
    return np.array([[np.cos(a), -np.sin(a), 0.0], [np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])


def test_rotation_matrices_stay_rotations_and_move():
    level = torch.from_numpy(np.stack([np.eye(3), _rotz(0.4)]).astype(np.float32))   # two bodies, constant
    calls = [{"attitude": level.clone(), "cmd": torch.randn(3)} for _ in range(4)]
    assert is_rotation_matrix([c["attitude"].numpy() for c in calls])
    assert not is_rotation_matrix([2.0 * np.eye(3)]) and not is_rotation_matrix([np.diag([1.0, 1.0, -1.0])])
    for out in perturbed_inputs(calls, 6):
        m = out["attitude"].numpy().astype(np.float64)
        assert out["attitude"].dtype == torch.float32 and m.shape == (2, 3, 3)
        assert np.allclose(np.swapaxes(m, -1, -2) @ m, np.eye(3), atol=1e-5)
        assert np.allclose(np.linalg.det(m), 1.0, atol=1e-5)
        assert not np.allclose(m, level.numpy(), atol=1e-4)
