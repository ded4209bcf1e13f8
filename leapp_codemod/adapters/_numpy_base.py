"""Helpers shared by the NumPy adapters: the captured originals, dtype groups, axis and keyword checks."""
from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ._core import (
    is_traced,
    ndim_of,
    refuse,
    shape_of,
)

# The originals, captured before any FunctionPatch can replace the module attributes.
_NP = {name: getattr(np, name) for name in (
    "deg2rad", "rad2deg", "reciprocal", "fabs", "logaddexp", "hypot", "float_power", "cross", "outer",
    "arctan2", "arctan", "arcsin", "arccos", "tan",
    "diff", "median", "percentile", "quantile", "average")}
_NORM = np.linalg.norm

NUMERIC = ("float32", "float64", "int")
FLOATS = ("float32", "float64")
ANY = ("float16", "float32", "float64", "int", "bool")


def _ndim(x: Any) -> int:
    return ndim_of(x)


def _shape(x: Any) -> tuple[int, ...]:
    return shape_of(x)


def _constant(name: str, argument: str, value: Any) -> np.ndarray:
    if is_traced(value) or isinstance(value, torch.Tensor):
        raise refuse(name, argument, "must be a constant (a Python or NumPy value), got a traced or torch value")
    return np.asarray(value)


def _axis(name: str, axis: Any, ndim: int, allow_none: bool = True, allow_tuple: bool = False) -> Any:
    if axis is None and allow_none:
        return None
    axes = tuple(axis) if allow_tuple and isinstance(axis, tuple | list) else (axis,)
    if not axes or not all(isinstance(a, int | np.integer) and not isinstance(a, bool) and -ndim <= a < max(ndim, 1)
                           for a in axes):
        raise refuse(name, "axis", f"{axis!r} for an array with {ndim} dimension(s)")
    norm = tuple(int(a) % max(ndim, 1) for a in axes)
    if len(set(norm)) != len(norm):
        raise refuse(name, "axis", f"repeated axis in {axis!r}")
    return norm if isinstance(axis, tuple | list) else norm[0]


def _no_extra(name: str, kwargs: dict[str, Any], **defaults: Any) -> None:
    """Refuse every keyword that is not at its default (None counts as the default when none is given)."""
    for key, value in kwargs.items():
        default = defaults.get(key)
        if value is None and default is None:
            continue
        if key in defaults and isinstance(value, str | int | float | bool) and value == default:
            continue
        raise refuse(name, key, f"{key}={value!r} (only the default is supported)")
