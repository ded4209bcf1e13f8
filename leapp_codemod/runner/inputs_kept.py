"""Every input kept: after the export, each declared input the application's outputs depend on must
be an input of the graph. LEAPP trims an input the trace never used ("inputs are not used in the
computation"), which is how a replacement that turns an array into Python numbers loses it."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from leapp_codemod.runner import values
from leapp_codemod.runner.intercept import Recorder, replaced
from leapp_codemod.runner.perturb import held, vary_one
from leapp_codemod.runner.stateplan import StatePlan, fresh_roots, start_state
from leapp_codemod.runner.validation import bound_entry


def graph_inputs(yaml_path: Path) -> set[str]:
    """The input names of every model in the exported YAML."""
    import yaml

    doc = yaml.safe_load(yaml_path.read_text(encoding="utf-8")) or {}
    return {t["name"] for model in (doc.get("models") or {}).values() for t in model.get("inputs") or []}


def _outputs(module, recorder: Recorder, state: StatePlan, inputs: dict) -> dict:
    roots, _ = fresh_roots(recorder)
    start_state(recorder, state, roots)
    with replaced(state.patches):
        result = bound_entry(recorder, roots)(**values.plain(inputs), **recorder.statics)
    return {k: values.to_numpy64(v) for k, v in values.flatten(module.named_outputs(values.plain(result))).items()}


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(a[k].shape == b[k].shape and np.array_equal(a[k], b[k]) for k in a)


def influences(module, recorder: Recorder, state: StatePlan, port: str) -> bool | None:
    """Whether the application's outputs change when only `port` changes (one call from the starting
    state); None when that cannot be told (the application is not deterministic, or raises)."""
    calls = [c.inputs for c in (*recorder.traced, *recorder.checks)]
    base = recorder.traced[0].inputs
    try:
        first, again = _outputs(module, recorder, state, base), _outputs(module, recorder, state, base)
        if not _same(first, again):
            return None
        return not _same(first, _outputs(module, recorder, state, vary_one(calls, base, port, seed=7)))
    except Exception:  # noqa: BLE001 - an application that refuses the varied input tells nothing
        return None


def dropped_by(recorder: Recorder, port: str, signals: list[dict]) -> str:
    """The replacement that received the dropped input as an argument, else the line LEAPP's
    trimmed-input record points at, else ''."""
    seen = [values.to_numpy64(values.flatten(c.inputs)[port]) for c in recorder.traced
            if port in values.flatten(c.inputs)]
    for pc in recorder.twin_calls:
        args = [*pc.args, *pc.kwargs.values()]
        for arg in args:
            if values.is_array(arg) and any(np.shape(arg) == s.shape and np.array_equal(values.to_numpy64(arg), s)
                                            for s in seen):
                return (f"the replacement {pc.patch.replacement.__name__} (patching {pc.patch.module}."
                        f"{pc.patch.name}; hazards: {', '.join(pc.patch.hazards) or '-'}) receives it")
    where = next((s["location"] for s in signals if s.get("signal") == "trimmed-input" and s.get("location")), "")
    return f"LEAPP trimmed it at {where}" if where else ""


def dropped_inputs(module, recorder: Recorder, state: StatePlan, yaml_path: Path, signals: list[dict]) -> list[dict]:
    """The declared inputs missing from the graph although the application's outputs depend on them
    (an input declared in CONSTANT_INPUTS, or one the application ignores too, may be missing)."""
    if not recorder.traced or yaml_path is None or not yaml_path.is_file():
        return []
    constant = set(getattr(module, "CONSTANT_INPUTS", ()) or ())
    present = graph_inputs(yaml_path)
    rows = []
    for port in values.flatten(recorder.traced[0].inputs):
        if port in present or held(port, constant):
            continue
        uses = influences(module, recorder, state, port)
        if uses is False:
            continue
        rows.append({"input": port, "application_uses_it": uses, "dropped_by": dropped_by(recorder, port, signals)})
    return rows
