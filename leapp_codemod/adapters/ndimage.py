"""`scipy.ndimage.gaussian_filter1d` in torch: the same truncated, normalised Gaussian weights
(order 0) applied as a sum of shifted slices of the padded signal, accumulated in float64 as SciPy
does, returned in the input's dtype."""
from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ._core import (
    Adapter,
    check_dtype,
    finish,
    is_numpy_input,
    numpy_dtype,
    refuse,
    to_tensor,
)

NAME = "scipy.ndimage.gaussian_filter1d"
_MODES = ("reflect", "mirror", "nearest", "constant", "wrap")


def _radius(sigma: Any, truncate: float, radius: Any) -> int:
    return int(truncate * float(sigma) + 0.5) if radius is None else int(radius)


def check_gaussian_filter1d(input: Any, sigma: Any, axis: int = -1, order: int = 0, output: Any = None,
                            mode: str = "reflect", cval: float = 0.0, truncate: float = 4.0, *,
                            radius: Any = None) -> None:
    check_dtype(NAME, "input", input, ("float32", "float64"))
    if order != 0:
        raise refuse(NAME, "order", f"{order!r} (only order=0, the smoothing filter, is covered)")
    if output is not None:
        raise refuse(NAME, "output", "an output array or dtype is not covered")
    if mode not in _MODES:
        raise refuse(NAME, "mode", f"{mode!r} (supported: {', '.join(_MODES)})")
    if not np.isscalar(sigma) or float(sigma) <= 0:
        raise refuse(NAME, "sigma", f"{sigma!r} (a positive constant number is required)")
    ndim = len(np.shape(input))
    if ndim == 0 or not -ndim <= int(axis) < ndim:
        raise refuse(NAME, "axis", f"{axis!r} for a {ndim}-D input")
    r = _radius(sigma, truncate, radius)
    n = np.shape(input)[int(axis)]
    if r > n - 1 and mode in ("reflect", "mirror", "wrap"):
        raise refuse(NAME, "sigma", f"the kernel radius {r} needs at least {r + 1} samples along the axis in mode "
                                    f"{mode!r}, got {n}")


def gaussian_filter1d(input: Any, sigma: Any, axis: int = -1, order: int = 0, output: Any = None,
                      mode: str = "reflect", cval: float = 0.0, truncate: float = 4.0, *, radius: Any = None) -> Any:
    check_gaussian_filter1d(input, sigma, axis, order, output, mode, cval, truncate, radius=radius)
    dtype = numpy_dtype(input)
    r = _radius(sigma, truncate, radius)
    steps = np.arange(-r, r + 1, dtype=np.float64)
    weights = np.exp(-0.5 * (steps / float(sigma)) ** 2)
    weights = weights / weights.sum()
    x = to_tensor(input, np.float64).movedim(int(axis), -1)
    n = x.shape[-1]
    padded = torch.cat([*_pad(x, r, mode, cval, left=True), x, *_pad(x, r, mode, cval, left=False)], dim=-1)
    out = padded[..., 0:n] * torch.tensor(weights[0], dtype=torch.float64)
    for i in range(1, 2 * r + 1):
        out = out + padded[..., i:i + n] * torch.tensor(weights[i], dtype=torch.float64)
    return finish(out.movedim(-1, int(axis)), is_numpy_input(input), dtype)


def _pad(x: torch.Tensor, r: int, mode: str, cval: float, left: bool) -> list[torch.Tensor]:
    """The r samples SciPy's boundary `mode` puts before (left) or after the signal."""
    if r == 0:
        return []
    n = x.shape[-1]
    if mode == "nearest":
        edge = x[..., :1] if left else x[..., -1:]
        return [edge] * r
    if mode == "constant":
        return [torch.full_like(x[..., :1], float(cval))] * r
    if mode == "wrap":
        return [x[..., n - r:]] if left else [x[..., :r]]
    if mode == "reflect":       # d c b a | a b c d | d c b a
        return [torch.flip(x[..., :r], dims=(-1,))] if left else [torch.flip(x[..., n - r:], dims=(-1,))]
    return [torch.flip(x[..., 1:r + 1], dims=(-1,))] if left else [torch.flip(x[..., n - r - 1:n - 1], dims=(-1,))]


ADAPTERS = {
    NAME: Adapter(NAME, gaussian_filter1d, "input float32 or float64, any shape; sigma: positive constant; order 0; "
                  "mode reflect, mirror, nearest, constant or wrap (reflect/mirror/wrap need a signal longer than "
                  "the kernel radius); truncate/radius constants; no output=", check_gaussian_filter1d),
}
