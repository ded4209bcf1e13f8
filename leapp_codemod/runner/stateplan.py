"""Which values are the pipeline's state: the integration module's STATE (what the scan could
name) checked against what the recorded calls changed, plus what only observation found."""
from __future__ import annotations

import collections
import copy
import itertools
from dataclasses import dataclass, field

import numpy as np
import torch

from leapp_codemod import held
from leapp_codemod.boundary import (
    StateRef,
    as_host,
    graph_reserved,
    port_name,
    state_leaves,
)
from leapp_codemod.runner import state_holders, state_reads, values
from leapp_codemod.runner import state_observe as observe
from leapp_codemod.runner.errors import RunnerError, where
from leapp_codemod.runner.intercept import (
    Recorder,
    find_instances,
    owner_class,
    replaced,
)
from leapp_codemod.runner.state_reads import lookup


@dataclass
class StatePlan:
    entries: list[tuple[str, tuple]] = field(default_factory=list)     # (state name, path from a root)
    observed: list[observe.Observed] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    explained: dict[str, str] = field(default_factory=dict)   # state name -> the STATE entry that declares it
    kinds: dict[str, str] = field(default_factory=dict)       # number state name -> "numpy" | "torch"
    probed_calls: list[int] = field(default_factory=list)     # the calls whose reads decided the state
    host: list[tuple[str, tuple]] = field(default_factory=list)   # (graph input name, path) set by the host
    host_branches: dict[str, str] = field(default_factory=dict)   # path -> the domain a host flag restricts to
    host_constants: list[tuple[tuple, object]] = field(default_factory=list)   # (path, value) such a flag is traced at
    patches: tuple = ()     # the FunctionPatch replacements the application runs with on state in its carried kinds

    def refs(self, roots: dict) -> list[StateRef]:
        """The state refs, then the refs of the values the host sets (graph inputs, `host=True`)."""
        return ([observe.ref(name, roots, path) for name, path in self.entries]
                + [StateRef(name, roots[path[0]], tuple(path[1:]), host=True, kind=self.kinds.get(name, ""))
                   for name, path in self.host])

    def host_values(self, reachable_values: dict) -> dict:
        """{graph input: value} of the values the host sets, from a {path: value} snapshot."""
        return {name: values.plain(as_host(lookup(reachable_values, path), self.kinds.get(name, "")))
                for name, path in self.host}

    def host_values_on(self, roots: dict) -> dict:
        """{graph input: value} of the values the host sets, read on live roots (before a call)."""
        return {ref.name: values.plain(as_host(ref.get(), ref.kind)) for ref in self.refs(roots) if ref.host}

    def ports(self, reachable_values: dict) -> dict:
        """{LEAPP state port: value} from a {path: value} snapshot of the reachable values."""
        out = {}
        for name, path in self.entries:
            out.update(state_leaves(state_reads.carried(lookup(reachable_values, path), self.kinds.get(name, "")),
                                    name))
        return out

    def in_domain(self, snapshot: dict) -> bool:
        """A call (by the {path: value} snapshot before it) inside the domain the export holds for: every
        host flag that Python control flow reads holds the value it is traced at."""
        return all(state_reads.same(values.plain(lookup(snapshot, path)), value) for path, value in self.host_constants)

    def to_json(self) -> dict:
        return {name: observe.describe_path(path) for name, path in self.entries}

    def host_json(self) -> dict:
        return {name: observe.describe_path(path) for name, path in self.host}


def plan_state(declared: dict, recorder: Recorder, outputs: frozenset[str] = frozenset(),
               patches: tuple = ()) -> StatePlan:
    """The state: every changed value that a call reads before writing it and whose read reaches the
    outputs (see state_reads), named after the STATE entry that declares it or after its path.
    No state is named like an input or an output port (`outputs`): LEAPP merges a state output into
    the outputs by name, so a step returning its own state (`return self.filtered`) would lose the
    output to the state's next value. The reads are probed with the FunctionPatch replacements
    `patches` in place, as the trace runs them."""
    plan = StatePlan(patches=tuple(patches))
    state_holders.refuse_varying(recorder, recorder.changed)
    taken: set[str] = set(recorder.input_names) | set(outputs)
    wanted: list[tuple[str | None, tuple, str]] = []       # (declared name or None, path, explanation)
    growing: list[tuple] = []
    calls = len(recorder.traced) + len(recorder.checks)
    for name, (owner, attr) in declared.items():
        cls = owner_class(owner)
        if cls is None:
            plan.notes.append(f"state {name!r}: its owner {owner} cannot be imported; left out")
            continue
        paths = [p + (("attr", attr),) for p in find_instances(recorder.roots, cls)]
        if not paths:
            plan.notes.append(f"state {name!r}: no {owner} object is reachable from the entry; left out")
        for path in paths:
            if path not in recorder.changed:
                plan.notes.append(f"state {name!r} ({observe.describe_path(path)}) never changed during the "
                                  f"{calls} recorded calls: a constant of the export, not state")
                continue
            wanted.append((name if len(paths) == 1 else None, path,
                           f"STATE[{name!r}] in the integration module ({owner}.{attr})"))
    known = {path for _, path, _ in wanted}
    for path in sorted(recorder.changed, key=observe.describe_path):
        value = recorder.changed[path]
        sizes = recorder.lengths.get(path, [])
        if path in known or any(path[:len(k)] == k for k in known):
            continue
        if length_changes(sizes):
            growing.append(path)
            how = _how_length_changes(sizes, "changes length")
            plan.notes.append(f"{observe.describe_path(path)} ({type(value).__name__}) {how}: {_LENGTH_FIX_NOTE}")
        elif observe.exportable_state(value) or isinstance(value, bool):
            wanted.append((None, path, ""))    # a bool is probed: a flag the host sets is an input
        else:
            plan.notes.append(f"{observe.describe_path(path)} ({type(value).__name__}) changes on every call but "
                              "is neither a number nor a tensor or array: it is not exported as state (it stays in the host runtime)")
    inline = recorder.entry.module.__name__ == "__main__"   # a statement range reaches the driver's live objects
    reads = None if inline else state_reads.probe(recorder, lambda: _copies(recorder), [p for _, p, _ in wanted],
                                                  growing, patches)
    if reads is None and wanted:
        plan.notes.append("which changed values are read was not probed (" + (
            "a statement range of the driver, whose simulator a probe call would advance" if inline else
            "no copy of the instance, or a call that does not repeat itself on a copy") + "): every changed value "
            "is state")
    if reads is not None:
        plan.probed_calls = list(reads.calls)
        _refuse_read_growing(recorder, reads)
        _refuse_uncarried(reads)
    for label, path, why in wanted:
        leaves = reads.leaves[path] if reads is not None else [path]
        kept = [leaf for leaf in leaves if reads is None or leaf in reads.state]
        if reads is not None:
            plan.notes.extend(_left_out_note(reads, leaf, label) for leaf in leaves if leaf not in reads.state)
            plan.notes.extend(f"{observe.describe_path(leaf)}: kept as state: call(s) {', '.join(map(str, calls))} "
                              "read its old value but mask its effect (no output moved when it changed); it can "
                              "reach the outputs on other calls" for leaf, calls in reads.masked.items()
                              if leaf in reads.state and leaf in leaves)
            for leaf in leaves:
                if leaf in reads.branch_only:
                    loc, _, source = reads.branch_only[leaf].partition(" ")
                    plan.host_branches[observe.describe_path(leaf)] = (
                        f"{loc} host-set {observe.describe_path(leaf)}: read by Python control flow {source}, it stays "
                        f"a host value, not a graph input; the export takes the side of calls where it is "
                        f"{reads.host_set[leaf]!r}")
                    plan.host_constants.append((leaf, reads.host_set[leaf]))
                    continue
                if leaf in reads.host_set and (observe.exportable_state(reads.host_set[leaf])
                                               or isinstance(reads.host_set[leaf], bool)):
                    plan.host.append((observe.state_name(leaf, taken), leaf))
                    taken.add(plan.host[-1][0])
                    if leaf in reads.kinds:
                        plan.kinds[plan.host[-1][0]] = reads.kinds[leaf]
        for leaf in ([path] if kept == leaves else kept):
            if isinstance(lookup(recorder.changed, leaf), bool):
                plan.notes.append(f"{observe.describe_path(leaf)} (a Python bool) is read and changed by the calls: "
                                  "a flag LEAPP cannot carry as state; the export takes the value it had while traced")
                continue
            name = (label if leaf == path else port_name(label, leaf[-1][1])) if label else None
            name = name if name and name not in taken and not graph_reserved(name) else observe.state_name(leaf, taken)
            taken.add(name)
            plan.entries.append((name, leaf))
            plan.explained[name] = why
            if reads is not None and leaf in reads.kinds:
                plan.kinds[name] = reads.kinds[leaf]
    for name, path in plan.entries:
        first, written = lookup(recorder.initial, path, None), lookup(recorder.changed, path, None)
        if written_dtype(first, written) is not first:
            plan.notes.append(f"{observe.describe_path(path)} starts as {first.dtype} and the step stores "
                              f"{written.dtype} in it: it is carried as {written.dtype} (LEAPP keeps a state's "
                              "dtype), the first call reading its starting value in that dtype")
        plan.observed.append(observe.Observed(path, name, lookup(recorder.changed, path),
                                              lookup(recorder.initial, path), plan.explained.get(name, ""),
                                              plan.kinds.get(name, "")))
    return plan


def _left_out_note(reads: state_reads.Reads, leaf: tuple, label: str | None) -> str:
    where = observe.describe_path(leaf) + (f" (STATE[{label!r}])" if label else "")
    if leaf in reads.branch_only:
        return (f"{where} is reset to {reads.host_set[leaf]!r} by every call whatever it held: a value the host sets "
                f"before a call, read by Python control flow at {reads.branch_only[leaf]}; as a graph input it would "
                "be a tensor branch, so it stays a host value (not state, not an input) and the export takes the "
                f"side it takes when the value is {reads.host_set[leaf]!r}")
    if leaf in reads.host_set:
        exported = ("a graph input the host feeds" if observe.exportable_state(reads.host_set[leaf])
                    or isinstance(reads.host_set[leaf], bool) else "the export takes the value it had while traced")
        return (f"{where} is reset to {reads.host_set[leaf]!r} by every call whatever it held: a value the host "
                f"sets before a call (an episode-start flag), not state; {exported}")
    return f"{where}: {reads.unread[leaf]} on the probed call(s) {', '.join(map(str, reads.calls))}: not state"


def length_changes(sizes: list[int]) -> bool:
    """A container whose length changes between calls: it grows on every call (a log) or it shrinks
    between calls (a queue refilled with N items and popped once per call). A history that fills up to
    a fixed length and then stays there is not one."""
    grows = len(sizes) >= 2 and len(set(sizes)) == len(sizes)
    return grows or any(b < a for a, b in itertools.pairwise(sizes))


def _how_length_changes(sizes: list[int], verb: str = "grows") -> str:
    if len(set(sizes)) == len(sizes) and sizes == sorted(sizes):
        items = " items" if verb == "grows" else ""
        return f"{verb} on every call ({sizes[0]} then {sizes[-1]}{items} over {len(sizes)} calls)"
    shown = ", ".join(str(n) for n in sizes[:8]) + (", ..." if len(sizes) > 8 else "")
    return f"changes length between calls ({shown} items over {len(sizes)} calls)"


_LENGTH_FIX_NOTE = ("a container whose length changes between calls cannot be exported as state, so it is left out; "
                    "if the step reads it, give it a fixed size (deque(maxlen=N), or N slots and an index) or keep "
                    "that code in the host runtime")
_LENGTH_FIX = ("a container whose length changes between calls cannot be exported as state (LEAPP's ports have "
               "fixed shapes); keep a fixed-size buffer with an index instead (deque(maxlen=N), or a tensor of N "
               "slots and a counter as state), or keep the container on the host (a queue of action chunks: export "
               "the step that makes a chunk and pop from it in the host runtime)")


def _refuse_read_growing(recorder: Recorder, reads: state_reads.Reads) -> None:
    if reads.growing_read:
        path = reads.growing_read[0]
        sizes = recorder.lengths.get(path, [])
        raise RunnerError(f"{observe.describe_path(path)} {_how_length_changes(sizes)} and the step's outputs depend "
                          f"on it: {_LENGTH_FIX}", "state")


_KIND_WORDS = {"numpy": "as a shape-(1,) NumPy array", "numpy-float32": "as a float32 shape-(1,) NumPy array",
               "torch": "as a 0-d tensor"}


def _refuse_uncarried(reads: state_reads.Reads) -> None:
    """A number the outputs depend on that neither kind LEAPP traces can carry: the call raises with each
    (NumPy code that takes a number meets an array of shape (1,), or meets a tensor it cannot trace)."""
    for leaf, failed in reads.uncarried.items():
        if leaf not in reads.state and leaf not in reads.host_set:
            continue
        tried = "; ".join(f"{_KIND_WORDS[kind]} the call raises at {why}" for kind, why in failed.items())
        raise RunnerError(
            f"{observe.describe_path(leaf)} is a Python number the outputs depend on (a step counter or clock), read "
            f"by code that needs a number: LEAPP 0.7.2 traces NumPy arithmetic on a number only as an array, and "
            f"{tried}. Export what the number feeds as an input the host computes (a gait phase or clock passed to "
            "the entry), or keep the counter and the code that reads it in torch", "state")


def _copies(recorder: Recorder) -> dict:
    """Roots for a probe: a copy of the instance (never the application's own) and the live modules."""
    roots, how = fresh_roots(recorder)
    if how not in ("copy", "module"):
        raise RunnerError("no copy of the instance", "state")
    return roots


def fresh_roots(recorder: Recorder) -> tuple[dict, str]:
    """The objects to trace or replay from: a copy of the instance as it was before its first
    call, or, when it cannot be copied, the application's own instance (its state is then restored
    from the state-only snapshot). Returns the roots and how they were obtained."""
    module = recorder.entry.module
    if not recorder.entry.is_method:
        return {module.__name__: module}, "module"
    why = recorder.snapshot_error
    if recorder.snapshot is not None:
        try:
            return {"self": copy.deepcopy(recorder.snapshot), module.__name__: module}, "copy"
        except BaseException as exc:  # noqa: BLE001 - a copy of a copy can fail too (RecursionError)
            why = f"copying the snapshot failed: {where(exc)}"
    return {"self": recorder.instance, module.__name__: module}, f"state-only snapshot ({why})"


def start_state(recorder: Recorder, plan: StatePlan, roots: dict) -> tuple[list[StateRef], bool]:
    """State refs on `roots`, with the values the state held before the first recorded call; when
    one of them was None (created by the first call), one warm-up call on the first traced input
    gives it its value. Returns the refs and whether a warm-up call ran."""
    refs = plan.refs(roots)
    for path, value in plan.host_constants:     # a host flag Python control flow reads: traced at its constant
        StateRef("host", roots[path[0]], tuple(path[1:])).set(value)
    for ref, (name, path) in zip(refs, plan.entries):
        initial = lookup(recorder.initial, path, _MISSING)
        if initial is not _MISSING:
            ref.set(written_dtype(values.plain(initial), lookup(recorder.changed, path, None)))
        if name in plan.kinds and initial is not _MISSING:
            ref.set(state_reads.carried(values.plain(initial), plan.kinds[name]))
    warm = any(not state_leaves(_safe_get(ref), ref.name) for ref in refs)
    if warm and recorder.traced:
        entry = recorder.entry.function
        if recorder.entry.is_method:
            entry = held.fed(entry.__get__(roots["self"]), recorder.held)
        with replaced(plan.patches):
            entry(**values.plain(recorder.traced[0].inputs), **recorder.statics)
    for ref, (_, path) in zip(refs, plan.entries + plan.host):
        if _safe_get(ref, _MISSING) is _MISSING:     # a slot the objects do not hold: never read blindly
            raise state_holders.unreachable(ref, path, roots)
    unalias([ref for ref in refs if not ref.host])
    return refs, warm


def _distinct(value, seen: set):
    """`value` (an array or tensor) itself the first time it is seen, else a copy of it."""
    if id(value) in seen:
        return value.clone() if isinstance(value, torch.Tensor) else value.copy()
    seen.add(id(value))
    return value


def _unalias_in(container, seen: set) -> None:
    """Replace, in place, every array/tensor slot of a list, deque or dict already seen by a copy."""
    keys = list(container) if isinstance(container, dict) else range(len(container))
    for key in keys:
        item = container[key]
        if isinstance(item, (np.ndarray, torch.Tensor)):
            container[key] = _distinct(item, seen)
        elif isinstance(item, (list, collections.deque, dict)):
            _unalias_in(item, seen)


def unalias(refs: list[StateRef]) -> int:
    """Make state leaves that are one object distinct (a window filled with `[frame] * n`): each
    state port must be its own traced value, or the trace reads one port for all of them. Returns how
    many slots were copied."""
    seen: set = set()
    copied = 0
    for ref in refs:
        value = _safe_get(ref, _MISSING)
        if isinstance(value, (np.ndarray, torch.Tensor)):
            fresh = _distinct(value, seen)
            if fresh is not value:
                ref.set(fresh)
                copied += 1
        elif isinstance(value, (list, collections.deque, dict)):
            before = len(seen)
            ids = _leaf_ids(value)
            _unalias_in(value, seen)
            copied += len(ids) - (len(seen) - before)
    return copied


def equal_ports(refs: list[StateRef]) -> list[str]:
    """The state ports whose starting value equals another port's (a window filled by one reading)."""
    ports = {}
    for ref in refs:
        if not ref.host:
            ports.update(state_leaves(_safe_get(ref), ref.name) if _safe_get(ref) is not None else {})
    flat = {k: values.to_numpy64(v) for k, v in ports.items()}
    return sorted(k for k, v in flat.items()
                  if any(j != k and w.shape == v.shape and np.array_equal(w, v) for j, w in flat.items()))


def _leaf_ids(container) -> list[int]:
    items = container.values() if isinstance(container, dict) else container
    out = []
    for item in items:
        if isinstance(item, (np.ndarray, torch.Tensor)):
            out.append(id(item))
        elif isinstance(item, (list, collections.deque, dict)):
            out.extend(_leaf_ids(item))
    return out


_MISSING = object()


def written_dtype(initial, written):
    """`initial` in the floating dtype the step writes, when a floating array or tensor of the same shape
    starts in another one (`last_action = np.zeros(n)` is float64, the policy's action stored in it is
    float32): LEAPP requires a state's update to keep the dtype of its starting value. Else `initial`."""
    if isinstance(initial, np.ndarray) and isinstance(written, np.ndarray) and initial.shape == written.shape \
            and initial.dtype.kind == "f" and written.dtype.kind == "f" and initial.dtype != written.dtype:
        return initial.astype(written.dtype)
    if isinstance(initial, torch.Tensor) and isinstance(written, torch.Tensor) and initial.shape == written.shape \
            and initial.is_floating_point() and written.is_floating_point() and initial.dtype != written.dtype:
        return initial.to(written.dtype)
    return initial


def _safe_get(ref: StateRef, missing=None):
    try:
        return ref.get()
    except (AttributeError, KeyError, IndexError):
        return missing
