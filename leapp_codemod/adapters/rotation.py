"""`scipy.spatial.transform.Rotation` in torch: the same constructors, conversions and conventions.

Quaternions are scalar-last (x, y, z, w) unless `scalar_first=True`, exactly as SciPy stores them:
`from_quat` normalises without changing the sign, `as_quat(canonical=True)` and `as_rotvec` pick the
w >= 0 cover (ties broken on x, then y, then z, as SciPy 1.17 does), composition normalises its result.
`from_euler` takes extrinsic (lowercase) or intrinsic (uppercase) sequences of 1 to 3 axes; `as_euler`
is SciPy's quaternion-based algorithm, including its gimbal-lock convention (third angle set to zero).

Dtypes: NumPy (or list) inputs are computed and returned as float64 NumPy arrays, as SciPy does for
NumPy; torch inputs keep their floating dtype (integers become float32) and outputs are torch tensors.
Any number of leading (batch) dimensions is supported. float64 arctangents avoid the ONNX Atan
operator (see `_math`), and float64 constants are tensors, so exported graphs keep float64 precision.

Not reproduced, by design (they are data-dependent and cannot be part of a traced graph):
- SciPy raises on zero-norm quaternions; here they give NaN.
- `from_matrix` projects a non-orthogonal matrix onto SO(3) with an SVD; here constant matrices are
  checked and refused when `M @ M.T` differs from the identity by more than 1e-6, and traced matrices
  are assumed orthonormal (the result then matches SciPy to the orthogonality error).
- the gimbal-lock warning of `as_euler` is not emitted.
"""
from __future__ import annotations

import itertools
import math
import re
from typing import Any

import numpy as np
import torch

from ._core import (
    CLASS,
    CONSTRUCTOR,
    METHOD,
    Adapter,
    const,
    is_traced,
    numpy_dtype,
    refuse,
    to_tensor,
)
from ._math import atan2 as _atan2
from ._math import hypot as _hypot

NAME = "scipy.spatial.transform.Rotation"
_EULER = re.compile(r"^([xyz]{1,3}|[XYZ]{1,3})$")


# --------------------------------------------------------------------- quaternion kernels ----
def _normalize(q: torch.Tensor) -> torch.Tensor:
    return q / torch.sqrt(torch.sum(q * q, dim=-1, keepdim=True))


def _compose(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    px, py, pz, pw = p.unbind(-1)
    qx, qy, qz, qw = q.unbind(-1)
    cx, cy, cz = py * qz - pz * qy, pz * qx - px * qz, px * qy - py * qx
    return torch.stack([pw * qx + qw * px + cx, pw * qy + qw * py + cy, pw * qz + qw * pz + cz,
                        pw * qw - px * qx - py * qy - pz * qz], dim=-1)


def _as_matrix(q: torch.Tensor) -> torch.Tensor:
    x, y, z, w = q.unbind(-1)
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    rows = [x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw),
            2 * (xy + zw), -x2 + y2 - z2 + w2, 2 * (yz - xw),
            2 * (xz - yw), 2 * (yz + xw), -x2 - y2 + z2 + w2]
    return torch.stack(rows, dim=-1).reshape(*q.shape[:-1], 3, 3)


def _from_matrix(m: torch.Tensor) -> torch.Tensor:
    # Shepperd's method, branch chosen by the largest of (m00, m11, m22, trace), as SciPy does.
    m00, m01, m02 = m[..., 0, 0], m[..., 0, 1], m[..., 0, 2]
    m10, m11, m12 = m[..., 1, 0], m[..., 1, 1], m[..., 1, 2]
    m20, m21, m22 = m[..., 2, 0], m[..., 2, 1], m[..., 2, 2]
    trace = m00 + m11 + m22
    choice = torch.argmax(torch.stack([m00, m11, m22, trace], dim=-1), dim=-1, keepdim=True)
    candidates = [
        torch.stack([1 - trace + 2 * m00, m10 + m01, m20 + m02, m21 - m12], dim=-1),
        torch.stack([m10 + m01, 1 - trace + 2 * m11, m21 + m12, m02 - m20], dim=-1),
        torch.stack([m20 + m02, m21 + m12, 1 - trace + 2 * m22, m10 - m01], dim=-1),
        torch.stack([m21 - m12, m02 - m20, m10 - m01, 1 + trace], dim=-1),
    ]
    quat = candidates[3]
    for k in (2, 1, 0):
        quat = torch.where(choice == k, candidates[k], quat)
    return _normalize(quat)


def _from_rotvec(rotvec: torch.Tensor) -> torch.Tensor:
    angle = torch.sqrt(torch.sum(rotvec * rotvec, dim=-1, keepdim=True))
    small = angle <= 1e-3
    angle2 = angle * angle
    small_scale = 0.5 - angle2 / 48 + angle2 * angle2 / 3840
    large_scale = torch.sin(angle / 2) / torch.where(small, torch.ones_like(angle), angle)
    scale = torch.where(small, small_scale, large_scale)
    return torch.cat([rotvec * scale, torch.cos(angle / 2)], dim=-1)


def _canonical(q: torch.Tensor) -> torch.Tensor:
    x, y, z, w = q.unbind(-1)
    flip = (w < 0) | ((w == 0) & (x < 0)) | ((w == 0) & (x == 0) & (y < 0)) | \
        ((w == 0) & (x == 0) & (y == 0) & (z < 0))
    return torch.where(flip.unsqueeze(-1), -q, q)


def _as_rotvec(q: torch.Tensor) -> torch.Tensor:
    q = _canonical(q)
    vec = q[..., :3]
    norm = torch.sqrt(torch.sum(vec * vec, dim=-1, keepdim=True))
    angle = 2 * _atan2(norm, q[..., 3:4])
    small = angle <= 1e-3
    angle2 = angle * angle
    small_scale = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880
    large_scale = angle / torch.where(small, torch.ones_like(angle), torch.sin(angle / 2))
    return torch.where(small, small_scale, large_scale) * vec


def _elementary(axis: int, angle: torch.Tensor) -> torch.Tensor:
    zero = torch.zeros_like(angle)
    parts = [zero, zero, zero, torch.cos(angle / 2)]
    parts[axis] = torch.sin(angle / 2)
    return torch.stack(parts, dim=-1)


def _from_euler(seq: str, angles: torch.Tensor) -> torch.Tensor:
    intrinsic = seq.isupper()
    axes = ["xyz".index(c) for c in seq.lower()]
    quat = _elementary(axes[0], angles[..., 0])
    for i in range(1, len(axes)):
        step = _elementary(axes[i], angles[..., i])
        quat = _compose(quat, step) if intrinsic else _compose(step, quat)
    return quat


def _wrap(angles: torch.Tensor) -> torch.Tensor:
    # NumPy's (a + pi) % (2 pi) - pi, written with floor so it lowers to ONNX for float64.
    pi, two_pi = const(math.pi, angles), const(2 * math.pi, angles)
    shifted = angles + pi
    return shifted - two_pi * torch.floor(shifted / two_pi) - pi


def _as_euler(q: torch.Tensor, seq: str) -> torch.Tensor:
    extrinsic = seq.islower()
    axes = ["xyz".index(c) for c in seq.lower()]
    i, j, k = axes if extrinsic else axes[::-1]
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign = float((i - j) * (j - k) * (k - i) // 2)
    w = q[..., 3]
    if symmetric:
        a, b, c, d = w, q[..., i], q[..., j], q[..., k] * sign
    else:
        a, b = w - q[..., j], q[..., i] + q[..., k] * sign
        c, d = q[..., j] + w, q[..., k] * sign - q[..., i]
    eps = 1e-7
    half_sum = _atan2(b, a)
    half_diff = _atan2(d, c)
    second = 2 * _atan2(_hypot(c, d), _hypot(a, b))
    case1 = torch.abs(second) <= eps
    case2 = torch.abs(second - const(math.pi, second)) <= eps
    case0 = ~(case1 | case2)
    first_idx, third_idx = (0, 2) if extrinsic else (2, 0)
    angle0 = torch.where(case1, 2 * half_sum, 2 * half_diff * (-1.0 if extrinsic else 1.0))
    zero = torch.zeros_like(second)
    out = [angle0, second, zero]
    out[first_idx] = torch.where(case0, half_sum - half_diff, out[first_idx])
    third = torch.where(case0, half_sum + half_diff, out[third_idx])
    if not symmetric:
        third = third * sign
        out[1] = out[1] - const(math.pi / 2, out[1])
    out[third_idx] = third
    return _wrap(torch.stack(out, dim=-1))


# ---------------------------------------------------------------------------- the class ----
def _float_dtype(value: Any) -> torch.dtype:
    if isinstance(value, torch.Tensor):
        return value.dtype if value.dtype in (torch.float32, torch.float64) else torch.get_default_dtype()
    return torch.float64


def _check_array(method: str, argument: str, value: Any, last: tuple[int, ...]) -> None:
    try:
        dtype = numpy_dtype(value)
    except (TypeError, ValueError, KeyError) as exc:
        raise refuse(f"{NAME}.{method}", argument, f"cannot read an array from {type(value).__name__}") from exc
    if dtype.kind not in "fiu" or dtype == np.float16:
        raise refuse(f"{NAME}.{method}", argument, f"dtype {dtype} (float32, float64 or integers)")
    shape = tuple(value.shape) if isinstance(value, torch.Tensor) else np.shape(value)
    if len(shape) < len(last) or shape[len(shape) - len(last):] != last:
        raise refuse(f"{NAME}.{method}", argument, f"shape {shape} (expected (..., {', '.join(map(str, last))}))")


def _check_seq(method: str, seq: Any) -> str:
    if not isinstance(seq, str) or not _EULER.match(seq) or any(a == b for a, b in itertools.pairwise(seq)):
        raise refuse(f"{NAME}.{method}", "seq", f"{seq!r} (1-3 of x/y/z, all lowercase (extrinsic) or all "
                                                "uppercase (intrinsic), no repeated consecutive axis)")
    return seq


def _input(value: Any) -> tuple[torch.Tensor, bool]:
    as_numpy = not isinstance(value, torch.Tensor)
    return to_tensor(value, _float_dtype(value)), as_numpy


class Rotation:
    """Torch twin of `scipy.spatial.transform.Rotation` (see the module docstring for the domain)."""

    def __init__(self, quat: Any, normalize: bool = True, copy: bool = True, scalar_first: bool = False):
        _check_array("__init__", "quat", quat, (4,))
        tensor, as_numpy = _input(quat)
        if scalar_first:
            tensor = torch.cat([tensor[..., 1:], tensor[..., :1]], dim=-1)
        self._quat = _normalize(tensor) if normalize else tensor
        self._numpy = as_numpy
        self._traced = is_traced(quat)

    @classmethod
    def _raw(cls, quat: torch.Tensor, as_numpy: bool, traced: bool) -> Rotation:
        rotation = cls.__new__(cls)
        rotation._quat, rotation._numpy, rotation._traced = quat, as_numpy, traced
        return rotation

    def _out(self, tensor: torch.Tensor) -> Any:
        if not self._numpy:
            return tensor
        array = tensor.to(torch.float64).numpy()
        return array[()] if array.ndim == 0 and not self._traced else array

    # ----------------------------------------------------------------- constructors ----
    @classmethod
    def from_quat(cls, quat: Any, *, scalar_first: bool = False) -> Rotation:
        return cls(quat, normalize=True, scalar_first=scalar_first)

    @classmethod
    def from_matrix(cls, matrix: Any, *, assume_valid: bool = False) -> Rotation:
        _check_matrix(matrix)
        tensor, as_numpy = _input(matrix)
        return cls._raw(_from_matrix(tensor), as_numpy, is_traced(matrix))

    @classmethod
    def from_rotvec(cls, rotvec: Any, degrees: bool = False) -> Rotation:
        _check_array("from_rotvec", "rotvec", rotvec, (3,))
        tensor, as_numpy = _input(rotvec)
        if degrees:
            tensor = tensor * const(math.pi / 180.0, tensor)
        return cls._raw(_from_rotvec(tensor), as_numpy, is_traced(rotvec))

    @classmethod
    def from_euler(cls, seq: str, angles: Any, degrees: bool = False) -> Rotation:
        check_from_euler(seq, angles, degrees)
        tensor, as_numpy = _input(angles)
        if tensor.ndim == 0:
            tensor = tensor.reshape(1)
        if degrees:
            tensor = tensor * const(math.pi / 180.0, tensor)
        return cls._raw(_from_euler(seq, tensor), as_numpy, is_traced(angles))

    @classmethod
    def identity(cls, num: int | None = None) -> Rotation:
        shape = () if num is None else (int(num),)
        quat = torch.zeros(*shape, 4, dtype=torch.float64)
        quat[..., 3] = 1
        return cls._raw(quat, True, False)

    # --------------------------------------------------------------- representations ----
    def as_quat(self, canonical: bool = False, *, scalar_first: bool = False) -> Any:
        quat = _canonical(self._quat) if canonical else self._quat
        if scalar_first:
            quat = torch.cat([quat[..., 3:], quat[..., :3]], dim=-1)
        return self._out(quat)

    def as_matrix(self) -> Any:
        return self._out(_as_matrix(self._quat))

    def as_rotvec(self, degrees: bool = False) -> Any:
        rotvec = _as_rotvec(self._quat)
        return self._out(rotvec * const(180.0 / math.pi, rotvec) if degrees else rotvec)

    def as_euler(self, seq: str, degrees: bool = False, *, suppress_warnings: bool = False) -> Any:
        _check_seq("as_euler", seq)
        if len(seq) != 3:
            raise refuse(f"{NAME}.as_euler", "seq", f"{seq!r} (as_euler needs exactly 3 axes)")
        angles = _as_euler(self._quat, seq)
        return self._out(angles * const(180.0 / math.pi, angles) if degrees else angles)

    def magnitude(self) -> Any:
        vec = self._quat[..., :3]
        return self._out(2 * _atan2(torch.sqrt(torch.sum(vec * vec, dim=-1)), torch.abs(self._quat[..., 3])))

    # ----------------------------------------------------------------------- algebra ----
    def apply(self, vectors: Any, inverse: bool = False) -> Any:
        _check_array("apply", "vectors", vectors, (3,))
        v = to_tensor(vectors, self._quat.dtype)
        matrix = _as_matrix(self._quat)
        if inverse:
            matrix = matrix.transpose(-1, -2)
        if self.single and v.ndim == 1:
            return self._out(torch.matmul(matrix, v.unsqueeze(-1)).squeeze(-1))
        if v.ndim == 1:
            v = v.unsqueeze(0)
        try:
            torch.broadcast_shapes(matrix.shape[:-2], v.shape[:-1])
        except RuntimeError as exc:
            raise refuse(f"{NAME}.apply", "vectors", f"{len(self)} rotations and vectors of shape "
                                                     f"{tuple(v.shape)} do not broadcast") from exc
        return self._out(torch.matmul(matrix, v.unsqueeze(-1)).squeeze(-1))

    def inv(self) -> Rotation:
        return Rotation._raw(torch.cat([-self._quat[..., :3], self._quat[..., 3:]], dim=-1), self._numpy, self._traced)

    def __mul__(self, other: Any) -> Rotation:
        other = as_twin(other)
        if other is None:
            return NotImplemented
        p, q = self._quat, other._quat
        if self.single != other.single:  # a single rotation composes with each of a stack
            p = p.unsqueeze(0) if self.single else p
            q = q.unsqueeze(0) if other.single else q
        try:
            torch.broadcast_shapes(p.shape, q.shape)
        except RuntimeError as exc:
            detail = f"cannot compose {tuple(p.shape[:-1])} with {tuple(q.shape[:-1])} rotations"
            raise refuse(f"{NAME}.__mul__", "other", detail) from exc
        return Rotation._raw(_normalize(_compose(p, q)), self._numpy and other._numpy, self._traced or other._traced)

    def __rmul__(self, other: Any) -> Rotation:
        """`scipy_rotation * twin`: a SciPy Rotation built outside the patched code, as a constant."""
        other = as_twin(other)
        return NotImplemented if other is None else other * self

    # ----------------------------------------------------------------------- container ----
    @property
    def single(self) -> bool:
        return self._quat.ndim == 1

    def __len__(self) -> int:
        if self.single:
            raise TypeError("Single rotation has no len().")
        return int(self._quat.shape[0])

    def __getitem__(self, index: Any) -> Rotation:
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation._raw(self._quat[index], self._numpy, self._traced)

    def __repr__(self) -> str:
        return f"Rotation.from_quat({self._quat.tolist()!r})  # torch twin"


def as_twin(value: Any) -> Rotation | None:
    """`value` as this module's Rotation: itself, or a SciPy `Rotation` (one the application built
    outside the patched code, e.g. a module-level mounting offset) converted through its quaternions,
    a constant of the trace. None for anything else."""
    if isinstance(value, Rotation):
        return value
    kind = type(value)
    if kind.__name__ == "Rotation" and kind.__module__.startswith("scipy.spatial.transform"):
        return Rotation.from_quat(value.as_quat())
    return None


def _check_matrix(matrix: Any) -> None:
    _check_array("from_matrix", "matrix", matrix, (3, 3))
    if is_traced(matrix) or isinstance(matrix, torch.Tensor):
        return
    m = np.asarray(matrix, dtype=np.float64)
    gram = m @ np.swapaxes(m, -1, -2)
    if m.size and (np.max(np.abs(gram - np.eye(3))) > 1e-6 or np.any(np.linalg.det(m) <= 0)):
        raise refuse(f"{NAME}.from_matrix", "matrix", "not a proper orthonormal rotation matrix (SciPy would "
                                                      "project it with an SVD, which is not traceable)")


# ----------------------------------------------------- registry-facing functions and checks ----
def check_from_quat(quat: Any, *, scalar_first: bool = False) -> None:
    _check_array("from_quat", "quat", quat, (4,))


def check_from_matrix(matrix: Any, *, assume_valid: bool = False) -> None:
    _check_matrix(matrix)


def check_from_rotvec(rotvec: Any, degrees: bool = False) -> None:
    _check_array("from_rotvec", "rotvec", rotvec, (3,))


def check_from_euler(seq: str, angles: Any, degrees: bool = False) -> None:
    seq = _check_seq("from_euler", seq)
    shape = tuple(angles.shape) if isinstance(angles, torch.Tensor) else np.shape(angles)
    if len(shape) == 0 and len(seq) == 1:
        return
    _check_array("from_euler", "angles", angles, (len(seq),))


def _check_class(*args: Any, **kwargs: Any) -> None:
    """The class itself has no arguments to check; its constructors and methods check theirs."""


def check_method(rotation: Any, *args: Any, **kwargs: Any) -> None:
    if not isinstance(rotation, Rotation):
        raise refuse(NAME, "self", f"{type(rotation).__name__} (methods apply to the torch twin built by its "
                                   "constructors)")


def _method(name: str):
    function = getattr(Rotation, name)

    def check(rotation: Any, *args: Any, **kwargs: Any) -> None:
        check_method(rotation)
        if name == "apply":
            _check_array("apply", "vectors", args[0] if args else kwargs.get("vectors"), (3,))
        if name == "as_euler":
            _check_seq("as_euler", args[0] if args else kwargs.get("seq"))

    return Adapter(f"{NAME}.{name}", function, "a Rotation built by this module's constructors; "
                   + _METHOD_DOMAINS[name], check, METHOD)


_METHOD_DOMAINS = {
    "as_quat": "canonical and scalar_first flags",
    "as_matrix": "no arguments",
    "as_rotvec": "degrees flag",
    "as_euler": "3-axis extrinsic or intrinsic sequence, degrees flag",
    "apply": "vectors (..., 3) broadcasting with the rotations, inverse flag",
    "inv": "no arguments",
    "magnitude": "no arguments",
    "__mul__": "composition with another Rotation (broadcasting)",
}

_ARRAYS = "float32, float64 or integers (NumPy -> float64 NumPy, torch keeps its float dtype); any batch shape"

ADAPTERS = {
    NAME: Adapter(NAME, Rotation, "the class: from_quat, from_matrix, from_rotvec, from_euler, identity, as_*, "
                  "apply, inv, magnitude, *", _check_class, CLASS),
    f"{NAME}.from_quat": Adapter(f"{NAME}.from_quat", Rotation.from_quat, f"quat (..., 4), {_ARRAYS}; "
                                 "scalar_first flag", check_from_quat, CONSTRUCTOR),
    f"{NAME}.from_matrix": Adapter(f"{NAME}.from_matrix", Rotation.from_matrix, f"matrix (..., 3, 3), {_ARRAYS}; "
                                   "orthonormal with det +1 (constants checked to 1e-6)", check_from_matrix,
                                   CONSTRUCTOR),
    f"{NAME}.from_rotvec": Adapter(f"{NAME}.from_rotvec", Rotation.from_rotvec, f"rotvec (..., 3), {_ARRAYS}; "
                                   "degrees flag", check_from_rotvec, CONSTRUCTOR),
    f"{NAME}.from_euler": Adapter(f"{NAME}.from_euler", Rotation.from_euler, "seq: 1-3 axes, lowercase extrinsic "
                                  f"or uppercase intrinsic; angles (..., len(seq)), {_ARRAYS}; degrees flag",
                                  check_from_euler, CONSTRUCTOR),
    **{f"{NAME}.{m}": _method(m) for m in _METHOD_DOMAINS},
}
