"""Which values are the pipeline's state: the integration module's STATE (what the scan could
name) checked against what the recorded calls changed, plus what only observation found."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from leapp_codemod.boundary import StateRef, state_leaves
from leapp_codemod.runner import state_observe as observe
from leapp_codemod.runner import values
from leapp_codemod.runner.errors import where
from leapp_codemod.runner.intercept import Recorder, find_instances, owner_class


@dataclass
class StatePlan:
    entries: list[tuple[str, tuple]] = field(default_factory=list)     # (state name, path from a root)
    observed: list[observe.Observed] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def refs(self, roots: dict) -> list[StateRef]:
        return [observe.ref(name, roots, path) for name, path in self.entries]

    def ports(self, reachable_values: dict) -> dict:
        """{LEAPP state port: value} from a {path: value} snapshot of the reachable values."""
        out = {}
        for name, path in self.entries:
            out.update(state_leaves(reachable_values.get(path), name))
        return out

    def to_json(self) -> dict:
        return {name: observe.describe_path(path) for name, path in self.entries}


def plan_state(declared: dict, recorder: Recorder) -> StatePlan:
    plan = StatePlan()
    taken: set[str] = set(recorder.input_names)
    explained: dict[tuple, str] = {}
    calls = len(recorder.traced) + len(recorder.checks)
    for name, (owner, attr) in declared.items():
        cls = owner_class(owner)
        if cls is None:
            plan.notes.append(f"state {name!r}: its owner {owner} cannot be imported; left out")
            continue
        paths = [p + (("attr", attr),) for p in find_instances(recorder.roots, cls)]
        if not paths:
            plan.notes.append(f"state {name!r}: no {owner} object is reachable from the entry; left out")
        for i, path in enumerate(paths):
            label = name if len(paths) == 1 else observe.state_name(path, taken)
            if path not in recorder.changed:
                plan.notes.append(f"state {name!r} ({observe.describe_path(path)}) never changed during the "
                                  f"{calls} recorded calls: a constant of the export, not state")
                continue
            explained[path] = f"STATE[{name!r}] in the integration module ({owner}.{attr})"
            plan.entries.append((label, path))
            taken.add(label)
    known = {path for _, path in plan.entries}
    for path in sorted(recorder.changed, key=observe.describe_path):
        value = recorder.changed[path]
        sizes = recorder.lengths.get(path, [])
        if path in known or any(path[:len(k)] == k for k in known):
            pass
        elif len(sizes) >= 2 and len(set(sizes)) == len(sizes):
            plan.notes.append(f"{observe.describe_path(path)} ({type(value).__name__}) changes length on every call "
                              f"({sizes[0]} then {sizes[-1]} over {len(sizes)} calls): a container that grows cannot "
                              "be exported as state, so it is left out; if the step reads it, give it a fixed size "
                              "(deque(maxlen=N)) or keep that code in the host runtime")
            continue
        elif observe.exportable_state(value):
            name = observe.state_name(path, taken)
            taken.add(name)
            plan.entries.append((name, path))
        else:
            plan.notes.append(f"{observe.describe_path(path)} ({type(value).__name__}) changes on every call but "
                              "is neither a number nor a tensor or array: it is not exported as state (it stays in the host runtime)")
            continue
    for name, path in plan.entries:
        plan.observed.append(observe.Observed(path, name, recorder.changed[path], recorder.initial.get(path),
                                              explained.get(path, "")))
    return plan


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
    for ref, (_, path) in zip(refs, plan.entries):
        if path in recorder.initial:
            ref.set(values.plain(recorder.initial[path]))
    warm = any(not state_leaves(_safe_get(ref), ref.name) for ref in refs)
    if warm and recorder.traced:
        entry = recorder.entry.function.__get__(roots["self"]) if recorder.entry.is_method else recorder.entry.function
        entry(**values.plain(recorder.traced[0].inputs), **recorder.statics)
    return refs, warm


def _safe_get(ref: StateRef):
    try:
        return ref.get()
    except (AttributeError, KeyError, IndexError):
        return None
