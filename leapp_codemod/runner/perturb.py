"""Validation inputs that vary every input: each floating tensor/array leaf is drawn inside the range
the recorded calls showed for it (element by element), unit quaternions stay on the unit sphere,
rotation matrices stay rotations (turned by a small random rotation), and a leaf that never changed is
nudged so that a constant-looking input cannot hide a dropped one."""
from __future__ import annotations

import numpy as np
import torch

from leapp_codemod import boundary

NUDGE = 0.02            # relative size of the nudge given to a leaf that never changed
STEP = 0.5              # smallest per-element step of the input-use check (runner.sensitivity), in input units


def _as_numpy(value) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy().astype(np.float64)
    return np.asarray(value, dtype=np.float64)


def _like(template, array: np.ndarray):
    if isinstance(template, torch.Tensor):
        return torch.from_numpy(np.ascontiguousarray(array)).to(template.dtype)
    return np.ascontiguousarray(array).astype(template.dtype)


def _floating(value) -> bool:
    if isinstance(value, torch.Tensor):
        return value.is_floating_point()
    return isinstance(value, np.ndarray) and value.dtype.kind == "f"


def is_quaternion(samples: list[np.ndarray]) -> bool:
    """A leaf whose last axis has 4 elements of unit norm in every recorded call."""
    return bool(samples) and samples[0].ndim >= 1 and samples[0].shape[-1] == 4 and all(
        np.allclose(np.linalg.norm(s, axis=-1), 1.0, atol=1e-3) for s in samples)


def is_rotation_matrix(samples: list[np.ndarray]) -> bool:
    """A leaf whose last two axes are 3x3 rotation matrices (orthonormal, det +1) in every recorded call."""
    if not samples or samples[0].ndim < 2 or samples[0].shape[-2:] != (3, 3):
        return False
    eye = np.eye(3)
    return all(np.allclose(np.swapaxes(s, -1, -2) @ s, eye, atol=1e-3) and np.allclose(np.linalg.det(s), 1.0,
                                                                                       atol=1e-3) for s in samples)


def _turned(base: np.ndarray, rng: np.random.Generator, angle: float = 0.3) -> np.ndarray:
    """`base` rotated by a random rotation of up to about `angle` radians (Rodrigues' formula)."""
    axis = rng.standard_normal(base.shape[:-2] + (3,))
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True) + 1e-12
    theta = rng.uniform(-angle, angle, size=base.shape[:-2] + (1, 1))
    k = np.zeros(base.shape[:-2] + (3, 3))
    k[..., 0, 1], k[..., 0, 2], k[..., 1, 2] = -axis[..., 2], axis[..., 1], -axis[..., 0]
    k = k - np.swapaxes(k, -1, -2)
    turn = np.eye(3) + np.sin(theta) * k + (1 - np.cos(theta)) * (k @ k)
    return turn @ base


def _draw(samples: list[np.ndarray], base: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if is_rotation_matrix(samples):
        return _turned(base, rng)
    stack = np.stack(samples)
    lo, hi = stack.min(axis=0), stack.max(axis=0)
    span = hi - lo
    drawn = lo + rng.random(base.shape) * span
    still = span == 0
    nudge = NUDGE * (np.abs(base) + 1.0) * rng.standard_normal(base.shape)
    drawn = np.where(still, base + nudge, drawn)
    if is_quaternion(samples):
        drawn = drawn / np.linalg.norm(drawn, axis=-1, keepdims=True)
    return drawn


def held(port: str, constant) -> bool:
    """Whether the input port belongs to an input the module declares constant (CONSTANT_INPUTS: an argument
    name, or one of its ports): it is held at its recorded values, never varied."""
    return any(port == name or port.startswith(name + "_") for name in constant or ())


def perturbed_inputs(calls: list[dict], count: int, seed: int = 0, constant=()) -> list[dict]:
    """`count` input dicts shaped like the recorded ones, every floating leaf varied (see module) except the
    inputs declared `constant`."""
    if not calls or count <= 0:
        return []
    rng = np.random.default_rng(seed)
    flat = [boundary.flatten(dict(c)) for c in calls]
    names = list(flat[0])
    samples = {n: [_as_numpy(f[n]) for f in flat if n in f and f[n].shape == flat[0][n].shape] for n in names}
    out = []
    for i in range(count):
        base_call = calls[i % len(calls)]
        base = flat[i % len(calls)]
        leaves = []
        for name in names:
            value = base[name]
            if _floating(value) and not held(name, constant):
                leaves.append(_like(value, _draw(samples[name], _as_numpy(value), rng)))
            else:
                leaves.append(value)
        out.append(boundary.rebuild(dict(base_call), iter(leaves)))
    return out


def varied(calls: list[dict]) -> dict[str, bool]:
    """name -> whether the leaf took more than one value over the recorded calls."""
    flat = [boundary.flatten(dict(c)) for c in calls]
    out = {}
    for name in flat[0] if flat else []:
        first = _as_numpy(flat[0][name])
        out[name] = any(not np.array_equal(first, _as_numpy(f[name])) for f in flat[1:] if name in f)
    return out


def vary_one(calls: list[dict], base: dict, leaf: str, seed: int = 0) -> dict:
    """`base` (one call's inputs) with only the floating leaf `leaf` varied as `perturbed_inputs`
    varies it; the other leaves are kept."""
    rng = np.random.default_rng(seed)
    flat_calls = [boundary.flatten(dict(c)) for c in calls]
    flat = boundary.flatten(dict(base))
    leaves = []
    for name, value in flat.items():
        if name == leaf and _floating(value):
            samples = [_as_numpy(f[name]) for f in flat_calls if name in f and f[name].shape == value.shape]
            leaves.append(_like(value, _draw(samples or [_as_numpy(value)], _as_numpy(value), rng)))
        else:
            leaves.append(value)
    return boundary.rebuild(dict(base), iter(leaves))
