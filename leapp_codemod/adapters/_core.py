"""What every adapter shares: the `Adapter` record, refusal errors, and the NumPy <-> torch round trip.

An adapter receives what the application passes (a NumPy array, possibly a LEAPP `TracedNpArray`, a
torch tensor, a Python scalar or list) and returns what the original library would return: NumPy in,
NumPy out of the original's dtype. The conversion goes through `torch.from_numpy` and `.numpy()`,
which LEAPP keeps traced while a session is active (both are looked up at call time, because LEAPP
patches `torch.from_numpy` only for the duration of a session).
"""
from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

# How an adapter is installed in place of the original.
FUNCTION = "function"        # a module attribute: leapp.FunctionPatch(module, name, adapter.function)
METHOD = "method"            # an unbound method: the first argument is the original instance
CONSTRUCTOR = "constructor"  # a static/class method that builds an object (Rotation.from_quat, ...)
CLASS = "class"              # a whole class, replaced by a torch twin with the same interface


@dataclass(frozen=True)
class Adapter:
    name: str                               # original dotted name, e.g. "scipy.special.expit"
    function: Callable[..., Any]            # the torch implementation, same signature as the original
    domain: str                             # supported dtypes, shapes and flags, human-readable
    check_domain: Callable[..., None]       # same arguments as `function`; raises ValueError outside the domain
    kind: str = FUNCTION


def refuse(adapter: str, argument: str, detail: str) -> ValueError:
    return ValueError(f"adapter {adapter}: unsupported {argument}: {detail}")


def is_traced(value: Any) -> bool:
    """True for LEAPP TracedNpArray / TracedTensor values (without importing leapp)."""
    datatypes = sys.modules.get("leapp.leapp_graph.datatypes")
    return datatypes is not None and isinstance(value, datatypes.TracedData)


def is_numpy_input(value: Any) -> bool:
    """Everything that is not a torch tensor is treated as NumPy (arrays, scalars, lists)."""
    return not isinstance(value, torch.Tensor)


def shape_of(value: Any) -> tuple[int, ...]:
    """The shape of an array, tensor or nested sequence. An object with a `.shape` is asked directly:
    `np.shape` on a traced LEAPP array is a NumPy function call LEAPP would report as untraceable."""
    shape = getattr(value, "shape", None)
    return tuple(shape) if shape is not None and not callable(shape) else np.shape(value)


def ndim_of(value: Any) -> int:
    return len(shape_of(value))


def numpy_dtype(value: Any) -> np.dtype:
    if isinstance(value, torch.Tensor):
        return torch_to_numpy_dtype(value.dtype)
    if isinstance(value, np.ndarray | np.generic):
        return value.dtype
    return np.asarray(value).dtype


_TORCH_DTYPES = {
    np.dtype(np.bool_): torch.bool, np.dtype(np.uint8): torch.uint8, np.dtype(np.int8): torch.int8,
    np.dtype(np.int16): torch.int16, np.dtype(np.int32): torch.int32, np.dtype(np.int64): torch.int64,
    np.dtype(np.float16): torch.float16, np.dtype(np.float32): torch.float32,
    np.dtype(np.float64): torch.float64,
}
_NUMPY_DTYPES = {v: k for k, v in _TORCH_DTYPES.items()}


def torch_dtype(dtype: Any) -> torch.dtype:
    if isinstance(dtype, torch.dtype):
        return dtype
    return _TORCH_DTYPES[np.dtype(dtype)]


def torch_to_numpy_dtype(dtype: torch.dtype) -> np.dtype:
    return _NUMPY_DTYPES[dtype]


def check_dtype(adapter: str, argument: str, value: Any, allowed: tuple[str, ...]) -> np.dtype:
    """The value's NumPy dtype, or a refusal naming the dtypes the adapter supports."""
    try:
        dtype = numpy_dtype(value)
    except (KeyError, TypeError, ValueError) as exc:
        raise refuse(adapter, argument, f"cannot read a dtype from {type(value).__name__}") from exc
    integer = "int" in allowed and dtype.kind in "iu" and dtype in _TORCH_DTYPES
    if dtype.name not in allowed and not integer:
        raise refuse(adapter, argument, f"dtype {dtype.name} (supported: {', '.join(allowed)})")
    return dtype


def to_tensor(value: Any, dtype: Any = None) -> torch.Tensor:
    """`value` as a torch tensor, traced if `value` is traced. `dtype` converts after the round trip."""
    if isinstance(value, torch.Tensor):
        tensor = value
    else:
        array = value if isinstance(value, np.ndarray) else np.asarray(value)
        reversed_axes = [i for i, s in enumerate(array.strides) if s < 0]
        if not is_traced(array) and (not array.flags.writeable or reversed_axes):
            array = np.array(array)  # torch.from_numpy refuses negative strides and warns on read-only
            reversed_axes = []
        if reversed_axes:
            # a traced view with negative strides (`np.flip`): flipped back to positive strides, handed
            # to torch, and flipped again there, so every step stays in the trace
            return _traced_tensor(np.flip(array, axis=tuple(reversed_axes)), reversed_axes, dtype)
        tensor = torch.from_numpy(array)
    if dtype is not None and tensor.dtype != torch_dtype(dtype):
        tensor = tensor.to(torch_dtype(dtype))
    return tensor


def _traced_tensor(array: np.ndarray, reversed_axes: list[int], dtype: Any) -> torch.Tensor:
    tensor = torch.flip(torch.from_numpy(array), dims=reversed_axes)
    return tensor if dtype is None or tensor.dtype == torch_dtype(dtype) else tensor.to(torch_dtype(dtype))


def plain(*inputs: Any) -> bool:
    """No input is a LEAPP value. Only then does a 0-d result become a NumPy scalar, as the original
    returns; with LEAPP values it stays a 0-d array, which LEAPP can follow and a scalar is not."""
    return not any(is_traced(value) for value in inputs)


def finish(tensor: torch.Tensor, as_numpy: bool, dtype: Any, scalar: bool = False) -> Any:
    """Back to what the original returns: a NumPy array of `dtype` (a NumPy scalar for a 0-d result
    when `scalar`), or a torch tensor of `dtype`."""
    tensor = tensor.to(torch_dtype(dtype))
    if not as_numpy:
        return tensor
    array = tensor.numpy()
    if scalar and array.ndim == 0 and not is_traced(array):
        return array[()]
    return array


def result_dtype(original: Callable[..., Any], *samples: Any, **kwargs: Any) -> np.dtype:
    """The dtype `original` returns for arguments shaped and typed like these, found by running it on
    one-filled stand-ins for the arrays (constants, so nothing is traced); other arguments pass as they are."""
    stand_ins = [_stand_in(s) for s in samples]
    keywords = {k: _stand_in(v) for k, v in kwargs.items()}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(original(*stand_ins, **keywords)).dtype


def _stand_in(value: Any) -> Any:
    return np.ones(shape_of(value), dtype=numpy_dtype(value)) if _is_array_like(value) else value


def _is_array_like(value: Any) -> bool:
    return isinstance(value, np.ndarray | np.generic | torch.Tensor)


def const(value: float, like: torch.Tensor) -> torch.Tensor:
    """A constant in `like`'s dtype. Python floats inside a float64 graph are exported by onnx-dynamo as
    float32 constants (1/3 comes back 1e-8 off), so float64 math uses tensor constants instead."""
    return torch.tensor(value, dtype=like.dtype)


def compute_dtype(dtype: np.dtype) -> torch.dtype:
    """Floating results are computed in their own precision (float16 in float32)."""
    return torch.float32 if dtype in (np.float32, np.float16) else torch.float64
