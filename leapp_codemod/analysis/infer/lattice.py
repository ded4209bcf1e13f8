"""The facts the analysis grows: per-function `Env`, analysis-wide `Facts`, and the entry's `AccessOrder`.

The fixpoint (`analysis.flow`) writes them; the per-function questions (`FunctionContext`) read them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from leapp_codemod.observe.merge import ObservedFacts

# Suffix of a `container_attrs` entry whose values, not the attribute itself, are the filled queues.
NESTED = "[]"


@dataclass
class Env:
    """Per-function facts about local names (flow-insensitive, grows monotonically)."""

    data: set[str] = field(default_factory=set)
    shape: set[str] = field(default_factory=set)
    numpy: set[str] = field(default_factory=set)
    types: dict[str, set[str]] = field(default_factory=dict)
    # name -> {line of an assignment: whether it bound a NumPy array}; numpy-ness follows source order
    numpy_bindings: dict[str, dict[int, bool]] = field(default_factory=dict)

    def size(self) -> int:
        return len(self.data) + len(self.shape) + len(self.numpy) + sum(len(v) for v in self.types.values())

    def numpy_at(self, name: str, line: int) -> bool:
        """Is `name` a NumPy array where it is read at `line`? The latest assignment above decides;
        with none above (parameters, loop-carried names) any NumPy binding counts."""
        if name not in self.numpy:
            return False
        bindings = self.numpy_bindings.get(name)
        if not bindings:
            return True
        above = [ln for ln in bindings if ln < line]
        return bindings[max(above)] if above else True


@dataclass
class AccessOrder:
    """Reads of `self.<attr>` (function id, line) that no always-running write precedes, per (class of the
    reading method, attribute), and the functions the walk covered (a read elsewhere has no known order).
    Loop-carried names of the entry (an inline range) are keyed (entry function id, name)."""

    uncovered: dict[tuple[str, str], set[tuple[str, int]]] = field(default_factory=dict)  # (class id, attr) ->
    visited: set[str] = field(default_factory=set)
    # the same keys -> (walk position, function id, line) of the first such read in execution order: where the
    # step takes in the value the previous call left (the state input)
    first_read: dict[tuple[str, str], tuple[int, str, int]] = field(default_factory=dict)


@dataclass
class Facts:
    """Analysis-wide facts, grown to a fixpoint over the reachable functions."""

    data_params: dict[str, set[str]] = field(default_factory=dict)
    numpy_params: dict[str, set[str]] = field(default_factory=dict)
    shape_params: dict[str, set[str]] = field(default_factory=dict)   # parameters passed a run-time shape
    foreign_written: set[str] = field(default_factory=set)   # attribute names code writes on another object
    param_types: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    returns_data: set[str] = field(default_factory=set)
    # functions whose answer (a constant) a test of pipeline data picks: `if dist < tol: return True`
    answers_by_data: set[str] = field(default_factory=set)
    returns_numpy: set[str] = field(default_factory=set)
    # function id -> positions of a returned tuple that hold a NumPy array (`return target, wrist`)
    returns_numpy_items: dict[str, set[int]] = field(default_factory=dict)
    data_attrs: dict[str, set[str]] = field(default_factory=dict)      # class id -> attrs holding pipeline data
    # class id -> attr -> {(function id, line)} where reachable code reads self.<attr>
    attr_reads: dict[str, dict[str, set[tuple[str, int]]]] = field(default_factory=dict)
    data_globals: dict[str, set[str]] = field(default_factory=dict)    # module -> tensor-valued module globals
    call_bindings: dict[str, set[tuple[str, str]]] = field(default_factory=dict)  # fid -> {(module, name)}
    callers: dict[str, set[str]] = field(default_factory=dict)
    # class id -> Python scalars the step updates from their own value (`self.count += 1`, a phase clock)
    counter_attrs: dict[str, set[str]] = field(default_factory=dict)
    # class id -> lists/deques/dicts on self that the step fills with pipeline data
    # Attributes holding a list/deque the step fills; `frames[]` (see NESTED) for a dict of such queues.
    container_attrs: dict[str, set[str]] = field(default_factory=dict)
    # function id -> parameter -> constant values its callers pass (UNKNOWN when one passes something else)
    param_constants: dict[str, dict[str, set]] = field(default_factory=dict)
    # function id -> dict parameter -> keys whose items every caller fills with a setting (`buffers["hold"]`)
    setting_items: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    # library function id -> application call sites that reach it: (caller id, line, col, end line, end col)
    library_origins: dict[str, set[tuple]] = field(default_factory=dict)
    receivers: dict[str, set[str]] = field(default_factory=dict)   # method id -> concrete receiver class ids
    # function id -> parameters whose object the caller keeps and passes again on its next call (see kept_arguments)
    kept_params: dict[str, set[str]] = field(default_factory=dict)
    # function id -> parameter -> state its driver loop holds and passes in (`analysis/entry/caller_state.py`)
    caller_state: dict[str, dict] = field(default_factory=dict)
    # function id -> flag parameters a caller passes a test on its loop's counter (`first=t == 0`): per-call flags
    per_call_flags: dict[str, set[str]] = field(default_factory=dict)
    access: AccessOrder | None = None   # entry mode: the order one call reads and writes attributes of self
    observed: ObservedFacts | None = None   # what the first calls of the entry ran (`scan --driver`)

    def fingerprint(self) -> tuple:
        return (
            sum(len(v) for v in self.data_params.values()), sum(len(v) for v in self.numpy_params.values()),
            sum(len(v) for v in self.shape_params.values()),
            sum(len(s) for d in self.param_types.values() for s in d.values()),
            len(self.returns_data), len(self.answers_by_data), len(self.returns_numpy), sum(len(v) for v in self.returns_numpy_items.values()),
            sum(len(v) for v in self.data_attrs.values()),
            sum(len(v) for v in self.counter_attrs.values()), sum(len(v) for v in self.container_attrs.values()),
            sum(len(s) for d in self.attr_reads.values() for s in d.values()),
            sum(len(v) for v in self.library_origins.values()), sum(len(v) for v in self.receivers.values()),
            sum(len(s) for d in self.param_constants.values() for s in d.values()),
            sum(len(v) for v in self.kept_params.values()),
        )
