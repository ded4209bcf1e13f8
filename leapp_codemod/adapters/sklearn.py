"""scikit-learn `StandardScaler.transform` and `MinMaxScaler.transform` with the fitted attributes frozen.

`frozen_standard_scaler(scaler)` / `frozen_min_max_scaler(scaler)` read the fitted attributes once and
return a function of X alone, so the statistics become constants of the exported graph. The registry
entries are method-shaped (`transform(self, X, copy=None)`) for patching the class.

Dtypes follow scikit-learn: float32 stays float32, float64 and integers give float64. For float32
input, StandardScaler casts mean_ and scale_ to float32 and computes in float32, while MinMaxScaler
updates X in place with its float64 scale_ and min_, rounding to float32 after each step; the adapters
do the same (checked against scikit-learn 1.9). scikit-learn is only needed to fit the scaler; this
module does not import it.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from ._core import (
    METHOD,
    Adapter,
    check_dtype,
    const,
    finish,
    is_numpy_input,
    refuse,
    to_tensor,
)

STANDARD = "sklearn.preprocessing.StandardScaler.transform"
MIN_MAX = "sklearn.preprocessing.MinMaxScaler.transform"


def _fitted(name: str, scaler: Any, attributes: tuple[str, ...]) -> None:
    missing = [a for a in attributes if not hasattr(scaler, a)]
    if missing:
        raise refuse(name, "scaler", f"{type(scaler).__name__} is not fitted (missing {', '.join(missing)})")


def _check_x(name: str, scaler: Any, X: Any) -> np.dtype:
    if hasattr(X, "tocsr") or hasattr(X, "iloc"):
        raise refuse(name, "X", f"{type(X).__name__} (dense NumPy arrays or torch tensors only)")
    dtype = check_dtype(name, "X", X, ("float32", "float64", "int"))
    shape = tuple(X.shape) if isinstance(X, torch.Tensor) else np.shape(X)
    if len(shape) != 2 or shape[1] != scaler.n_features_in_:
        raise refuse(name, "X", f"shape {shape} (expected (n_samples, {scaler.n_features_in_}))")
    return np.dtype(np.float32) if dtype == np.float32 else np.dtype(np.float64)


def _step(t: torch.Tensor, dtype: np.dtype, op: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    """One in-place scikit-learn update: computed in float64, stored in X's dtype."""
    out = op(t.to(torch.float64))
    return out.to(torch.float32) if dtype == np.float32 else out


def _constant(values: Any) -> torch.Tensor:
    return torch.from_numpy(np.array(values, dtype=np.float64))


def check_standard_scaler(scaler: Any, X: Any = None, copy: Any = None) -> None:
    _fitted(STANDARD, scaler, ("n_features_in_", "mean_", "scale_"))
    _check_x(STANDARD, scaler, X)


def frozen_standard_scaler(scaler: Any) -> Callable[[Any], Any]:
    """`scaler.transform` as a function of X, with mean_ and scale_ frozen now."""
    _fitted(STANDARD, scaler, ("n_features_in_", "mean_", "scale_"))
    mean = None if not scaler.with_mean or scaler.mean_ is None else _constant(scaler.mean_)
    scale = None if not scaler.with_std or scaler.scale_ is None else _constant(scaler.scale_)

    def transform(X: Any) -> Any:
        dtype = _check_x(STANDARD, scaler, X)
        t = to_tensor(X, torch.float32 if dtype == np.float32 else torch.float64)
        # scikit-learn casts the statistics to X's dtype before subtracting and dividing.
        if mean is not None:
            t = t - mean.to(t.dtype)
        if scale is not None:
            t = t / scale.to(t.dtype)
        return finish(t.clone() if mean is None and scale is None else t, is_numpy_input(X), dtype)

    return transform


def standard_scaler_transform(self: Any, X: Any, copy: Any = None) -> Any:
    return frozen_standard_scaler(self)(X)


def check_min_max_scaler(scaler: Any, X: Any = None) -> None:
    _fitted(MIN_MAX, scaler, ("n_features_in_", "min_", "scale_"))
    _check_x(MIN_MAX, scaler, X)


def frozen_min_max_scaler(scaler: Any) -> Callable[[Any], Any]:
    """`scaler.transform` as a function of X, with scale_, min_ and the clip range frozen now."""
    _fitted(MIN_MAX, scaler, ("n_features_in_", "min_", "scale_"))
    scale, offset = _constant(scaler.scale_), _constant(scaler.min_)
    low, high = (float(v) for v in scaler.feature_range)
    clip = bool(getattr(scaler, "clip", False))

    def transform(X: Any) -> Any:
        dtype = _check_x(MIN_MAX, scaler, X)
        t = to_tensor(X, torch.float32 if dtype == np.float32 else torch.float64)
        t = _step(t, dtype, lambda v: v * scale)
        t = _step(t, dtype, lambda v: v + offset)
        if clip:
            t = torch.clamp(t, const(low, t), const(high, t))
        return finish(t, is_numpy_input(X), dtype)

    return transform


def min_max_scaler_transform(self: Any, X: Any) -> Any:
    return frozen_min_max_scaler(self)(X)


ADAPTERS = {
    STANDARD: Adapter(STANDARD, standard_scaler_transform, "a fitted StandardScaler (with_mean/with_std either "
                      "way); X dense (n_samples, n_features_in_) float32, float64 or integers; float32 stays "
                      "float32, else float64", check_standard_scaler, METHOD),
    MIN_MAX: Adapter(MIN_MAX, min_max_scaler_transform, "a fitted MinMaxScaler (clip either way); X dense "
                     "(n_samples, n_features_in_) float32, float64 or integers; float32 stays float32, else "
                     "float64", check_min_max_scaler, METHOD),
}
