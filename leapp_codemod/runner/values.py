"""Tensor/array plumbing for the runner's child process: copies, digests, comparisons."""
from __future__ import annotations

import collections
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from leapp_codemod import boundary
from leapp_codemod.knowledge.leapp import SIGNED_FOR


def is_array(value) -> bool:
    return isinstance(value, (torch.Tensor, np.ndarray))


def is_input_leaf(value) -> bool:
    """A value that is a port of the boundary: a tensor, an array, or a NumPy scalar number (a 0-d input)."""
    return is_array(value) or isinstance(value, np.number)


def plain(value):
    """A detached copy of every tensor/array in a (nested) value, as plain torch.Tensor / ndarray;
    other leaves are kept as they are."""
    if isinstance(value, torch.Tensor):
        out = value.detach().clone()
        return out.as_subclass(torch.Tensor) if type(out) is not torch.Tensor else out
    if isinstance(value, np.ndarray):
        return np.array(value, copy=True, subok=False)
    if isinstance(value, (Mapping, list, tuple, collections.deque)) or _record(value) is not None:
        return boundary.rebuild(value, iter([plain(v) for v in boundary.flatten(value).values()]))
    return value


def _record(value):
    """The attributes of a record object whose tensor/array attributes are inputs (see
    `boundary.record_children`), or None."""
    if value is None or isinstance(value, (bool, int, float, str, bytes, np.generic, Mapping, list, tuple,
                                           collections.deque)) or is_array(value):
        return None
    if boundary.record_children(value) is None:
        return None
    return boundary.record_attributes(value)


def constant_key(value):
    """What must stay equal between calls in an argument: its non-tensor parts (numbers, strings,
    None by value; other objects by identity) and its structure."""
    if is_input_leaf(value):
        return ("array",)
    if isinstance(value, Mapping):
        return ("map", tuple((repr(k), constant_key(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple, collections.deque)):
        return (type(value).__name__, tuple(constant_key(v) for v in value))
    if value is None or isinstance(value, (bool, int, float, str, bytes, np.generic)):
        return ("value", type(value).__name__, repr(value))
    attributes = _record(value)
    if attributes is not None:
        return ("record", type(value).__qualname__, tuple((k, constant_key(v)) for k, v in attributes))
    return ("object", type(value).__qualname__, id(value))


def key_difference(a, b, path: str = "") -> str:
    """Where two `constant_key`s first differ: `.mode`, `[2]`, `['gain']` ('' at the top)."""
    if a[0] == b[0] == "record" and a[1] == b[1] and [k for k, _ in a[2]] == [k for k, _ in b[2]]:
        return next((key_difference(x, y, f"{path}.{k}") for (k, x), (_, y) in zip(a[2], b[2]) if x != y), path)
    if a[0] == b[0] == "map" and [k for k, _ in a[1]] == [k for k, _ in b[1]]:
        return next((key_difference(x, y, f"{path}[{k}]") for (k, x), (_, y) in zip(a[1], b[1]) if x != y), path)
    if a[0] == b[0] and a[0] in ("list", "tuple", "deque") and len(a[1]) == len(b[1]):
        return next((key_difference(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a[1], b[1])) if x != y),
                    path)
    return path


def key_differences(a, b, path: str = "") -> list[str]:
    """Every place two `constant_key`s differ (see `key_difference`), in order."""
    if a == b:
        return []
    if a[0] == b[0] == "record" and a[1] == b[1] and [k for k, _ in a[2]] == [k for k, _ in b[2]]:
        return [d for (k, x), (_, y) in zip(a[2], b[2]) for d in key_differences(x, y, f"{path}.{k}")]
    if a[0] == b[0] == "map" and [k for k, _ in a[1]] == [k for k, _ in b[1]]:
        return [d for (k, x), (_, y) in zip(a[1], b[1]) for d in key_differences(x, y, f"{path}[{k}]")]
    if a[0] == b[0] and a[0] in ("list", "tuple", "deque") and len(a[1]) == len(b[1]):
        return [d for i, (x, y) in enumerate(zip(a[1], b[1])) for d in key_differences(x, y, f"{path}[{i}]")]
    return [path]


def has_constants(value) -> bool:
    """Whether an argument holds anything besides tensors/arrays and their containers."""
    if is_input_leaf(value):
        return False
    if isinstance(value, Mapping):
        return any(has_constants(v) for v in value.values())
    if isinstance(value, (list, tuple, collections.deque)):
        return any(has_constants(v) for v in value)
    attributes = _record(value)
    if attributes is not None:
        return any(has_constants(v) for _, v in attributes)
    return True


def constant_text(value) -> str:
    """The constant parts of an argument, for messages and the report."""
    if is_input_leaf(value):
        return "<array>"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k!r}: {constant_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple, collections.deque)):
        return f"{type(value).__name__}(" + ", ".join(constant_text(v) for v in value) + ")"
    if value is None or isinstance(value, (bool, int, float, str, bytes, np.generic)):
        return repr(value)[:60]
    attributes = _record(value)
    if attributes is not None:
        return f"{type(value).__qualname__}(" + ", ".join(f"{k}={constant_text(v)}" for k, v in attributes) + ")"
    return f"<{type(value).__qualname__} object>"


def digest(values: Mapping) -> str:
    """Content hash of named inputs: equal values give equal digests."""
    h = hashlib.sha256()
    for name in sorted(values):
        h.update(name.encode())
        _feed(h, values[name])
    return h.hexdigest()


def _feed(h, value) -> None:
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().as_subclass(torch.Tensor).contiguous()
        h.update(f"t{value.dtype}{tuple(value.shape)}".encode())
        h.update(value.reshape(-1).view(torch.uint8).numpy().tobytes() if value.numel() else b"")
    elif isinstance(value, np.ndarray):
        a = np.ascontiguousarray(np.asarray(value))
        h.update(f"a{a.dtype}{a.shape}".encode())
        h.update(a.tobytes())
    elif isinstance(value, Mapping):
        for k in sorted(value, key=str):
            h.update(str(k).encode())
            _feed(h, value[k])
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        for v in value:
            _feed(h, v)
    else:
        h.update(repr(value).encode())


def layout(values: Mapping) -> str:
    """Shapes and dtypes of the tensors/arrays in named inputs (exports are specialised to one layout)."""
    flat = boundary.flatten(dict(values))
    return ";".join(f"{name}:{tuple(v.shape)}:{v.dtype}" for name, v in sorted(flat.items()))


def flatten(value, prefix: str = "") -> dict:
    """The boundary's naming of nested values: keys and indices joined with '_', as identifiers."""
    return boundary.flatten(value, prefix)


def leaves(value, prefix: str = "") -> dict:
    """Like `flatten`, but Python and NumPy scalars count as values too (helper results)."""
    if isinstance(value, (bool, int, float, np.generic)):
        return {prefix: np.asarray(value)}
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            out.update(leaves(v, f"{prefix}_{k}" if prefix else str(k)))
        return out
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and not is_array(value):
        out = {}
        for i, v in enumerate(value):
            out.update(leaves(v, f"{prefix}_{i}" if prefix else str(i)))
        return out
    return {prefix: value} if is_array(value) else {}


def to_torch(value) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return plain(value)
    return torch.from_numpy(np.ascontiguousarray(np.array(value, copy=True, subok=False)))


def to_numpy64(value) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return plain(value).to(torch.float64).numpy() if value.dtype != torch.bool else plain(value).numpy()
    return np.asarray(value, dtype=np.float64) if np.asarray(value).dtype != np.bool_ else np.asarray(value)


@dataclass
class Errors:
    """Worst-case difference of one output over all compared calls."""

    max_abs: float = 0.0
    max_rel: float = 0.0
    compared: int = 0
    failures: int = 0
    shape_mismatch: str = ""

    def to_json(self) -> dict:
        out = {"max_abs_error": self.max_abs, "max_rel_error": self.max_rel, "calls": self.compared,
               "mismatched_calls": self.failures, "ok": self.failures == 0 and self.compared > 0}
        if self.shape_mismatch:
            out["shape_mismatch"] = self.shape_mismatch
        return out


def compare(expected, got, errors: Errors, rtol: float, atol: float) -> bool:
    """Update `errors` with one comparison; True when within LEAPP's tolerance."""
    e, g = to_numpy64(expected), to_numpy64(got)
    errors.compared += 1
    if e.shape != g.shape:
        errors.failures += 1
        errors.shape_mismatch = f"expected shape {e.shape}, got {g.shape}"
        errors.max_abs = float("inf")
        return False
    if e.size == 0:
        return True
    e = e.astype(np.float64)
    g = g.astype(np.float64)
    if not (np.all(np.isfinite(g) == np.isfinite(e)) and np.all(g[~np.isfinite(g)] == e[~np.isfinite(e)])):
        errors.failures += 1
        errors.max_abs = float("inf")
        return False
    finite = np.isfinite(e)
    diff = np.abs(e[finite] - g[finite])
    abs_err = float(diff.max()) if diff.size else 0.0
    rel_err = float((diff / np.maximum(np.abs(e[finite]), 1e-12)).max()) if diff.size else 0.0
    errors.max_abs = max(errors.max_abs, abs_err)
    errors.max_rel = max(errors.max_rel, rel_err)
    ok = bool(np.all(diff <= atol + rtol * np.abs(e[finite])))
    if not ok:
        errors.failures += 1
    return ok


def same_values(a: Mapping, b: Mapping) -> bool:
    if a.keys() != b.keys():
        return False
    return all(torch.equal(to_torch(a[k]), to_torch(b[k])) for k in a)


def raw_leaves(value, prefix: str = "") -> dict:
    """Like `leaves`, but scalars are kept as they are (their type matters to a caller)."""
    if isinstance(value, (bool, int, float, np.generic)) or is_array(value):
        return {prefix: value}
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            out.update(raw_leaves(v, f"{prefix}_{k}" if prefix else str(k)))
        return out
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        out = {}
        for i, v in enumerate(value):
            out.update(raw_leaves(v, f"{prefix}_{i}" if prefix else str(i)))
        return out
    return {}


def describe(value) -> str:
    """A short description of an argument: `float32[1, 3] tensor`, `0.5`, `ReachConfig`."""
    if isinstance(value, torch.Tensor):
        return f"{str(value.dtype).replace('torch.', '')}{list(value.shape)} tensor"
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{list(value.shape)} array"
    if isinstance(value, (bool, int, float, np.generic, str)) or value is None:
        return repr(value)[:40]
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__} of {len(value)}"
    return type(value).__name__


def perturbed(value, rng: np.random.Generator):
    """A copy of `value` with Gaussian noise (10% of each array's mean magnitude) added to every
    floating tensor or array in it; (copy, whether anything was perturbed)."""
    changed = [False]

    def walk(v):
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            changed[0] = True
            base = plain(v)
            sigma = 0.1 * (float(base.abs().mean()) + 1e-3) if base.numel() else 0.0
            noise = torch.from_numpy(rng.normal(0.0, sigma, size=tuple(base.shape))).to(base.dtype)
            return base + noise
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            changed[0] = True
            base = np.array(v, copy=True, subok=False)
            sigma = 0.1 * (float(np.abs(base).mean()) + 1e-3) if base.size else 0.0
            return (base + rng.normal(0.0, sigma, size=base.shape)).astype(base.dtype)
        if isinstance(v, Mapping):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, tuple):
            return tuple(walk(x) for x in v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if _record(v) is not None:
            return boundary.rebuild(v, iter([walk(x) for x in boundary.flatten(v).values()]))
        return v

    out = walk(value)
    return out, changed[0]




def _same_dtype(expected, got) -> bool:
    return expected == got or SIGNED_FOR.get(str(expected)) == str(got)


def mismatch(expected, got, rtol: float, atol: float) -> tuple[str | None, float]:
    """Why a replacement's result differs from the original's (None when it matches), and the
    largest absolute difference seen. Arrays and tensors must keep their kind and dtype (an unsigned
    dtype LEAPP cannot export may come back as the signed dtype that holds the same values); a Python
    or NumPy scalar may come back as a 0-d tensor or array of the same value."""
    e_flat, g_flat = raw_leaves(expected), raw_leaves(got)
    if set(e_flat) != set(g_flat):
        return "it returns a different structure than the original", float("inf")
    worst = 0.0
    for key, e in e_flat.items():
        g = g_flat[key]
        what = f"output {key!r}" if key else "the result"
        for kind in (np.ndarray, torch.Tensor):
            if isinstance(e, kind) and not (isinstance(g, kind) and _same_dtype(e.dtype, g.dtype)):
                return (f"{what} is {describe(g) if is_array(g) else type(g).__name__} where the original returns "
                        f"{describe(e)}"), float("inf")
        errors = Errors()
        ok = compare(e, g, errors, rtol, atol)
        worst = max(worst, errors.max_abs)
        if not ok:
            detail = errors.shape_mismatch or f"max abs error {errors.max_abs:.3g}, max rel error {errors.max_rel:.3g}"
            return f"{what} differs: {detail}", worst
    return None, worst


def numbers_as_one_element(expected, got):
    """`got` with each shape-(1,) array or tensor that stands where the original returned a number (a NumPy
    or Python scalar, a 0-d array) made 0-d: a twin keeps numbers as one-element arrays (`twin_unpack`),
    the shape LEAPP traces NumPy numbers in; the values are compared, the shape is the twin's convention."""
    if isinstance(expected, (tuple, list)) and isinstance(got, (tuple, list)) and len(expected) == len(got):
        return type(got)(numbers_as_one_element(e, g) for e, g in zip(expected, got))
    number = isinstance(expected, (int, float, np.generic)) or (is_array(expected) and expected.ndim == 0)
    if number and is_array(got) and tuple(got.shape) == (1,):
        return got.reshape(())
    return got
