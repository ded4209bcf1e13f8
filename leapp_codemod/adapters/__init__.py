"""Torch adapters for library calls LEAPP cannot trace, keyed by the original's dotted name.

Each adapter is a faithful torch re-implementation (tested against the original library) that LEAPP
traces and exports to ONNX. It accepts what the application passes (NumPy arrays, LEAPP
TracedNpArray, torch tensors, scalars) and returns what the original returns: NumPy in gives NumPy
out of the original's dtype. Inputs outside an adapter's documented domain raise ValueError naming
the adapter and the argument. Use `ADAPTERS[name].function` as a `leapp.FunctionPatch` replacement
(kind "function"), as a method replacement (kind "method": the first argument is the instance), or
as a constructor / class twin (kinds "constructor" and "class").

This package imports torch; only generated integration modules and `run` use it.
"""
from __future__ import annotations

from . import cv2, filters, linalg, ndimage, numpy_extra, rotation, sklearn, special
from ._core import CLASS, CONSTRUCTOR, FUNCTION, METHOD, Adapter
from .faithfulness import mismatch
from .rotation import Rotation
from .sklearn import frozen_min_max_scaler, frozen_standard_scaler

ADAPTERS: dict[str, Adapter] = {
    **special.ADAPTERS,
    **numpy_extra.ADAPTERS,
    **rotation.ADAPTERS,
    **sklearn.ADAPTERS,
    **cv2.ADAPTERS,
    **ndimage.ADAPTERS,
    **linalg.ADAPTERS,
    **filters.ADAPTERS,
}

__all__ = [
    "ADAPTERS",
    "CLASS",
    "CONSTRUCTOR",
    "FUNCTION",
    "METHOD",
    "Adapter",
    "Rotation",
    "frozen_min_max_scaler",
    "frozen_standard_scaler",
    "mismatch",
]
