"""Run-time helpers of traceable twins, copied by `generate` into the integration modules that use
them (only their source is read there: this module imports torch).

Each helper keeps a Python-level operation of the original helper as a tensor (or array) operation
with the same values, so that the value stays in the LEAPP trace. Every choice below depends on
types, shapes or dtypes only, which are fixed while tracing, never on tensor values.
"""
from __future__ import annotations

import numpy as np
import torch


def twin_is_tensor(*values):
    return any(isinstance(v, torch.Tensor) for v in values)


def twin_scalar(value, cast=None):
    """`value.item()` (cast None), `float(value)` (cast "float") or `int(value)` (cast "int") as a
    0-d tensor or array holding the same number; fails as the original does for several elements.
    A floating value keeps its dtype under `float` (a float32 value stays float32: a 0-d float64
    would turn the float32 arithmetic downstream into float64, where the Python float did not)."""
    if not isinstance(value, (torch.Tensor, np.ndarray, np.generic)):
        return {"float": float, "int": int}.get(cast, lambda v: v)(value)
    value = value.reshape(())
    if cast is None:
        return value
    if isinstance(value, torch.Tensor):
        if cast == "float":
            return value if value.is_floating_point() else value.to(torch.float64)
        return value.to(torch.int64)
    if cast == "float":
        return value if value.dtype.kind == "f" else value.astype(np.float64)
    return value.astype(np.int64)


def twin_math(torch_fn, numpy_fn, math_fn, *args):
    """`math_fn(*args)` where an argument may now be a tensor (`torch_fn`, the other arguments made
    tensors of its dtype) or an array (`numpy_fn`); on Python numbers, a value the host keeps as a
    number, `math_fn` itself. The result keeps the dtype of the tensor or array it came from."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    if tensors:
        like = tensors[0]
        return torch_fn(*[a if isinstance(a, torch.Tensor) else torch.as_tensor(a, dtype=like.dtype) for a in args])
    if any(isinstance(a, (np.ndarray, np.generic)) for a in args):
        return numpy_fn(*args)
    return math_fn(*args)


def twin_numpy_number(value):
    """A NumPy function of Python numbers: NumPy returns a float64 (or int64) scalar, which promotes
    float32 arithmetic downstream to float64; the 0-d tensor or array standing for those numbers kept
    the dtype of the value it came from, so the result is cast as NumPy's would be."""
    if isinstance(value, torch.Tensor):
        return value.to(torch.float64 if value.is_floating_point() else value.dtype if value.dtype == torch.bool
                        else torch.int64)
    value = np.asarray(value)
    return value.astype({"f": np.float64, "b": np.bool_}.get(value.dtype.kind, np.int64))


def twin_numpy_scalar(kind, value):
    """`kind(value)` for a NumPy scalar type `kind` (`np.float32(x)`): a tensor or array converted to that
    dtype, keeping its shape (and the trace: NumPy's constructor would take the number out of a traced
    value); on a Python number or a NumPy scalar, the constructor itself (a host value stays a number)."""
    if isinstance(value, torch.Tensor):
        return value.to(torch.from_numpy(np.zeros(0, dtype=kind)).dtype)
    if isinstance(value, np.ndarray):
        return value.astype(kind)
    return kind(value)


def twin_min(a, b):
    """Python's `min(a, b)`, elementwise: `b` where `b < a`, else `a` (ties and NaNs as in Python);
    Python's own on Python numbers (a value the host keeps as a number)."""
    if not twin_is_tensor(a, b) and not any(isinstance(v, (np.ndarray, np.generic)) for v in (a, b)):
        return min(a, b)
    return torch.where(b < a, b, a) if twin_is_tensor(a, b) else np.where(b < a, b, a)


def twin_max(a, b):
    """Python's `max(a, b)`, elementwise: `b` where `b > a`, else `a` (ties and NaNs as in Python);
    Python's own on Python numbers."""
    if not twin_is_tensor(a, b) and not any(isinstance(v, (np.ndarray, np.generic)) for v in (a, b)):
        return max(a, b)
    return torch.where(b > a, b, a) if twin_is_tensor(a, b) else np.where(b > a, b, a)


def twin_where(cond, a, b):
    """`a if cond else b` for a one-element condition; both sides are evaluated."""
    if isinstance(cond, torch.Tensor):
        return torch.where(cond.reshape(()), a, b)
    return np.where(np.reshape(cond, ()), a, b)


def twin_python_dtype(value):
    """The dtype torch gives a Python number of the kind `value` holds (bool, int or float)."""
    if value.dtype == torch.bool:
        return torch.bool
    return torch.get_default_dtype() if value.is_floating_point() else torch.int64


def twin_full(size, fill_value, *, dtype=None):
    """`torch.full(size, fill_value)` for a 0-d tensor fill value that was a Python number."""
    fill_value = fill_value.reshape(())
    dtype = twin_python_dtype(fill_value) if dtype is None else dtype
    return fill_value.to(dtype).expand(size).clone()


def twin_tensor(data, *, dtype=None):
    """`torch.tensor(data)` where `data` (or the items of its nested list literals) is a tensor that
    holds what was a list of Python numbers: the items are stacked as the lists were nested."""
    if isinstance(data, (list, tuple)):
        data = torch.stack([twin_tensor(item) for item in data])
    elif not isinstance(data, torch.Tensor):
        data = torch.as_tensor(data)      # an item the host kept as a number (the original's own value)
    return data.to(twin_python_dtype(data) if dtype is None else dtype)


def twin_zip(*sequences):
    """The sequences of an elementwise `for ... in zip(t.tolist(), ...)` loop as whole 1-D tensors
    (or arrays), cut to the shortest as `zip` does; plain sequences become constants."""
    n = min(len(s) for s in sequences)
    use_torch = twin_is_tensor(*sequences)
    out = []
    for s in sequences:
        if isinstance(s, (torch.Tensor, np.ndarray)):
            if s.ndim != 1:
                raise ValueError(f"twin_zip: a tolist() sequence must be 1-D to map elementwise, got {s.ndim}-D")
            out.append(s[:n])
        else:
            out.append(torch.tensor(list(s)[:n]) if use_torch else np.asarray(list(s)[:n]))
    return out


def twin_unpack(value, n):
    """`a, b, c = value`. A 1-D NumPy array gives one-element slices (`value[0:1]`, ...): iterating
    it gives NumPy scalars, and arithmetic on 0-d arrays gives NumPy scalars too, which LEAPP does not
    trace (every value computed from them, and the argument itself, would drop out of the graph). The
    slices broadcast as the scalars did; `twin_array` joins them back. A tensor or a higher-rank
    array unpacks as Python does (its items are traced), and so does anything else."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        if len(value) != n:
            raise ValueError(f"cannot unpack {len(value)} values into {n} names")
        return tuple(value[i:i + 1] for i in range(n))
    items = tuple(value[i] for i in range(len(value))) if isinstance(value, (torch.Tensor, np.ndarray)) \
        else tuple(value)
    if len(items) != n:
        raise ValueError(f"cannot unpack {len(items)} values into {n} names")
    return items


def twin_item(value, index):
    """`value[index]` for a constant integer index: a one-element slice of a 1-D NumPy array (its
    item would be a NumPy scalar LEAPP does not trace), as `twin_unpack` gives; anything else is
    indexed as written."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        if not -len(value) <= index < len(value):
            raise IndexError(f"index {index} is out of bounds for axis 0 with size {len(value)}")
        return value[index:index + 1] if index != -1 else value[-1:]
    return value[index]


def twin_vector(value):
    """A 0-d NumPy array (or NumPy scalar) as a one-element 1-D array, so that comparing it gives a traced
    array rather than a plain `np.bool_`; tensors, Python numbers and larger arrays are unchanged."""
    if isinstance(value, np.generic) or isinstance(value, np.ndarray) and value.ndim == 0:
        return np.reshape(value, (1,))
    return value


def twin_array(data, dtype=None):
    """`np.array([...])` of a list of numbers computed from `twin_unpack` slices or 0-d arrays (a
    `twin_scalar`): the one-element arrays joined with `np.concatenate` (nested lists stacked), which
    LEAPP traces; the patched `np.array` traces only a traced argument, not a list of them."""
    if not isinstance(data, (list, tuple)):
        return np.array(data, dtype=dtype)
    if any(isinstance(v, (list, tuple)) for v in data):
        out = np.stack([twin_array(v) for v in data])
    elif any(isinstance(v, np.ndarray) and v.shape in ((1,), ()) for v in data):
        kind = np.result_type(*[v.dtype if isinstance(v, (np.ndarray, np.generic)) else np.asarray(v).dtype
                                for v in data])      # what np.array([...]) gives: numbers count as float64/int64
        out = np.concatenate([np.reshape(v, (1,)).astype(kind) if isinstance(v, np.ndarray) else np.full((1,), v, kind)
                              for v in data])
    else:
        out = np.array(data)
    return out if dtype is None else out.astype(dtype)


def twin_take(table, index):
    """`table[index]` for a constant table (a Python list or tuple of numbers, or a NumPy array) and a computed
    index (one part or a tuple of parts). With a tensor part: a gather from the table as a constant tensor
    (a list as `torch.tensor` makes it, an array keeping its dtype), given back as NumPy where the table was
    an array (one number as a one-element array) and as a tensor otherwise. With a NumPy part: the table
    made an array of the trace (same values and dtype; a list of Python floats as float32, which, as a
    Python float does, leaves float32 arithmetic float32) and indexed there, where NumPy's own indexing
    would read the index as plain numbers; a gather that would give one number gives a one-element array
    instead, which broadcasts as the number did and stays traced. Plain Python indexes index the table as
    written."""
    parts = index if isinstance(index, tuple) else (index,)
    if any(isinstance(p, torch.Tensor) for p in parts):
        const = torch.tensor(table) if isinstance(table, (list, tuple)) else torch.as_tensor(np.asarray(table))
        key = tuple(p.to(torch.int64) if isinstance(p, torch.Tensor) and not p.is_floating_point() else p
                    for p in parts)
        out = const[key if isinstance(index, tuple) else key[0]]
        if not isinstance(table, np.ndarray):
            return out
        out = out.numpy()                   # LEAPP keeps a traced tensor traced as NumPy
        return out.reshape((1,)) if out.ndim == 0 else out
    if not any(isinstance(p, (np.ndarray, np.generic)) for p in parts):
        return table[index]
    const = np.asarray(table)
    if isinstance(table, (list, tuple)) and const.dtype.kind == "f":
        const = const.astype(np.float32)        # a Python float keeps float32 arithmetic float32, as float32 does
    traced = next((p for p in parts if isinstance(p, np.ndarray) and twin_traced(p)), None)
    if traced is not None:
        seed = np.zeros_like(np.reshape(traced, (-1,))[:1]).astype(const.dtype).reshape((1,) * max(const.ndim, 1))
        const = (seed + const).astype(const.dtype)
    if len(parts) >= const.ndim and all(getattr(p, "ndim", 0) == 0 and not isinstance(p, slice) for p in parts):
        parts = tuple(np.reshape(p, (1,)) for p in parts)      # one number: a one-element array instead
    return const[parts if len(parts) > 1 else parts[0]]


def twin_traced(value):
    """A LEAPP traced array or tensor (checked by class name: this source is copied into modules)."""
    return type(value).__name__.startswith("Traced")


def twin_put(target, index, value):
    """`target[index] = value`, returning the array written: a plain array or tensor the helper allocated
    becomes traced (same values and dtype) at the first traced value written into it, since LEAPP traces
    `__setitem__` only on a traced target; plain values are written as the original does."""
    if isinstance(value, (list, tuple)) and any(twin_traced(v) for v in value):
        value = twin_array(value)
    if tuple(getattr(value, "shape", ())) == (1,) and np.empty(tuple(target.shape), dtype=bool)[index].ndim == 0:
        value = value.reshape(())           # a one-element array (`twin_item`) into a single slot
    if twin_traced(value) and not twin_traced(target):
        if isinstance(target, np.ndarray) and not isinstance(value, torch.Tensor):
            seed = np.zeros_like(np.reshape(value, (-1,))[:1]).reshape((1,) * max(target.ndim, 1))
            target = (seed.astype(target.dtype) + target).astype(target.dtype)
        elif isinstance(target, torch.Tensor) and isinstance(value, torch.Tensor):
            seed = torch.zeros_like(value.reshape(-1)[:1]).reshape((1,) * max(target.dim(), 1))
            target = (seed.to(target.dtype) + target).to(target.dtype)
    target[index] = value
    return target
