"""Find the pipeline's state by observation: what the entry can reach, before and after each call.

Everything reachable from the entry's receiver and from its module's globals (attributes, nested
objects, dicts, lists, tuples, deques, module buffers) is fingerprinted; a value the step changes
during a call (a tensor written in place, an array or tuple reassigned, None that becomes a
tensor) is state. A value that never changes is a constant, never state. State is per object:
two instances of one class are found at two paths.
"""
from __future__ import annotations

import collections
import hashlib
import types
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import torch

from leapp_codemod.boundary import StateRef, fresh_port, port_name

LIMIT = 20000            # objects visited per walk
_HASH_BYTES = 1 << 22    # arrays larger than this are fingerprinted by identity and address only
_NUMBER = (int, float, np.integer, np.floating)


def _is_array(value) -> bool:
    return isinstance(value, (torch.Tensor, np.ndarray))


def _is_state_value(value) -> bool:
    """A value that can be LEAPP state as a whole: a tensor/array, or a container of them."""
    if _is_array(value):
        return not isinstance(value, torch.nn.Parameter)
    if isinstance(value, (tuple, list, collections.deque)) and value:
        return all(_is_array(v) or _is_state_value(v) for v in value)
    return False


def _candidate(value) -> bool:
    """A value whose changes are watched: state, a number, a flag (a Python bool the host may set)."""
    return value is None or _is_state_value(value) or isinstance(value, (*_NUMBER, bool, np.bool_))


_MODULE_INTERNALS = frozenset(vars(torch.nn.Module()))   # torch's own bookkeeping (hooks, dicts)


def children(obj) -> list[tuple[tuple[str, object], object]]:
    if isinstance(obj, torch.nn.Module):
        own = {k: v for k, v in vars(obj).items() if k not in _MODULE_INTERNALS}
        own.update(obj._buffers)
        own.update(obj._modules)
        return [(("attr", k), v) for k, v in own.items()]
    if isinstance(obj, Mapping):
        return [(("key", k), v) for k, v in obj.items() if isinstance(k, (str, int))]
    if isinstance(obj, (list, tuple, collections.deque)):
        return [(("key", i), v) for i, v in enumerate(obj)]
    if isinstance(obj, types.ModuleType):
        return [(("attr", k), v) for k, v in vars(obj).items() if not k.startswith("__")
                and not isinstance(v, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType))]
    if hasattr(obj, "__dict__") and not isinstance(obj, (type, types.FunctionType, types.MethodType)):
        try:
            return [(("attr", k), v) for k, v in vars(obj).items()]
        except TypeError:
            return []
    return []


def walk(roots: dict[str, object], limit: int = LIMIT,
         sizes: dict | None = None) -> tuple[dict[tuple, object], dict[tuple, int]]:
    """({path: value} of every candidate state value reachable from the roots, {path: id} of every
    object passed through on the way). A path is (root label, *steps). `sizes`, when given, receives
    {path: length} of every list, tuple, deque and dict passed through (not a candidate itself)."""
    found: dict[tuple, object] = {}
    objects: dict[tuple, int] = {}
    seen: set[int] = set()
    queue: collections.deque = collections.deque()
    for label, root in roots.items():
        queue.append(((label,), root))
    while queue and len(seen) < limit:
        path, obj = queue.popleft()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        objects[path] = id(obj)
        if sizes is not None and isinstance(obj, (list, tuple, collections.deque, Mapping)):
            sizes[path] = len(obj)
        for step, child in children(obj):
            child_path = path + (step,)
            if _candidate(child):
                found.setdefault(child_path, child)
            elif not isinstance(child, (str, bytes, bool, complex, types.FunctionType, types.BuiltinFunctionType,
                                        types.MethodType, type)):
                queue.append((child_path, child))
    return found, objects


def reachable(roots: dict[str, object], limit: int = LIMIT) -> dict[tuple, object]:
    """{(root label, *steps): value} for every candidate state value reachable from the roots."""
    return walk(roots, limit)[0]


def fingerprint(value):
    """Equal for values the step did not change (content for arrays, version counters for tensors)."""
    if isinstance(value, torch.Tensor):
        t = value.detach()
        body = ""
        if t.numel() * t.element_size() <= _HASH_BYTES and t.device.type == "cpu":
            body = hashlib.sha1(t.contiguous().as_subclass(torch.Tensor).reshape(-1).view(torch.uint8)
                                .numpy().tobytes() if t.numel() else b"").hexdigest()
        return ("t", id(value), t._version, tuple(t.shape), str(t.dtype), body)
    if isinstance(value, np.ndarray):
        body = hashlib.sha1(np.ascontiguousarray(value).tobytes()).hexdigest() if value.nbytes <= _HASH_BYTES \
            else value.__array_interface__["data"][0]
        return ("a", id(value), value.shape, str(value.dtype), body)
    if isinstance(value, (tuple, list, collections.deque)):
        return (type(value).__name__, tuple(fingerprint(v) for v in value))
    if value is None:
        return ("none",)
    return ("n", repr(value))


def fingerprints(roots: dict[str, object]) -> tuple[dict[tuple, object], dict[tuple, int]]:
    found, objects = walk(roots)
    return {path: fingerprint(v) for path, v in found.items()}, objects


def changed(before: tuple[dict, dict], after: tuple[dict, dict]) -> set[tuple]:
    """Paths whose value the call changed (or created) in objects that existed before the call. A
    value inside an object the call replaced (a distribution or cache rebuilt on every call) was
    not carried over from the previous call, so it is not state."""
    (fp_before, obj_before), (fp_after, obj_after) = before, after
    out = set()
    for path, fp in fp_after.items():
        if fp_before.get(path, ("absent",)) == fp:
            continue
        if all(obj_before.get(path[:k]) == obj_after.get(path[:k]) for k in range(1, len(path))):
            out.add(path)
    return out


def describe_path(path: tuple) -> str:
    text = path[0]
    for kind, key in path[1:]:
        text += f".{key}" if kind == "attr" else f"[{key!r}]"
    return text


def state_name(path: tuple, taken: set[str]) -> str:
    name = ""
    for _, key in path[1:]:
        name = port_name(name, key)
    return fresh_port(name or "state", taken, "_state")


def ref(name: str, roots: dict[str, object], path: tuple) -> StateRef:
    return StateRef(name, roots[path[0]], tuple(path[1:]))


@dataclass
class Observed:
    """One observed state value: where, what, and what explains it."""

    path: tuple
    name: str
    value: object                # the value after the first call that changed it
    initial: object              # the value before the first recorded call
    explained_by: str = ""
    carried_as: str = ""         # a number's kind in the export: "numpy" (shape-(1,) array) or "torch" (0-d tensor)

    def to_json(self) -> dict:
        v = self.value
        leaves = _leaves(v)
        if isinstance(v, _NUMBER):
            dtype = "int64" if isinstance(v, (int, np.integer)) else "float32" \
                if self.carried_as == "numpy-float32" else "float64"
            as_array = self.carried_as.startswith("numpy")
            carried = f"{dtype} array of shape (1,)" if as_array else f"0-d {dtype} tensor"
            return {"owner_path": describe_path(self.path), "name": self.name,
                    "shape": [1] if as_array else [],
                    "dtype": f"{type(v).__module__.replace('builtins', 'python')} {type(v).__name__} (a {carried} "
                             "in the export, the kind its readers take)", "kind": "counter",
                    "initial": "the value before the first recorded call",
                    "explained_by": self.explained_by or "no static finding"}
        return {"owner_path": describe_path(self.path), "name": self.name,
                "shape": [list(x.shape) for x in leaves] if not _is_array(v) else list(v.shape),
                "dtype": [str(x.dtype) for x in leaves] if not _is_array(v) else str(v.dtype),
                "kind": _kind(v), "initial": "None (taken from a warm-up call before tracing)"
                if _empty(self.initial) else "the value before the first recorded call",
                "explained_by": self.explained_by or "no static finding"}


def _leaves(value) -> list:
    if _is_array(value):
        return [value]
    if isinstance(value, (tuple, list, collections.deque)):
        return [x for v in value for x in _leaves(v)]
    return []


def _empty(value) -> bool:
    return not _leaves(value)


def _kind(value) -> str:
    if isinstance(value, torch.Tensor):
        return "tensor"
    if isinstance(value, np.ndarray):
        return "ndarray"
    if isinstance(value, (tuple, list, collections.deque)):
        return f"{type(value).__name__} of tensors/arrays"
    return type(value).__name__


def exportable_state(value) -> bool:
    """A changed value LEAPP can carry as state: a tensor/array or a container of them, or a Python
    number counter (carried as a 0-d array or tensor, the kind its readers take)."""
    return _is_state_value(value) or (isinstance(value, _NUMBER) and not isinstance(value, (bool, np.bool_)))
