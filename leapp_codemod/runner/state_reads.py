"""Which changed values are state, decided by reads: a value is state only when a call reads its old
value and that read reaches the outputs (directly, or through the new value of another state value
that a later call reads).

Measured, not guessed. On copies of the application's objects brought to the state recorded before
a checked call, that call is run once as recorded and once per candidate with only that candidate
changed. A candidate whose change moves neither an output nor the new value of another state value
was written before it was read, or read only by telemetry, I/O or code outside the entry (the slot a
`deque(maxlen=N)` evicts, a per-call cache, a peak kept for a log line): not state. An array or tensor
the call writes into in place (a preallocated observation buffer filled slice by slice, also when the
step then rebinds the attribute to a new value computed from it) stays state even when every slot is
written before it is read: LEAPP traces those writes only into a traced buffer. A value the step
resets to the same constant on every call, whatever it held, is set by the host (an episode-start
flag): a host-driven input, not state. A Python or NumPy number that is state is carried in the kind
its readers take (a shape-(1,) NumPy array for NumPy code, a 0-d tensor for torch code), tried on the
same copies. Probes run with the global random generators restored, printing silenced, and module
globals put back; they never touch the application's own instance. They run with the integration
module's FunctionPatch replacements in place, as tracing will: a state kind the twinned code takes
(a shape-(1,) phase joined by a twin) is not refused for what only the original helper does with it.
"""
from __future__ import annotations

import collections
import contextlib
import copy
import io
import linecache
import logging
import os
import random
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from leapp_codemod import held as held_inputs
from leapp_codemod.boundary import StateRef
from leapp_codemod.runner import values
from leapp_codemod.runner.intercept import replaced

_NUMBER = (int, float, np.integer, np.floating)


@dataclass
class Reads:
    """What the probes found, per leaf path (a container of a fixed length is probed slot by slot)."""

    state: set = field(default_factory=set)            # leaf paths that are state
    leaves: dict = field(default_factory=dict)         # candidate path -> its leaf paths
    unread: dict = field(default_factory=dict)         # leaf path -> why it is not state
    host_set: dict = field(default_factory=dict)       # leaf path -> the constant the step resets it to
    kinds: dict = field(default_factory=dict)          # number leaf path -> "numpy" | "torch"
    growing_read: list = field(default_factory=list)   # growing containers the outputs depend on
    in_place: set = field(default_factory=set)         # buffers a call writes into (kept as state: see probe)
    calls: list = field(default_factory=list)          # indices of the probed calls
    uncarried: dict = field(default_factory=dict)      # number leaf path -> {kind: where the call raised}
    branch_only: dict = field(default_factory=dict)    # host-set leaf -> where Python control flow reads it
    masked: dict = field(default_factory=dict)         # leaf -> probed calls that read it but mask its effect


def _get(roots: dict, path: tuple):
    return StateRef("probe", roots[path[0]], tuple(path[1:])).get()


def _set(roots: dict, path: tuple, value) -> None:
    StateRef("probe", roots[path[0]], tuple(path[1:])).set(value)


def lookup(snapshot: dict, path: tuple, default=None):
    """The value at `path` in a {path: value} snapshot, descending into the nearest recorded container."""
    if path in snapshot:
        return snapshot[path]
    for k in range(len(path) - 1, 0, -1):
        if path[:k] in snapshot:
            value = snapshot[path[:k]]
            try:
                for kind, key in path[k:]:
                    value = getattr(value, key) if kind == "attr" else value[key]
            except (AttributeError, KeyError, IndexError, TypeError):
                return default
            return value
    return default


def same(a, b) -> bool:
    """Equal kind, structure and values (NaN equals NaN); objects that are not values count as equal."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        a, b = a.detach().cpu(), b.detach().cpu()
        return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b) or (
            a.is_floating_point() and torch.equal(torch.nan_to_num(a, nan=7.25), torch.nan_to_num(b, nan=7.25))))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        return a.shape == b.shape and a.dtype == b.dtype and bool(
            np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, collections.deque)) and isinstance(b, (list, tuple, collections.deque)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (bool, np.bool_, *_NUMBER)) or isinstance(b, (bool, np.bool_, *_NUMBER)):
        if type(a) is not type(b):
            return False
        return bool(a == b) or bool(np.isnan(float(a)) and np.isnan(float(b)))
    if a is None or b is None or isinstance(a, (str, bytes)):
        return a == b
    return True


def perturb(value, attempt: int):
    """`value` changed everywhere (a different change for each attempt), or None when it cannot be."""
    scale = (0.5, -1.7)[attempt % 2]
    if isinstance(value, (bool, np.bool_)):
        return not value
    if isinstance(value, (int, np.integer)):
        return type(value)(value + (1, 7)[attempt % 2])
    if isinstance(value, (float, np.floating)):
        return type(value)(value + scale * (abs(float(value)) + 1.0))
    if isinstance(value, torch.Tensor):
        t = values.plain(value)
        if t.dtype == torch.bool:
            return ~t
        if not t.is_floating_point():
            return t + (1, 7)[attempt % 2]
        gen = torch.Generator().manual_seed(11 + attempt)
        noise = torch.randn(t.shape, generator=gen, dtype=torch.float64).to(t.dtype)
        return t + scale * (t.abs().mean() + 1.0 if t.numel() else 1.0) * (noise + 0.5)
    if isinstance(value, np.ndarray):
        a = np.array(value, copy=True, subok=False)
        if a.dtype == np.bool_:
            return ~a
        if a.dtype.kind in "iu":
            return a + np.asarray((1, 7)[attempt % 2], dtype=a.dtype)
        if a.dtype.kind != "f":
            return None
        rng = np.random.default_rng(11 + attempt)
        size = float(np.abs(a).mean()) + 1.0 if a.size else 1.0
        return (a + scale * size * (rng.standard_normal(a.shape) + 0.5)).astype(a.dtype)
    if isinstance(value, (tuple, list, collections.deque)) and value:
        items = [perturb(v, attempt) for v in value]
        if any(i is None for i in items):
            return None
        if isinstance(value, collections.deque):
            return collections.deque(items, maxlen=value.maxlen)
        return type(value)(items) if not hasattr(value, "_fields") else type(value)(*items)
    return None


def grown(value):
    """A list or deque with one more item (a copy of its last one), or None."""
    if isinstance(value, (list, collections.deque)) and value and (
            not isinstance(value, collections.deque) or value.maxlen is None):
        out = copy.copy(value)
        out.append(copy.deepcopy(value[-1]))
        return out
    return None


def shrunk(value):
    """A list or deque without its first item (the next one a FIFO would pop), or None."""
    if isinstance(value, (list, collections.deque)) and value:
        out = copy.copy(value)
        del out[0]
        return out
    return None


def leaf_paths(path: tuple, value, lengths: list[int]) -> list[tuple]:
    """A deque or list that kept one length during the recorded calls is probed slot by slot (a
    history whose oldest slot is evicted before it is read); anything else as a whole."""
    fixed = isinstance(value, collections.deque) or (lengths and len(set(lengths)) == 1)
    if isinstance(value, (list, collections.deque)) and value and fixed:
        return [path + (("key", i),) for i in range(len(value))]
    return [path]


def _longest(path: tuple, calls: list, first):
    """The value of `path` with the most slots among the first changed one and the ones the probed
    calls start from: a deque that starts empty and fills up is probed slot by slot at its full length."""
    seen = [first] + [lookup(c.state_before, path, None) for c in calls]
    sized = [v for v in seen if isinstance(v, (list, collections.deque))]
    return max(sized, key=len) if sized else first


class _Prober:
    """Runs one recorded call on fresh copies of the application's objects (see the module docstring)."""

    def __init__(self, recorder, fresh, call, starts: dict, restore: dict, watch: list, patches=()):
        self.recorder, self.fresh, self.call, self.watch = recorder, fresh, call, watch
        self.patches = tuple(patches)   # the integration module's FunctionPatch replacements (see replaced)
        self.starts = starts          # path -> the value it holds before the call
        self.restore = restore        # path of a module global -> its value now (put back after each run)
        self.rng = (torch.get_rng_state(), np.random.get_state(), random.getstate())
        self.in_place: set = set()    # leaves the last run wrote into (the same array or tensor object)

    def run(self, change=None, watch=None):
        """(outputs, roots after the call), or raises what the application raised. `change(roots)`
        is applied after the state is brought to the call's starting state."""
        roots = self.fresh()
        try:
            for path, value in self.starts.items():
                _set(roots, path, values.plain(copy.deepcopy(value)))
            if change is not None:
                change(roots)
            held = {p: v for p in self.watch if values.is_array(v := _safe(roots, p))}
            held_before = {p: copy.deepcopy(values.plain(v)) for p, v in held.items()}
            torch.set_rng_state(self.rng[0])
            np.random.set_state(self.rng[1])
            random.setstate(self.rng[2])
            entry = self.recorder.entry.function
            if self.recorder.entry.is_method:
                entry = held_inputs.fed(entry.__get__(roots["self"]), self.recorder.held)
            with _quiet(), replaced(self.patches), (watch or contextlib.nullcontext()):
                out = entry(**values.plain(self.call.inputs), **self.recorder.statics)
            # written into in place: the buffer still held, or the one held before the step rebound the
            # path to a new value after filling it (`buf[:3] = x; buf = np.clip(buf, ...)`)
            self.in_place = {p for p, v in held.items()
                             if _safe(roots, p) is v or not same(values.plain(v), held_before[p])}
            return values.plain(out), {p: values.plain(_safe(roots, p)) for p in self.watch}
        finally:
            for path, value in self.restore.items():
                try:
                    _set(roots, path, value)
                except (AttributeError, KeyError, IndexError, TypeError):
                    pass
            torch.set_rng_state(self.rng[0])
            np.random.set_state(self.rng[1])
            random.setstate(self.rng[2])


def _safe(roots: dict, path: tuple):
    try:
        return _get(roots, path)
    except (AttributeError, KeyError, IndexError, TypeError):
        return _ABSENT


_ABSENT = object()


@contextlib.contextmanager
def _quiet():
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        logging.disable(previous)


def _changed_leaves(base: dict, got: dict) -> set:
    return {p for p in base if not same(base[p], got.get(p, _ABSENT))}


def probe(recorder, fresh, candidates: list[tuple], growing: list[tuple], patches=()) -> Reads | None:
    """Decide by reads which `candidates` (changed paths) are state; `growing` are containers whose
    length changed between calls (checked only for whether the outputs depend on them: one item more,
    or the first item fewer). `fresh()`
    gives new copies of the roots. None when the probes cannot tell (no copy of the instance, no
    recorded starting state, the call is not deterministic, or the recorded call raises). `patches` are
    the integration module's FunctionPatch replacements, in place during every probe call."""
    calls = _probe_calls(recorder)
    if not calls:
        return None
    reads = Reads()
    for path in candidates:
        reads.leaves[path] = leaf_paths(path, _longest(path, calls, recorder.changed.get(path)),
                                        recorder.lengths.get(path, []))
    leaves = [leaf for path in candidates for leaf in reads.leaves[path]]
    edges: dict = {leaf: set() for leaf in leaves}
    direct: set = set()
    unknown: set = set()
    after_values: dict = {leaf: [] for leaf in leaves}
    try:
        live = fresh()   # a copy of the instance, and the application's live modules
    except Exception:  # noqa: BLE001 - no copy: the probes would change the application's own instance
        return None
    restore = {p: v for p in recorder.changed if p[0] != "self" and (v := _safe(live, p)) is not _ABSENT}
    for call in calls:
        starts = {p: v for p in recorder.changed if (v := lookup(call.state_before, p, _ABSENT)) is not _ABSENT}
        prober = _Prober(recorder, fresh, call, starts, restore, leaves, patches)
        try:
            base_out, base_after = prober.run()
            again_out, again_after = prober.run()
        except Exception:  # noqa: BLE001 - a call that raises on a copy tells nothing
            return None
        if not same(base_out, again_out) or _changed_leaves(base_after, again_after):
            return None
        reads.calls.append(call.index)
        written = {p for p in prober.in_place if not same(values.plain(lookup(starts, p)), base_after.get(p))}
        reads.in_place |= written
        for leaf in leaves:
            after_values[leaf].append(base_after.get(leaf))
            old = lookup(starts, leaf, _ABSENT)
            if old is _ABSENT:
                continue                      # created by a later call: nothing read it before
            for attempt in range(2):
                new = perturb(old, attempt)
                if new is None:
                    unknown.add(leaf)
                    break
                try:
                    out, after = prober.run(lambda roots, leaf=leaf, new=new: _set(roots, leaf, new))
                except Exception:  # noqa: BLE001 - a changed value the step refuses is read by it
                    direct.add(leaf)
                    break
                moved = _changed_leaves(base_after, after)
                edges[leaf] |= moved
                if not same(base_out, out):
                    direct.add(leaf)
                if leaf in direct or moved - {leaf}:
                    break
            if leaf not in direct and not edges[leaf] and leaf not in unknown and _read_by_torch(prober, leaf, old):
                reads.masked.setdefault(leaf, []).append(call.index)
        for path in growing:
            old = lookup(starts, path, _ABSENT)
            for other in ((grown(old), shrunk(old)) if old is not _ABSENT else ()):
                if other is None or path in reads.growing_read:
                    continue
                try:
                    out, _ = prober.run(lambda roots, path=path, other=other: _set(roots, path, other))
                except Exception:  # noqa: BLE001
                    out = _ABSENT
                if out is _ABSENT or not same(base_out, out):
                    reads.growing_read.append(path)
        for leaf in leaves:
            number = lookup(starts, leaf)
            if leaf in direct and leaf not in reads.kinds and (_is_number(number) or isinstance(number, (bool, np.bool_))):
                number = number if _is_number(number) else int(number)
                reads.kinds[leaf], failed = _kind(prober, leaf, number, base_out, base_after)
                if failed:
                    reads.uncarried[leaf] = failed
    state = set(direct) | unknown | reads.in_place   # a buffer filled in place must be traced to keep the writes
    state |= set(reads.masked) - {leaf for leaf in leaves if edges[leaf]}   # read, its effect masked: see _read_by_torch
    grew = True
    while grew:
        grew = False
        for leaf in leaves:
            if leaf not in state and (edges[leaf] - {leaf}) & state:
                state.add(leaf)
                grew = True
    fed = {m for leaf in leaves for m in edges[leaf]}
    for leaf in leaves:
        seen = after_values[leaf]
        if leaf in state and leaf not in fed and leaf not in unknown and (leaf in direct or leaf not in reads.masked) \
                and seen and all(
                same(seen[0], v) for v in seen) and _reset_everywhere(recorder, leaf, seen[0]):
            reads.host_set[leaf] = seen[0]
            state.discard(leaf)
    reads.state = state
    if calls:
        for leaf, constant in reads.host_set.items():
            site = _branch_read(prober, leaf, constant)
            if site:
                reads.branch_only[leaf] = site
    for leaf in leaves:
        if leaf not in state and leaf not in reads.host_set:
            reads.unread[leaf] = ("its old value never reaches the outputs (written before it is read, or read "
                                  "only by telemetry, I/O or code outside the entry)")
    return reads


# Torch functions that read only a tensor's shape, dtype or device, never its values.
_SHAPE_ONLY = frozenset({"zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
                         "randint_like", "size", "dim", "__len__", "__get__", "shape", "dtype", "device"})


def _read_by_torch(prober: _Prober, leaf: tuple, old) -> bool:
    """The call reads the tensor `old` at `leaf` by value (a torch function takes it) although changing it
    moved no output and no state: the step masks its effect on this call (`torch.where(standing, 0,
    phase + step)` while standing) and it can show on others; a value written before it is read, or read
    only to update itself, is not read this way (those move nothing or only themselves)."""
    if not isinstance(old, torch.Tensor):
        return False
    from torch.overrides import TorchFunctionMode

    marker = old.clone()
    seen: list[bool] = []

    class Watch(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if not seen and getattr(func, "__name__", "") not in _SHAPE_ONLY and any(
                    a is marker or (isinstance(a, (list, tuple)) and any(b is marker for b in a))
                    for a in (*args, *kwargs.values())):
                seen.append(True)
            return func(*args, **kwargs)

    try:
        prober.run(lambda roots: _set(roots, leaf, marker), watch=Watch())
    except Exception:  # noqa: BLE001 - a call that raises under the watch tells nothing
        return False
    return bool(seen)


def _reset_everywhere(recorder, leaf: tuple, constant) -> bool:
    """Every recorded call left `leaf` at `constant`."""
    after = [lookup(c.state_after, leaf, _ABSENT) for c in (*recorder.checks, *recorder.later) if c.state_after]
    return bool(after) and all(v is not _ABSENT and same(values.plain(v), constant) for v in after)


def _probe_calls(recorder) -> list:
    checks = [c for c in recorder.checks if c.state_before]
    return checks[:1] + checks[-1:] if len(checks) > 1 else checks


def _is_number(value) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, (bool, np.bool_))


# The kinds a number state is carried in; FLOAT32_KIND is a float carried as a float32 shape-(1,) array, for
# NumPy readers of float32 arrays (`var * count`: a Python float keeps them float32, a float64 array would not).
FLOAT32_KIND = "numpy-float32"
NUMBER_KINDS = ("numpy", FLOAT32_KIND, "torch")


def carried(value, kind: str):
    """A number state in the kind it is carried in: "numpy" is a shape-(1,) array (LEAPP traces NumPy
    arithmetic on a 0-d array into untraced NumPy scalars), FLOAT32_KIND the same in float32 (a float), "torch"
    a 0-d tensor; other values as they are."""
    if not _is_number(value) or kind not in NUMBER_KINDS:
        return value
    integer = isinstance(value, (int, np.integer))
    if kind in ("numpy", FLOAT32_KIND):
        return np.full(1, value, dtype=np.int64 if integer else np.float32 if kind == FLOAT32_KIND else np.float64)
    return torch.tensor(int(value) if integer else float(value), dtype=torch.int64 if integer else torch.float64)


def _kind(prober: _Prober, leaf: tuple, value, base_out, base_after) -> tuple[str, dict]:
    """(the kind a number state is carried in, {kind: where it fails}): the first of a NumPy array and a
    tensor (see `carried`) under which the call gives the same outputs (NumPy first when the number is a
    NumPy scalar or every array the entry receives is a NumPy array). A kind under which the call raises
    is named with the line that raised; the tensor kind raises where NumPy takes the tensor in, which is
    where LEAPP's trace of a tensor ends."""
    arrays = list(values.flatten(prober.call.inputs).values())
    numpy_first = isinstance(value, np.generic) or (arrays and all(isinstance(a, (np.ndarray, np.number))
                                                                   for a in arrays))
    order = ("numpy", "torch") if numpy_first else ("torch", "numpy")
    if isinstance(value, (float, np.floating)):
        order += (FLOAT32_KIND,)
    failed: dict = {}
    for kind in order:
        try:
            out, after = prober.run(lambda roots, kind=kind: _set(roots, leaf, _probe_value(value, kind)))
        except Exception as exc:  # noqa: BLE001 - the readers refuse this kind
            failed[kind] = _raised_at(exc)
            continue
        if _same_values(base_out, out, close=kind == FLOAT32_KIND) and _kept_dtypes(base_after, after, leaf):
            return kind, {}
    return order[0], failed if {"numpy", "torch"} <= failed.keys() else {}


def _kept_dtypes(base: dict, got: dict, leaf: tuple) -> bool:
    """Every other array the call leaves behind has the type and dtype it has when the number is a number
    (a state whose dtype changes is refused by LEAPP's update_state: `var * count` turns a float32 `var`
    into float64 when `count` is a float64 array)."""
    for path, x in base.items():
        y = got.get(path, _ABSENT)
        if path != leaf and values.is_array(x) and values.is_array(y) and (type(x) is not type(y)
                                                                           or x.dtype != y.dtype):
            return False
    return True


class _BranchRead(Exception):
    """Raised where Python control flow takes the truth of a host value standing in a probe."""


class _FlagTensor(torch.Tensor):
    """A 0-d tensor standing for a host-set flag or number in a probe: Python control flow taking its
    truth (`if not flag:`, `a if flag else b`, `and`/`or`) raises, as a traced input would be a tensor
    branch there (LEAPP traces one side and signals it)."""

    def __bool__(self):
        raise _BranchRead("a host-set value decides Python control flow")


def _branch_read(prober: _Prober, leaf: tuple, constant) -> str:
    """Where Python control flow reads the host-set value at `leaf` (`path:line (`source`)`), or ''
    when the call takes it as data only (arithmetic, an array)."""
    if not (_is_number(constant) or isinstance(constant, (bool, np.bool_))):
        return ""
    number = carried(int(constant) if isinstance(constant, (bool, np.bool_)) else constant, "torch")
    try:
        prober.run(lambda roots: _set(roots, leaf, number.as_subclass(_FlagTensor)))
    except _BranchRead as exc:
        text = _raised_at(exc)
        return text.split(": _BranchRead", 1)[0] if ": _BranchRead" in text else "code outside the application"
    except Exception:  # noqa: BLE001 - a call that refuses a tensor here says nothing of control flow
        return ""
    return ""


class _NumberTensor(torch.Tensor):
    """A 0-d tensor standing for a number in a probe. NumPy taking it in (`__array__`) raises: under
    LEAPP a traced tensor that reaches NumPy leaves the trace there."""

    def __array__(self, *args, **kwargs):
        raise TypeError("a tensor standing for a Python number reached NumPy code")


def _probe_value(value, kind: str):
    out = carried(value, kind)
    return out.as_subclass(_NumberTensor) if kind == "torch" else out


_OWN_DIR = str(Path(__file__).resolve().parent.parent)


def _raised_at(exc: BaseException) -> str:
    """`path:line (`source`): Type: message` of the innermost application frame of an exception."""
    site = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        path = os.path.abspath(frame.filename)
        if ("site-packages" in path or "dist-packages" in path or frame.filename.startswith("<")
                or path.startswith((_OWN_DIR, sys.prefix, sys.base_prefix))):
            continue
        text = (frame.line or linecache.getline(path, frame.lineno)).strip()
        site = f"{os.path.relpath(path)}:{frame.lineno} (`{text}`)"
    message = " ".join(str(exc).split())
    return f"{site + ': ' if site else ''}{type(exc).__name__}: {message}"


def _same_values(a, b, close: bool = False) -> bool:
    """Same outputs up to a 0-d array standing for a number (the kind the readers return must hold);
    `close`: equal up to float32 rounding (a number carried in float32)."""
    flat_a, flat_b = values.raw_leaves(a), values.raw_leaves(b)
    if flat_a.keys() != flat_b.keys():
        return False
    for key, x in flat_a.items():
        y = flat_b[key]
        if values.is_array(x) and (type(x) is not type(y) or x.dtype != y.dtype):
            return False
        ex = values.to_numpy64(np.asarray(x) if not values.is_array(x) else x)
        ey = values.to_numpy64(np.asarray(y) if not values.is_array(y) else y)
        if not (np.array_equal(ex, ey, equal_nan=True) or close and ex.shape == ey.shape
                and np.allclose(ex, ey, rtol=1e-5, atol=1e-6, equal_nan=True)):
            return False
    return True
