"""What a value read by the pipeline is, and whether it stayed the same between observed calls.

Runs in the observed process, and works without importing torch or NumPy (types are recognized by
their module and name), so it can watch any application. `fingerprint` is equal for a value the
pipeline did not change between two calls: content for small arrays and tensors (plus a tensor's
version counter), the value for Python scalars and strings, element fingerprints for containers,
identity for other objects (a model, a config object whose own fields are watched separately).
"""
from __future__ import annotations

import hashlib

_HASH_BYTES = 1 << 20     # larger arrays are fingerprinted by identity, shape, dtype and a sample
_DEPTH = 2                # container levels fingerprinted element by element
_ITEMS = 32               # elements per container level

NUMBER, STRING, BOOL, NONE, NDARRAY, TENSOR, CONTAINER, OBJECT = (
    "number", "string", "bool", "none", "ndarray", "tensor", "container", "object")


def _type_is(value, module: str, names: tuple[str, ...]) -> bool:
    t = type(value)
    return any((c.__module__ or "").split(".")[0] == module and c.__name__ in names for c in t.__mro__[:4])


def is_tensor(value) -> bool:
    return _type_is(value, "torch", ("Tensor",))


def is_ndarray(value) -> bool:
    return _type_is(value, "numpy", ("ndarray",))


def kind(value) -> str:
    """number, string, bool, none, ndarray, tensor, container, object."""
    if value is None:
        return NONE
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return BOOL
    if isinstance(value, (int, float, complex)) or _type_is(value, "numpy", ("integer", "floating", "number")):
        return NUMBER
    if isinstance(value, (str, bytes)):
        return STRING
    if is_tensor(value):
        return TENSOR
    if is_ndarray(value):
        return NDARRAY
    if isinstance(value, (list, tuple, dict, set, frozenset)) or type(value).__name__ == "deque":
        return CONTAINER
    return OBJECT


def _array_body(array) -> str:
    try:
        nbytes = int(array.nbytes)
        raw = array.tobytes() if nbytes <= _HASH_BYTES else array.reshape(-1)[:4096].tobytes()
        return hashlib.blake2b(raw, digest_size=8).hexdigest()
    except Exception:  # noqa: BLE001 - an exotic array subclass: identity only
        return ""


def fingerprint(value, depth: int = 0):
    """Equal for values a call did not change (see the module docstring)."""
    k = kind(value)
    if k in (NONE, BOOL, NUMBER, STRING):
        return (k, repr(value)[:200])
    if k == TENSOR:
        try:
            t = value.detach()
            body = _array_body(t.cpu().numpy()) if t.device.type == "cpu" and t.dtype.is_floating_point is not None \
                else ""
        except Exception:  # noqa: BLE001 - bfloat16, sparse, meta tensors: version and identity only
            body = ""
        return (k, id(value), getattr(value, "_version", 0), tuple(value.shape), str(value.dtype), body)
    if k == NDARRAY:
        return (k, value.shape, str(value.dtype), _array_body(value))
    if k == CONTAINER:
        if depth >= _DEPTH:
            return (k, id(value), len(value))
        items = list(value.items())[:_ITEMS] if isinstance(value, dict) else list(value)[:_ITEMS] \
            if not isinstance(value, (set, frozenset)) else sorted(map(repr, value))[:_ITEMS]
        return (k, type(value).__name__, len(value), tuple(fingerprint(i, depth + 1) for i in items))
    return (k, id(value), type(value).__qualname__)


def truth(value):
    """The truth value of a scalar setting (None when it has none cheaply: arrays, objects)."""
    if kind(value) in (NONE, BOOL, NUMBER, STRING):
        try:
            return bool(value)
        except Exception:  # noqa: BLE001
            return None
    return None


def summary(value) -> str:
    """A short text for reports (`0.5`, `'eval'`, `tensor (4, 2) float32`)."""
    k = kind(value)
    if k in (NONE, BOOL, NUMBER, STRING):
        return repr(value)[:60]
    if k in (TENSOR, NDARRAY):
        return f"{k} {tuple(value.shape)} {value.dtype}"
    if k == CONTAINER:
        return f"{type(value).__name__} of {len(value)}"
    return type(value).__qualname__
