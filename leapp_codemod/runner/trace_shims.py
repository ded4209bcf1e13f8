"""Work-arounds of LEAPP 0.7.2 gaps, active only while `run` traces a pipeline (`during_trace`).

* NumPy's joining functions see a deque argument as a list. LEAPP 0.7.2 looks for traced arrays inside lists, tuples and dicts only: `np.concatenate(history)`
on a `deque` of traced arrays (a frame history declared as LEAPP state) recurses in
`TracedNpArray.__array_function__` until Python's recursion limit. While tracing, the joining
functions are wrapped so that a deque argument is passed as a list of the same items (the same
values, in the same order).
* `ndarray.squeeze()` without an axis. `TracedNpArray.squeeze` passes `axis=None` on, which LEAPP
  records as `torch.squeeze(x, dim=None)`: every exporter then fails ("squeeze() received an invalid
  combination of arguments"). Without an axis the method is recorded as `np.squeeze(x)` (all size-1
  dimensions, as NumPy does).
* `torch.as_tensor(x, dtype=...)` / `torch.tensor(x, dtype=...)` of a traced value. LEAPP 0.7.2 converts
  the value but records no cast, so the graph keeps the source dtype (a float64 observation then meets
  float32 weights and every exporter fails on the matrix product, although the eager values agree).
  While tracing, a requested dtype that differs from the traced value's is recorded as `.to(dtype)`.
* Arithmetic on numbers. NumPy returns a NumPy scalar when every operand of a ufunc is 0-d, and LEAPP
  0.7.2 records the operation but hands back that untraced scalar: `0.5 * m * np.sum(v * v)` or
  `np.linalg.norm(a) + 1e-6` becomes a constant of the export (LEAPP's frozen-constant signal, no line).
  While tracing, such a call on a traced 0-d array is made on one-element views and reshaped back to
  0-d, so the result stays traced with the value and dtype NumPy gives. Comparisons (a bool result)
  are left as they are.

The wrappers are removed when tracing ends.
"""
from __future__ import annotations

import collections
import functools
from contextlib import contextmanager

JOINING = ("concatenate", "stack", "hstack", "vstack", "dstack", "column_stack")


def _as_list(value):
    return list(value) if isinstance(value, collections.deque) else value


def _wrap(original):
    @functools.wraps(original)
    def joined(*args, **kwargs):
        return original(*(_as_list(a) for a in args), **{k: _as_list(v) for k, v in kwargs.items()})

    joined.__leapp_codemod_deque_shim__ = True
    return joined


@contextmanager
def deques_as_lists():
    """Wrap NumPy's joining functions for the duration of a trace (restored even on errors)."""
    import numpy as np

    saved = {name: getattr(np, name) for name in JOINING if hasattr(np, name)}
    try:
        for name, original in saved.items():
            if not getattr(original, "__leapp_codemod_deque_shim__", False):
                setattr(np, name, _wrap(original))
        yield
    finally:
        for name, original in saved.items():
            setattr(np, name, original)


@contextmanager
def squeeze_without_axis():
    """`TracedNpArray.squeeze()` recorded as `np.squeeze(x)` when no axis is given."""
    import numpy as np

    try:
        from leapp.leapp_graph.datatypes.numpy.traced_np_array import TracedNpArray
    except ImportError:
        yield
        return
    original = TracedNpArray.__dict__.get("squeeze")

    def squeeze(self, axis=None):
        return np.squeeze(self) if axis is None else np.squeeze(self, axis=axis)

    TracedNpArray.squeeze = squeeze
    try:
        yield
    finally:
        if original is None:
            del TracedNpArray.squeeze
        else:
            TracedNpArray.squeeze = original


def _gives_bool(ufunc, inputs) -> bool:
    """Whether `ufunc` answers a comparison (a bool) on operands of these kinds, found on zero stand-ins."""
    import numpy as np

    stand_ins = [np.zeros((), x.dtype) if isinstance(x, np.ndarray | np.generic) else x for x in inputs]
    try:
        with np.errstate(all="ignore"):
            return np.asarray(ufunc(*stand_ins)).dtype == np.bool_
    except (TypeError, ValueError):
        return True     # operands NumPy refuses: left to LEAPP as they are


def _number_math(original, traced_type):
    import numpy as np

    def array_ufunc(self, ufunc, method, *inputs, **kwargs):
        numbers = all(isinstance(x, np.ndarray | np.generic | int | float) and np.ndim(x) == 0 for x in inputs)
        if method != "__call__" or ufunc.nout != 1 or "out" in kwargs or not numbers or _gives_bool(ufunc, inputs):
            return original(self, ufunc, method, *inputs, **kwargs)
        lifted = tuple(x.reshape(1) if isinstance(x, traced_type) else x for x in inputs)
        out = original(self, ufunc, method, *lifted, **kwargs)
        return out.reshape(()) if isinstance(out, traced_type) else out

    array_ufunc.__leapp_codemod_number_shim__ = True
    return array_ufunc


@contextmanager
def numbers_stay_traced():
    """Ufuncs on traced 0-d arrays give traced 0-d arrays, not NumPy scalars (see the module docstring);
    restored even on errors."""
    try:
        from leapp.leapp_graph.datatypes.numpy.traced_np_array import TracedNpArray
    except ImportError:
        yield
        return
    original = TracedNpArray.__dict__["__array_ufunc__"]
    if getattr(original, "__leapp_codemod_number_shim__", False):
        yield
        return
    TracedNpArray.__array_ufunc__ = _number_math(original, TracedNpArray)
    try:
        yield
    finally:
        TracedNpArray.__array_ufunc__ = original


def _cast_after(current, is_traced):
    @functools.wraps(current)
    def converted(data, *args, **kwargs):
        dtype = kwargs.get("dtype")     # keyword-only in both functions
        if dtype is None or not is_traced(data):
            return current(data, *args, **kwargs)
        out = current(data, *args, **{k: v for k, v in kwargs.items() if k != "dtype"})
        return out if out.dtype == dtype else out.to(dtype)

    converted.__leapp_codemod_dtype_shim__ = True
    return converted


@contextmanager
def conversions_keep_dtype():
    """Record the dtype `torch.as_tensor` / `torch.tensor` are asked for on traced values (see the module
    docstring); restored even on errors."""
    import torch

    try:
        from leapp.leapp_graph.datatypes import is_traced_type
    except ImportError:
        yield
        return
    saved = []
    for name in ("as_tensor", "tensor"):
        current = getattr(torch, name)
        if getattr(current, "__leapp_codemod_dtype_shim__", False):
            continue
        saved.append((name, current))
        setattr(torch, name, _cast_after(current, is_traced_type))
    try:
        yield
    finally:
        for name, current in reversed(saved):
            setattr(torch, name, current)


@contextmanager
def during_trace():
    """Every work-around of this module, for one trace."""
    with deques_as_lists(), squeeze_without_axis(), conversions_keep_dtype(), numbers_stay_traced():
        yield
