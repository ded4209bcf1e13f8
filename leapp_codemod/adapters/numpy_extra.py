"""NumPy functions that policy code uses but LEAPP 0.7.2 does not map (or maps but cannot export to ONNX).

Unmapped in the installed LEAPP (`leapp_codemod.analysis.model.leapp_support.load_support().numpy_functions`):
    numpy.deg2rad, numpy.radians, numpy.rad2deg, numpy.degrees, numpy.reciprocal, numpy.fabs,
    numpy.logaddexp, numpy.float_power, numpy.linalg.norm, numpy.interp, numpy.cross, numpy.outer,
    numpy.diff, numpy.tile, numpy.repeat, numpy.pad, numpy.median, numpy.percentile, numpy.quantile,
    numpy.average, numpy.nan_to_num, numpy.atleast_1d, numpy.atleast_2d, numpy.atleast_3d,
    numpy.broadcast_to, numpy.column_stack, numpy.copy, numpy.ascontiguousarray, numpy.take,
    numpy.linalg.inv, numpy.linalg.solve (1x1 to 4x4 matrices, in `adapters.linalg`),
    numpy.linalg.pinv (in `adapters.linalg`; no ONNX lowering: the pt2 exporter takes it)
Mapped but failing at ONNX export or in ONNX Runtime:
    numpy.hypot (no ONNX lowering), numpy.round / numpy.around with decimals != 0,
    numpy.max / numpy.min / numpy.amax / numpy.amin without an axis (onnx-dynamo),
    numpy.arctan2 / numpy.atan2, numpy.arctan / numpy.atan, numpy.arcsin / numpy.asin,
    numpy.arccos / numpy.acos, numpy.tan on float64 (ONNX Runtime has no float64 kernel for them),
    numpy.clip with list or tuple bounds (LEAPP hands the lists to `torch.clamp`, which the trace cannot run).

The exported graphs keep float64 precision: float64 constants are tensors (see `_core.const`).

Shape-like arguments (axis, reps, repeats, pad widths, percentiles, interpolation tables) must be
constants; they become constants of the exported graph. Result dtypes are the ones NumPy gives,
found by running the original on one-filled stand-ins of the same shapes and dtypes.

This module is the table of the NumPy adapters (name, function, check, domain); the functions live by job in
`numpy_math` (element-wise, rounding, max/min, norm, interp), `numpy_arrays` (products, differences, data
movement) and `numpy_stats` (statistics, nan_to_num), on the helpers of `_numpy_base`.
"""
from __future__ import annotations

from collections.abc import Callable

from ._core import Adapter
from .numpy_arrays import (
    PAD_MODES,  # noqa: F401 - part of this module's interface (tests, docs)
    ascontiguousarray,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_to,
    check_ascontiguousarray,
    check_atleast_1d,
    check_atleast_2d,
    check_atleast_3d,
    check_broadcast_to,
    check_column_stack,
    check_copy,
    check_cross,
    check_diff,
    check_outer,
    check_pad,
    check_repeat,
    check_take,
    check_tile,
    column_stack,
    copy,
    cross,
    diff,
    outer,
    pad,
    repeat,
    take,
    tile,
)
from .numpy_math import (
    amax,
    amin,
    arccos,
    arcsin,
    arctan,
    arctan2,
    check_amax,
    check_amin,
    check_arccos,
    check_arcsin,
    check_arctan,
    check_arctan2,
    check_clip,
    check_deg2rad,
    check_fabs,
    check_float_power,
    check_hypot,
    check_interp,
    check_logaddexp,
    check_norm,
    check_rad2deg,
    check_reciprocal,
    check_round,
    check_tan,
    clip,
    deg2rad,
    fabs,
    float_power,
    hypot,
    interp,
    logaddexp,
    norm,
    rad2deg,
    reciprocal,
    round_,
    tan,
)
from .numpy_stats import (
    average,
    check_average,
    check_median,
    check_nan_to_num,
    check_percentile,
    check_quantile,
    median,
    nan_to_num,
    percentile,
    quantile,
)


def _entry(name: str, function: Callable, check: Callable, domain: str) -> tuple[str, Adapter]:
    return name, Adapter(name, function, domain, check)


_UFUNC = "float32 or float64 (integers promoted as NumPy does), any shape; no out=/where="
_TRIG = _UFUNC + "; finite inputs (float64 is evaluated without ONNX Atan/Asin/Acos/Tan, which ONNX Runtime " \
    "lacks for float64)"
_MOVE = "any dtype LEAPP exports (bool, int8-64, uint8, float16-64); "

ADAPTERS = dict([
    _entry("numpy.deg2rad", deg2rad, check_deg2rad, _UFUNC),
    _entry("numpy.radians", deg2rad, check_deg2rad, _UFUNC),
    _entry("numpy.rad2deg", rad2deg, check_rad2deg, _UFUNC),
    _entry("numpy.degrees", rad2deg, check_rad2deg, _UFUNC),
    _entry("numpy.reciprocal", reciprocal, check_reciprocal, "float32 or float64 only (NumPy's integer "
           "reciprocal truncates); any shape"),
    _entry("numpy.fabs", fabs, check_fabs, _UFUNC),
    _entry("numpy.logaddexp", logaddexp, check_logaddexp, _UFUNC + "; broadcasting operands"),
    _entry("numpy.hypot", hypot, check_hypot, _UFUNC + "; broadcasting operands"),
    _entry("numpy.float_power", float_power, check_float_power, "float or int operands (result float64); "
           "broadcasting"),
    _entry("numpy.arctan2", arctan2, check_arctan2, _TRIG + "; broadcasting operands"),
    _entry("numpy.atan2", arctan2, check_arctan2, _TRIG + "; broadcasting operands"),
    _entry("numpy.arctan", arctan, check_arctan, _TRIG),
    _entry("numpy.atan", arctan, check_arctan, _TRIG),
    _entry("numpy.arcsin", arcsin, check_arcsin, _TRIG),
    _entry("numpy.asin", arcsin, check_arcsin, _TRIG),
    _entry("numpy.arccos", arccos, check_arccos, _TRIG),
    _entry("numpy.acos", arccos, check_arccos, _TRIG),
    _entry("numpy.tan", tan, check_tan, _TRIG),
    _entry("numpy.clip", clip, check_clip, "float or int; bounds: numbers, arrays (traced or constant) or lists of "
           "numbers that broadcast against the input, either may be None; a_min/a_max or min/max; no out="),
    _entry("numpy.round", round_, check_round, "float32, float64 or integers; decimals: any int constant; no out="),
    _entry("numpy.around", round_, check_round, "float32, float64 or integers; decimals: any int constant; no out="),
    _entry("numpy.max", amax, check_amax, _MOVE + "axis None, int or tuple; keepdims; no out/initial/where"),
    _entry("numpy.amax", amax, check_amax, _MOVE + "axis None, int or tuple; keepdims; no out/initial/where"),
    _entry("numpy.min", amin, check_amin, _MOVE + "axis None, int or tuple; keepdims; no out/initial/where"),
    _entry("numpy.amin", amin, check_amin, _MOVE + "axis None, int or tuple; keepdims; no out/initial/where"),
    _entry("numpy.linalg.norm", norm, check_norm, "float32, float64 or integers; vector ord None/2/1/inf/-inf/"
           "p>0; matrix ord None/'fro'/1/-1/inf/-inf; axis None, int or 2-tuple; keepdims"),
    _entry("numpy.interp", interp, check_interp, "x: float or int, any shape; xp: constant strictly increasing "
           "1-D table; fp: same length, constant or traced; left/right: constant scalars; no period; float64 out"),
    _entry("numpy.cross", cross, check_cross, "3-vectors on the last axis, broadcasting leading axes; float or "
           "int; no axis arguments (2-vectors are deprecated in NumPy)"),
    _entry("numpy.outer", outer, check_outer, "float or int arrays (flattened); no out="),
    _entry("numpy.diff", diff, check_diff, "float or int, >= 1-D; n >= 0; axis: int; prepend/append scalars or "
           "arrays"),
    _entry("numpy.tile", tile, check_tile, _MOVE + "reps: constant int or tuple of ints"),
    _entry("numpy.repeat", repeat, check_repeat, _MOVE + "repeats: constant int or per-element counts; axis "
           "None or int"),
    _entry("numpy.pad", pad, check_pad, _MOVE + "pad_width: constant ints in any NumPy form; mode constant "
           "(scalar constant_values), edge, reflect, symmetric, wrap (reflect_type 'even')"),
    _entry("numpy.take", take, check_take, _MOVE + "indices: constant ints (negative allowed, in bounds); axis "
           "None or int; mode 'raise' without out="),
    _entry("numpy.atleast_1d", atleast_1d, check_atleast_1d, _MOVE + "one or more arrays"),
    _entry("numpy.atleast_2d", atleast_2d, check_atleast_2d, _MOVE + "one or more arrays"),
    _entry("numpy.atleast_3d", atleast_3d, check_atleast_3d, _MOVE + "one or more arrays"),
    _entry("numpy.broadcast_to", broadcast_to, check_broadcast_to, _MOVE + "shape: constant; returns a "
           "contiguous copy instead of a read-only view"),
    _entry("numpy.column_stack", column_stack, check_column_stack, _MOVE + "a list of numbers (0-D) and 1-D/2-D arrays of equal "
           "length"),
    _entry("numpy.copy", copy, check_copy, _MOVE + "order is ignored (C order); subok=False"),
    _entry("numpy.ascontiguousarray", ascontiguousarray, check_ascontiguousarray, _MOVE + "optional dtype "
           "among those"),
    _entry("numpy.median", median, check_median, "float or int, axis None/int/tuple, keepdims; finite values "
           "(NaN ordering differs); no out="),
    _entry("numpy.percentile", percentile, check_percentile, "float or int, q: constant scalar or 1-D in "
           "[0, 100]; method 'linear'; axis None/int/tuple, keepdims; finite values; no out="),
    _entry("numpy.quantile", quantile, check_quantile, "float or int, q: constant scalar or 1-D in [0, 1]; "
           "method 'linear'; axis None/int/tuple, keepdims; finite values; no out="),
    _entry("numpy.average", average, check_average, "float or int; axis None/int/tuple; weights same shape or "
           "1-D along an int axis; keepdims; returned=False"),
    _entry("numpy.nan_to_num", nan_to_num, check_nan_to_num, _MOVE + "nan/posinf/neginf: constant scalars"),
])
