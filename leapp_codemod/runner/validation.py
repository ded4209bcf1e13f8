"""Validation of an exported model against the application: InferenceManager on the fresh check
calls (state synchronised), a rollout from reset, and (after the driver ends) calls sampled across
the whole run plus perturbed inputs."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod import held
from leapp_codemod.boundary import state_leaves
from leapp_codemod.knowledge.leapp import ATOL, RTOL
from leapp_codemod.runner import draws, values
from leapp_codemod.runner.intercept import Recorder, replaced
from leapp_codemod.runner.stateplan import StatePlan, fresh_roots, start_state


def bound_entry(recorder: Recorder, roots: dict, fed: bool = True):
    """The entry on `roots`' instance; `fed`: it takes the held inputs (leapp_codemod.held) as keyword
    arguments too (the generated module's `step` serves them itself: fed=False)."""
    fn = recorder.entry.function
    if not recorder.entry.is_method:
        return fn
    return held.fed(fn.__get__(roots["self"]), recorder.held) if fed else fn.__get__(roots["self"])


def _im_inputs(im_inputs: list[str], node: str, call_inputs: dict) -> dict:
    flat = {}
    for name, value in call_inputs.items():
        flat.update(values.flatten(value, name) if not values.is_array(value) else {name: value})
    return {key: values.to_torch(flat[key.split("/", 1)[1]]) for key in im_inputs if key.split("/", 1)[1] in flat}


def _run(im, node: str, call_inputs: dict) -> dict:
    got = im.run_policy(_im_inputs(im.inputs, node, call_inputs))
    return {k.split("/", 1)[1]: values.plain(v) for k, v in got.items()}


def _feedback_key(im, node: str, name: str) -> str | None:
    for candidate in (f"{node}/{name}", f"{node}/{name}_in"):
        if candidate in im.feedback_inputs:
            return candidate.split("/", 1)[1]
    return None


def validate(module, recorder: Recorder, yaml_path: Path, state: StatePlan) -> dict:
    """The original pipeline's outputs on the untraced check calls against InferenceManager."""
    from leapp import InferenceManager

    im = InferenceManager(str(yaml_path))
    result = _check_calls(im, module, recorder, state, recorder.checks)
    stateful = bool(state.entries)
    if stateful:
        result["rollout_from_reset"] = _rollout(im, module, recorder, state)
        result["ok"] = result["ok"] and result["rollout_from_reset"].get("ok", False)
    if "missing_outputs" not in result and result.get("worst"):
        name, errs = result["worst"]
        result["summary"] = (f"{'parity ok' if result['ok'] else 'parity FAILED'} on {len(result['calls'])} fresh "
                             f"calls; worst output {name!r}: max abs error {errs['max_abs_error']:.3g}, "
                             f"max rel error {errs.get('max_rel_error', 0.0):.3g}")
    result.pop("worst", None)
    return result


def _check_calls(im, module, recorder: Recorder, state: StatePlan, calls: list) -> dict:
    """InferenceManager against the application's recorded outputs on `calls`, InferenceManager's
    state brought to the application's before each call."""
    node = module.NODE
    per_output: dict[str, values.Errors] = {}
    checks, missing = [], set()
    initial, fb = None, {}
    stateful = bool(state.entries)
    if stateful:
        initial = _initial_state(recorder, state)
        fb = {name: _feedback_key(im, node, name) for name in initial}
    prev_after = None
    for i, call in enumerate(calls):
        how = "stateless"
        if stateful:
            how = _sync_state(im, node, fb, call, prev_after, initial, (i == 0), state)
            prev_after = call.state_after
        got = _run(im, node, call.inputs | state.host_values(call.state_before) | draws.ports(call.draws))
        expected = values.flatten(module.named_outputs(call.outputs))
        ok = _compare_all(expected, got, per_output, missing)
        checks.append({"call": call.index, "state": how, "ok": ok})
    result = {"calls": checks, "outputs": {k: v.to_json() for k, v in sorted(per_output.items())}}
    if missing:
        result["missing_outputs"] = sorted(missing)
        result["summary"] = f"the exported model lacks outputs {sorted(missing)}"
    if stateful:
        result["state_inputs"] = dict(fb)
    result["ok"] = bool(checks) and all(c["ok"] for c in checks) and not missing
    worst = max(per_output.items(), key=lambda kv: kv[1].max_abs, default=None)
    if worst is not None:
        result["worst"] = (worst[0], worst[1].to_json())
    return result


def validate_across_run(module, recorder: Recorder, yaml_path: Path, state: StatePlan, perturbed: int = 8) -> dict:
    """After the driver ended: the calls sampled across the rest of the run (every k-th call), and a
    rollout from reset on inputs that vary every input within its observed range."""
    from leapp import InferenceManager

    from leapp_codemod.runner.perturb import perturbed_inputs

    im = InferenceManager(str(yaml_path))
    out: dict = {"sampled_every": recorder.later_every, "calls_after_export": recorder.later_calls}
    ok = True
    inside = [c for c in recorder.later if state.in_domain(c.state_before)]
    if len(inside) < len(recorder.later):     # a host flag set to its other value: outside the domain checked
        out["outside_domain"] = [c.index for c in recorder.later if c not in inside]
    if inside:
        later = _check_calls(im, module, recorder, state, inside)
        later.pop("worst", None)
        out["later_calls"] = later
        ok = later["ok"]
        bad = [c["call"] for c in later["calls"] if not c["ok"]]
        if bad:
            out["summary"] = (f"the exported model differs from the application on call(s) {_calls_text(bad)} "
                              f"of the driver's run (sampled every {recorder.later_every} call(s) after the "
                              f"export; {_worst_text(later)})")
    recorded = [c.inputs for c in (*recorder.traced, *recorder.checks, *recorder.later)]
    inputs = perturbed_inputs(recorded, perturbed, constant=getattr(module, "CONSTANT_INPUTS", ()))
    if inputs:
        roll = _rollout(im, module, recorder, state, inputs)
        out["perturbed"] = roll
        if not roll["ok"] and ok:
            out["summary"] = (f"the exported model differs from the application on inputs varied within their "
                              f"observed ranges (step {roll.get('first_bad', '?')} of {roll['steps']}; "
                              f"{_worst_text(roll)})")
        ok = ok and roll["ok"]
    out["ok"] = ok
    return out


def _calls_text(calls: list[int]) -> str:
    shown = ", ".join(str(c) for c in calls[:6])
    return shown + (f" and {len(calls) - 6} more" if len(calls) > 6 else "")


def _worst_text(result: dict) -> str:
    outs = result.get("outputs") or {}
    if not outs:
        return "no output compared"
    name, row = max(outs.items(), key=lambda kv: kv[1]["max_abs_error"])
    return f"worst output {name!r}: max abs error {row['max_abs_error']:.3g}"


def _initial_state(recorder: Recorder, state: StatePlan) -> dict:
    """The state ports' values the exported model starts from (after the warm-up call, if any)."""
    roots, _ = fresh_roots(recorder)
    refs, _ = start_state(recorder, state, roots)
    return values.plain({port: v for ref in refs if not ref.host
                         for port, v in state_leaves(ref.get(), ref.name).items()})


def _sync_state(im, node: str, fb: dict, call, prev_after, initial, first: bool, state: StatePlan) -> str:
    """Bring InferenceManager's state to the application's state before this call (see report)."""
    before = state.ports(call.state_before)
    if not first and prev_after is not None and values.same_values(before, state.ports(prev_after)):
        return "carried"
    if initial is not None and values.same_values(before, initial):
        im.reset()
        return "reset"
    if set(before) != set(initial or {}):
        im.reset()
        return "reset (the state was empty)"
    for name, key in fb.items():
        if key is not None:
            im.set_input_value(node, key, values.to_torch(before[name]))
    return "set"


def _compare_all(expected: dict, got: dict, per_output: dict, missing: set) -> bool:
    ok = True
    for name, value in expected.items():
        if name not in got:
            missing.add(name)
            ok = False
            continue
        errs = per_output.setdefault(name, values.Errors())
        ok = values.compare(value, got[name], errs, RTOL, ATOL) and ok
    return ok


def _rollout(im, module, recorder: Recorder, state: StatePlan, inputs: list | None = None) -> dict:
    """From the initial state, feed every recorded input (or `inputs`) in order to a fresh copy of the
    application's objects and to InferenceManager after reset(); outputs must agree at every step.
    When the application raises on an input, the rollout stops there (`stopped`)."""
    roots, _ = fresh_roots(recorder)
    start_state(recorder, state, roots)
    entry = bound_entry(recorder, roots)
    im.reset()
    per_output: dict[str, values.Errors] = {}
    missing: set = set()
    steps, first_bad = 0, None
    ok = True
    stopped = ""
    feed = inputs if inputs is not None else [c.inputs for c in (*recorder.traced, *recorder.checks)]
    drawn = [c.draws for c in (*recorder.traced, *recorder.checks, *recorder.later)] or [()]
    for call_inputs in feed:
        host = state.host_values_on(roots)       # what the host set before this call (the step resets it)
        noise = drawn[steps % len(drawn)]     # the host's recorded draws and reads, fed to both sides
        if inputs is not None:                # varied inputs: the reads vary too (a changed file)
            noise = draws.varied_reads(noise, drawn, seed=steps)
        try:
            with draws.replayed(recorder.draws, noise), replaced(state.patches):
                produced = entry(**values.plain(call_inputs), **recorder.statics)
        except Exception as exc:  # noqa: BLE001 - the application may refuse a varied input
            from leapp_codemod.runner.errors import one_line
            stopped = f"the application raised on step {steps + 1}: {one_line(exc)}"
            break
        expected = values.flatten(module.named_outputs(values.plain(produced)))
        got = _run(im, module.NODE, call_inputs | host | draws.ports(noise))
        step_ok = _compare_all(expected, got, per_output, missing)
        steps += 1
        if not step_ok and first_bad is None:
            first_bad = steps
        ok = step_ok and ok
    out = {"ok": ok and not missing, "steps": steps,
           "outputs": {k: v.to_json() for k, v in sorted(per_output.items())}}
    if first_bad is not None:
        out["first_bad"] = first_bad
    if stopped:
        out["stopped"] = stopped
    return out
