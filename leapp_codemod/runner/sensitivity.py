"""Every input element used as the application uses it: around a recorded call, each element of each
floating input is moved by a meaningful step (its observed spread, at least STEP: about a unit),
one at a time, and the change of the application's outputs is compared with the change of the
exported model's. An element the application reacts to and the export ignores (a quaternion's
`w = q[0]` read as a Python number and baked at 1.0) fails the run naming the input and element;
a different reaction beyond LEAPP's tolerance that persists at a tenth of the step fails it too (a
mismatch only at the large step may be a branch flip, which the other checks report)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leapp_codemod import boundary
from leapp_codemod.knowledge.leapp import ATOL, RTOL
from leapp_codemod.runner import draws, values
from leapp_codemod.runner.errors import one_line
from leapp_codemod.runner.intercept import Recorder, replaced
from leapp_codemod.runner.perturb import STEP, _as_numpy, _floating, _like, held
from leapp_codemod.runner.stateplan import StatePlan, fresh_roots, start_state
from leapp_codemod.runner.validation import _run, bound_entry

MAX_ELEMENTS = 64       # elements checked per input (evenly spread over a larger input)


@dataclass(frozen=True)
class Finding:
    element: str        # `quat[0]`
    kind: str           # "ignored" | "different"
    step: float
    app_change: float   # max abs change of the application's outputs
    export_change: float
    error: float        # max abs difference of the two changes

    def text(self) -> str:
        if self.kind == "ignored":
            return (f"input `{self.element}` is not used by the export, the original depends on it (a step of "
                    f"{self.step:.3g} changes the application's outputs by up to {self.app_change:.3g}, the "
                    f"exported model's by {self.export_change:.3g})")
        return (f"the export reacts to input `{self.element}` differently from the original (a step of "
                f"{self.step:.3g}: application change {self.app_change:.3g}, export change "
                f"{self.export_change:.3g}, difference {self.error:.3g})")


def element_name(leaf: str, shape: tuple, flat_index: int) -> str:
    if not shape:
        return leaf
    idx = np.unravel_index(flat_index, shape)
    return f"{leaf}[{', '.join(str(int(i)) for i in idx)}]"


def steps_for(samples: list[np.ndarray], base: np.ndarray) -> np.ndarray:
    """Per element: the observed spread, at least STEP (an element that never varied, or barely, is
    moved by about a unit)."""
    stack = np.stack(samples) if samples else base[None]
    span = stack.max(axis=0) - stack.min(axis=0)
    return np.maximum(span, STEP)


def chosen_elements(size: int, limit: int = MAX_ELEMENTS) -> list[int]:
    if size <= limit:
        return list(range(size))
    return sorted({int(i) for i in np.linspace(0, size - 1, limit)})


def _changes(a: dict, b: dict) -> dict:
    return {k: values.to_numpy64(b[k]) - values.to_numpy64(a[k]) for k in a if k in b
            and np.shape(a[k]) == np.shape(b[k])}


def _max(d: dict) -> float:
    return max((float(np.max(np.abs(v))) for v in d.values() if np.size(v)), default=0.0)


def _beyond(expected: dict, got: dict) -> bool:
    """Whether `got` differs from `expected` beyond LEAPP's tolerance (ATOL + RTOL * |expected|)."""
    for k, e in expected.items():
        e, g = values.to_numpy64(e), values.to_numpy64(got.get(k, e))
        if e.shape != g.shape or np.any(np.abs(e - g) > ATOL + RTOL * np.abs(e)):
            return True
    return False


def judge(app0: dict, app1: dict, exp0: dict, exp1: dict) -> tuple[str, float, float, float] | None:
    """(kind, app change, export change, error) when the export's reaction differs from the application's:
    "ignored" when the export's outputs do not move (within ATOL) while the application's move beyond
    LEAPP's tolerance taken on the change itself; "different" when the two changes differ beyond LEAPP's
    tolerance taken on the application's moved outputs."""
    da, de = _changes(app0, app1), _changes(exp0, exp1)
    diff = {k: de.get(k, np.zeros_like(da[k])) - da[k] for k in da}
    error = _max(diff)
    if _max(de) <= ATOL and any(np.any(np.abs(diff[k]) > ATOL + RTOL * np.abs(da[k])) for k in da):
        return "ignored", _max(da), _max(de), error
    if any(np.any(np.abs(diff[k]) > ATOL + RTOL * np.abs(values.to_numpy64(app1[k]))) for k in da):
        return "different", _max(da), _max(de), error
    return None


class _Pair:
    """The application (from its starting state) and InferenceManager (after reset) on one call's inputs."""

    def __init__(self, im, module, recorder: Recorder, state: StatePlan):
        self.im, self.module, self.recorder, self.state = im, module, recorder, state
        self.noise = recorder.traced[0].draws if recorder.traced else ()

    def __call__(self, call_inputs: dict) -> tuple[dict, dict]:
        roots, _ = fresh_roots(self.recorder)
        start_state(self.recorder, self.state, roots)
        host = self.state.host_values_on(roots)
        with draws.replayed(self.recorder.draws, self.noise), replaced(self.state.patches):
            produced = bound_entry(self.recorder, roots)(**values.plain(call_inputs), **self.recorder.statics)
        named = values.flatten(self.module.named_outputs(values.plain(produced)))
        app = {k: values.to_numpy64(v) for k, v in named.items()}
        self.im.reset()
        got = _run(self.im, self.module.NODE, call_inputs | host | draws.ports(self.noise))
        return app, {k: values.to_numpy64(got[k]) for k in app if k in got}


def _moved(base_call: dict, leaf: str, flat_index: int, step: float) -> dict:
    flat = boundary.flatten(dict(base_call))
    leaves = []
    for name, value in flat.items():
        if name == leaf:
            arr = _as_numpy(value).copy()
            arr.reshape(-1)[flat_index] += step
            value = _like(value, arr)
        leaves.append(value)
    return boundary.rebuild(dict(base_call), iter(leaves))


def check_elements(im, module, recorder: Recorder, state: StatePlan) -> dict:
    """{"ok", "checked", "findings": [...], "summary"?}; see the module docstring."""
    if not recorder.traced:
        return {"ok": True, "checked": 0, "findings": []}
    pair = _Pair(im, module, recorder, state)
    calls = [boundary.flatten(dict(c.inputs)) for c in (*recorder.traced, *recorder.checks, *recorder.later)]
    recorded = recorder.traced[0].inputs
    findings: dict[str, Finding] = {}
    checked, skipped = 0, []
    # Around the recorded call, then around a copy of it with every element moved by up to half its step:
    # at a recorded point an element can have no effect (a quaternion's w while the vector part is 0).
    for base_call, only_ignored in ((recorded, False), (_jittered(recorded, calls), True)):
        try:
            app0, exp0 = pair(base_call)
        except Exception as exc:  # noqa: BLE001 - an application that cannot be replayed tells nothing here
            skipped.append(f"{'varied' if only_ignored else 'recorded'} call: {one_line(exc)}")
            continue
        if not only_ignored and _beyond(app0, exp0):     # the recorded call mismatches: other checks report it
            continue
        for leaf, value in boundary.flatten(dict(base_call)).items():
            if not _floating(value) or held(leaf, getattr(module, "CONSTANT_INPUTS", ())):
                continue
            base = _as_numpy(value)
            steps = steps_for(_samples(calls, leaf, base), base).reshape(-1)
            for i in chosen_elements(base.size):
                checked += 1
                name = element_name(leaf, base.shape, i)
                found = None if name in findings else _try(pair, base_call, leaf, i, float(steps[i]), app0, exp0)
                if found is not None and (found[0] == "ignored" or not only_ignored):
                    findings[name] = Finding(name, *found)
    findings = list(findings.values())
    out = {"ok": not findings, "checked": checked, "findings": [f.__dict__ for f in findings]}
    if skipped:
        out["skipped"] = skipped
    if findings:
        first = next((f for f in findings if f.kind == "ignored"), findings[0])
        more = f" ({len(findings) - 1} more element(s) in inputs_used)" if len(findings) > 1 else ""
        out["summary"] = first.text() + more
    return out


def _samples(calls: list[dict], leaf: str, base: np.ndarray) -> list[np.ndarray]:
    return [_as_numpy(f[leaf]) for f in calls if leaf in f and np.shape(f[leaf]) == base.shape]


def _jittered(base_call: dict, calls: list[dict], seed: int = 3) -> dict:
    """`base_call` with every floating element moved by a random amount of up to half its step."""
    rng = np.random.default_rng(seed)
    leaves = []
    for name, value in boundary.flatten(dict(base_call)).items():
        if _floating(value):
            base = _as_numpy(value)
            half = 0.5 * steps_for(_samples(calls, name, base), base)
            value = _like(value, base + rng.uniform(-1.0, 1.0, base.shape) * half)
        leaves.append(value)
    return boundary.rebuild(dict(base_call), iter(leaves))


def _try(pair, base_call, leaf, i, step, app0, exp0):
    """(kind, step, app change, export change, error) when the reaction differs at `step` and at step / 10."""
    result = None
    for s in (step, step / 10):
        try:
            app1, exp1 = pair(_moved(base_call, leaf, i, s))
        except Exception:  # noqa: BLE001 - an application that refuses the moved input tells nothing
            return None
        verdict = judge(app0, app1, exp0, exp1)
        if verdict is None:
            return None
        result = result or (verdict[0], s, *verdict[1:])
    return result
