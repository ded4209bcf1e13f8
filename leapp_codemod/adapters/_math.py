"""Inverse trigonometry that exports to ONNX and runs in ONNX Runtime for float64.

ONNX Runtime (1.32) has no float64 kernels for Atan, Asin, Acos or Tan, so float64 results are built
from operations it does have (sqrt, division, where, sign); float32 uses torch's own functions.
"""
from __future__ import annotations

import math

import torch

from ._core import const


def hypot(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """sqrt(a^2 + b^2) scaled by max(|a|, |b|), so that it neither overflows nor underflows."""
    big = torch.maximum(torch.abs(a), torch.abs(b))
    small = torch.minimum(torch.abs(a), torch.abs(b))
    safe = torch.where((big == 0) | torch.isinf(big), torch.ones_like(big), big)
    ratio = torch.where(torch.isinf(big), torch.zeros_like(big), small / safe)
    return torch.where(big == 0, big, big * torch.sqrt(1 + ratio * ratio))


def _atan_unit(u: torch.Tensor) -> torch.Tensor:
    """atan(u) for 0 <= u <= 1: three half-angle reductions (u -> u / (1 + sqrt(1 + u^2))) bring u below
    tan(pi / 32) < 0.1, where 9 terms of the Taylor series are exact to float64 round-off."""
    for _ in range(3):
        u = u / (1 + torch.sqrt(1 + u * u))
    u2 = u * u
    series = torch.zeros_like(u)
    for k in range(8, -1, -1):
        series = series * u2 + const((-1.0) ** k / (2 * k + 1), u)
    return 8 * u * series


def _atan64(z: torch.Tensor) -> torch.Tensor:
    a = torch.abs(z)
    large = a > 1
    u = torch.where(large, 1 / torch.where(large, a, torch.ones_like(a)), a)
    v = _atan_unit(u)
    return torch.sign(z) * torch.where(large, const(math.pi / 2, v) - v, v)


def atan2(y: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """numpy.arctan2 for finite inputs. float64 uses the half-angle identity atan2(y, x) = 2 atan(t),
    t = tan(theta / 2) = y / (r + x) for x > 0 and (r - x) / y otherwise (no cancellation either way)."""
    if y.dtype != torch.float64:
        return torch.atan2(y, x)
    # Subnormal pairs lose their ratio in hypot and r + x: scale them up by an exact power of two.
    tiny = torch.maximum(torch.abs(x), torch.abs(y)) < const(2.0 ** -900, y)
    scale = torch.where(tiny, const(2.0 ** 600, y), const(1.0, y))
    y, x = y * scale, x * scale
    r = hypot(x, y)
    positive = x > 0
    ones = torch.ones_like(r)
    half_tan = torch.where(positive, y / torch.where(positive, r + x, ones), (r - x) / y)
    # Both zero: NumPy gives +-0 or +-pi from the signs of the zeros (1 / -0.0 is -inf).
    at_origin = torch.where((x < 0) | (1 / x < 0), const(math.pi, r), torch.zeros_like(r))
    at_origin = torch.where((y < 0) | (1 / y < 0), -at_origin, at_origin)
    return torch.where(r == 0, at_origin, 2 * _atan64(half_tan))


def asin(x: torch.Tensor) -> torch.Tensor:
    return atan2(x, torch.sqrt((1 - x) * (1 + x))) if x.dtype == torch.float64 else torch.asin(x)


def acos(x: torch.Tensor) -> torch.Tensor:
    return atan2(torch.sqrt((1 - x) * (1 + x)), x) if x.dtype == torch.float64 else torch.acos(x)


def atan(x: torch.Tensor) -> torch.Tensor:
    return _atan64(x) if x.dtype == torch.float64 else torch.atan(x)


def tan(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x) / torch.cos(x) if x.dtype == torch.float64 else torch.tan(x)
