"""Trace the recorded calls with LEAPP, export with a fallback ladder, validate on fresh calls."""
from __future__ import annotations

import logging
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from leapp_codemod.knowledge.leapp import ATOL, EXPORTERS, FORMAT_OF, RTOL
from leapp_codemod.runner import backend_options, draws, values
from leapp_codemod.runner.class_patches import diverted
from leapp_codemod.runner.dropped import scripted_call_failure, tensor_into_numpy
from leapp_codemod.runner.dtype_mix import mixed_dtype_text
from leapp_codemod.runner.errors import RunnerError, cut, failing_op, full_text, model_invalid, one_line
from leapp_codemod.runner.graph_check import graph_error, mixed_dtype_lines, op_lines
from leapp_codemod.runner.inputs_kept import dropped_inputs
from leapp_codemod.runner.intercept import Recorder, replaced
from leapp_codemod.runner.logcap import Capture
from leapp_codemod.runner.stateplan import StatePlan, equal_ports, fresh_roots, start_state
from leapp_codemod.runner.trace_shims import during_trace
from leapp_codemod.runner.twincheck import promotion
from leapp_codemod.runner.validation import bound_entry, validate


def ladder(first: str, require_format: str | None) -> list[str]:
    order = [first] + [b for b in EXPORTERS if b != first]
    if require_format:
        order = [b for b in order if b == require_format or FORMAT_OF.get(b) == require_format]
    return order


@dataclass
class Attempt:
    backend: str
    directory: Path
    outcome: str = "failed"          # "validated" | "failed"
    stage: str = ""                  # tracing | lowering | validation | missing dependency
    reason: str = ""
    seconds: float = 0.0
    leapp_validation: dict = field(default_factory=dict)
    validation: dict = field(default_factory=dict)
    signals: list = field(default_factory=list)
    messages: list = field(default_factory=list)
    yaml: Path | None = None
    restored_from: str = ""          # copy | state-only snapshot | module
    warm_up: bool = False            # a warm-up call gave state initialised to None its value
    warm_up_equal: list = field(default_factory=list)   # state ports that start equal after the warm-up
    backend_params: dict = field(default_factory=dict)   # {"passed": {...}, "not_accepted": [...]}
    lost: str = ""                   # why the trace itself lost computation (no exporter can recover it)
    exporter_specific: bool = False  # a tracing or lowering failure that another exporter may not repeat
    graph_error: str = ""            # what the traced graph raised when run by torch itself (see graph_check)
    spurious: list = field(default_factory=list)   # state outputs that alone failed LEAPP's validation
    dropped: list = field(default_factory=list)    # declared inputs the graph lost (see inputs_kept)
    causes: list = field(default_factory=list)     # LEAPP records that computation left the trace
    dtype_mix: list = field(default_factory=list)  # executed matrix-product lines behind a float32/float64 mix

    def to_json(self, out: Path) -> dict:
        data = {"backend": self.backend, "format": FORMAT_OF[self.backend], "outcome": self.outcome,
                "seconds": round(self.seconds, 2), "directory": _rel(self.directory, out),
                "leapp_validation": self.leapp_validation}
        if self.backend_params:
            data["backend_params"] = self.backend_params
        if self.outcome != "validated":
            data["failed_stage"] = self.stage
            data["reason"] = self.reason
        if self.spurious:
            data["spurious_state"] = list(self.spurious)
        if self.stage in ("tracing", "lowering"):
            data["exporter_specific"] = self.exporter_specific
        if self.graph_error:
            data["graph_error"] = self.graph_error
        if self.dropped:
            data["dropped_inputs"] = list(self.dropped)
        if self.dtype_mix and self.outcome != "validated":
            data["dtype_mix_lines"] = list(self.dtype_mix)
        if self.causes and self.outcome != "validated":
            data["leapp_causes"] = list(self.causes)
        return data


def _rel(path: Path, base: Path) -> str:
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path)


def _missing_dependency(exc: BaseException) -> bool:
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, ImportError) or "No module named" in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def attempt_export(module, recorder: Recorder, backend: str, directory: Path, state: StatePlan,
                   app_root: str, cwd: str, progress) -> Attempt:
    import leapp

    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    att = Attempt(backend, directory)
    started = time.monotonic()
    module.EXPORT_WITH = backend
    att.backend_params = backend_options.for_attempt(module, backend)
    roots, att.restored_from = fresh_roots(recorder)
    try:
        refs, att.warm_up = start_state(recorder, state, roots)
        att.warm_up_equal = equal_ports(refs) if att.warm_up else []
    except RunnerError:
        raise                   # the state plan cannot be applied: the run stops at the state stage
    except Exception as exc:  # noqa: BLE001 - application code may raise anything
        att.stage, att.reason = "tracing", f"restoring the starting state failed: {one_line(exc)}"
        att.seconds = time.monotonic() - started
        return att
    entry = bound_entry(recorder, roots, fed=False)
    capture = Capture(app_root=app_root, cwd=cwd)
    logger = logging.getLogger("leapp")
    progress(f"{backend}: tracing {len(recorder.traced)} calls")
    try:
        leapp.start(module.GRAPH, save_path=str(directory), max_cached_io=max(2, len(recorder.traced)),
                    patching=module.function_patches())
    except Exception as exc:  # noqa: BLE001 - an invalid FunctionPatch raises from start()
        att.stage, att.reason = "tracing", f"leapp.start failed: {one_line(exc)}"
        att.seconds = time.monotonic() - started
        return att
    logger.addHandler(capture)
    try:
        try:
            with during_trace(), diverted(recorder.entry.function, app_root), replaced(module.PATCHES):
                for call in recorder.traced:
                    kwargs = values.plain(call.inputs) | dict(recorder.statics)
                    with draws.replayed(recorder.draws, call.draws, module.NODE):
                        module.step(entry, **kwargs, state_refs=refs or None)
        finally:
            leapp.stop()
    except Exception as exc:  # noqa: BLE001 - application code may raise anything while traced
        att.stage = "missing dependency" if _missing_dependency(exc) else "tracing"
        scripted = (scripted_call_failure(exc, app_root, cwd)
                    or tensor_into_numpy(exc, app_root, cwd, getattr(module, "__file__", "") or ""))
        att.reason = cut(f"{scripted}: {full_text(exc)}" if scripted else full_text(exc), REASON_LIMIT)
        att.exporter_specific = _exporter_specific(exc, backend)
        _finish(att, capture, logger, started)
        return att
    progress(f"{backend}: compiling and exporting")
    try:
        results = leapp.compile_graph(visualize=True, validate=True, strict=False)
    except Exception as exc:  # noqa: BLE001 - exporter errors come in many types
        att.stage = "missing dependency" if _missing_dependency(exc) else "lowering"
        att.reason = cut(full_text(exc), REASON_LIMIT)
        att.graph_error = graph_error() if att.stage == "lowering" else ""
        executed = recorder.cover.to_json() if recorder.cover else {}
        att.dtype_mix = mixed_dtype_lines(att.graph_error, executed, cwd)
        if att.dtype_mix:
            att.graph_error += f"; {mixed_dtype_text(att.dtype_mix)}"
        calls = op_lines(att.graph_error, executed, cwd)
        if calls:
            att.graph_error += f"; the lines the step ran that call {failing_op(att.graph_error)}: {', '.join(calls)}"
        att.exporter_specific = att.stage != "lowering" or not att.graph_error
        _finish(att, capture, logger, started)
        return att
    att.leapp_validation = {k: (v if isinstance(v, bool) else one_line(v)) for k, v in (results or {}).items()}
    att.yaml = directory / module.GRAPH / f"{module.GRAPH}.yaml"
    att.dropped = dropped_inputs(module, recorder, state, att.yaml, [s.to_json() for s in capture.signals])
    if att.dropped:
        att.stage, att.reason = "tracing", dropped_text(att.dropped)
        _finish(att, capture, logger, started)
        return att
    bad = {k: v for k, v in att.leapp_validation.items() if v is not True}
    if bad:
        att.stage = "validation"
        att.reason = "LEAPP validation on the traced calls failed: " + "; ".join(
            f"{k}: {'mismatch' if v is False else v}" for k, v in bad.items())
        # ONNX Runtime refusing the model it was given ("bound to different types"): the verdict names the lines
        att.dtype_mix = mixed_dtype_lines(att.reason, recorder.cover.to_json() if recorder.cover else {}, cwd)
    progress(f"{backend}: validating on {len(recorder.checks)} fresh calls")
    try:
        att.validation = validate(module, recorder, att.yaml, state)
    except Exception as exc:  # noqa: BLE001 - a model that does not load or run is a validation failure
        att.validation = {"error": one_line(exc)}
        if not att.stage:
            att.stage = "missing dependency" if _missing_dependency(exc) else "validation"
            att.reason = f"the exported model did not run: {cut(full_text(exc), REASON_LIMIT)}"
    if not att.stage and not att.validation.get("ok"):
        att.stage = "validation"
        att.reason = att.validation.get("summary", "fresh-input parity failed")
    _finish(att, capture, logger, started)
    if att.stage == "validation" and bad and att.validation.get("ok"):
        att.spurious = spurious_state(att.messages, app_outputs(module, recorder))
        if att.spurious:
            att.reason = (f"LEAPP's validation mismatched only on state output(s) {', '.join(att.spurious)}, "
                          f"while the model's outputs agree with the application on "
                          f"{len(att.validation.get('calls', []))} fresh calls and the rollout from reset: "
                          "spurious state (a value the step writes before it reads it, or never reads)")
    if not att.stage:
        att.outcome = "validated"
    return att


# A tracing error that names the exporter (or its options) may not recur with another one.
_EXPORTER_WORDS = ("backend", "export_with", "exporter", "onnx", "torchscript", "jit", "pt2", "dynamo")
REASON_LIMIT = 2000


def _exporter_specific(exc: BaseException, backend: str) -> bool:
    """Whether a tracing failure may depend on the exporter: a missing dependency, or an error that
    names the exporter or its options. Any other tracing error recurs with every exporter, since
    they all export the same trace."""
    if _missing_dependency(exc):
        return True
    text = full_text(exc).lower()
    return backend.lower() in text or any(w in text for w in _EXPORTER_WORDS)


def dropped_text(rows: list[dict]) -> str:
    """One sentence naming each dropped input and what dropped it."""
    parts = []
    for row in rows:
        why = f" ({row['dropped_by']})" if row["dropped_by"] else ""
        unsure = "" if row["application_uses_it"] else " (whether the application's outputs depend on it could not be told)"
        parts.append(f"{row['input']!r}{why}{unsure}")
    return (f"the exported graph dropped input(s) {'; '.join(parts)}: LEAPP found them not used in the computation "
            "although the application's outputs depend on them (declare an input in CONSTANT_INPUTS of the module "
            "only if it is meant to be constant)")


def shared_failure(att: Attempt) -> bool:
    """A tracing failure, or a lowering failure of the traced graph itself, that every other exporter
    would repeat (so none is tried)."""
    return att.stage in ("tracing", "lowering") and not att.exporter_specific


_MISMATCH = re.compile(r"^\w+: (?P<node>[^/\s]+)/(?P<output>\S+) sample \d+: Mismatch detected")


def spurious_state(messages: list[str], app_outputs: set[str]) -> list[str]:
    """The outputs LEAPP's validation reported as mismatching when every one of them is a state
    output (not an output of the application); [] when any application output mismatched."""
    names = []
    for message in messages:
        m = _MISMATCH.match(message)
        if m and m.group("output") not in names:
            names.append(m.group("output"))
    if not names or any(n in app_outputs or n.removesuffix("_out") in app_outputs for n in names):
        return []
    return names


def app_outputs(module, recorder: Recorder) -> set[str]:
    """The LEAPP output port names of the entry's return value (as the first traced call returned it)."""
    try:
        return set(values.flatten(module.named_outputs(recorder.traced[0].outputs)))
    except Exception:  # noqa: BLE001 - outputs that cannot be named here are named nowhere
        return set()


# LEAPP's error when a value handed to update_state()/output_tensors() is not traced: its computation was lost.
_UNTRACED = "received non-traced tensors"
# LEAPP signals that a value was baked into the trace (a branch taken once, a scalar pulled out).
_LOST_SIGNALS = ("frozen-constant", "tensor-branch", "numpy-item-tolist", "scalar-extraction")


def lost_computation(att: Attempt) -> str:
    """Why a validation failure comes from the trace rather than the exporter ('' when it does not):
    LEAPP's frozen-constant signal (a re-entry sample disagreed with the first trace, or a value was
    inlined as a constant) or a signal of a value baked into the trace (a tensor branch, a scalar
    extraction), or calls that each agree while a rollout from reset diverges."""
    if att.stage == "tracing" and _UNTRACED in (att.reason or ""):
        what = att.reason.split("() for node", 1)[0].rsplit(" ", 1)[-1]
        return (f"the values passed to {what}() are no longer traced (LEAPP: {cut(att.reason, 160)}): an operation "
                "between the inputs and them left the trace (a Python or NumPy value built from traced ones)")
    if att.stage != "validation" or att.spurious or model_invalid(att.reason):
        return ""
    # a signal at a check whose other side only raises (`guard`) loses nothing on the inputs that pass it
    frozen = sorted((s for s in att.signals if s.get("signal") in _LOST_SIGNALS and not s.get("guard")),
                    key=lambda s: _LOST_SIGNALS.index(s["signal"]))
    if frozen:
        where = f" at {frozen[0]['location']}" if frozen[0].get("location") else ""
        return f"LEAPP {frozen[0]['signal']} signal{where}: {cut(frozen[0]['message'], 600)}"
    roll = att.validation.get("rollout_from_reset") or {}
    calls = att.validation.get("calls") or []
    if roll and not roll.get("ok") and calls and all(c.get("ok") for c in calls):
        return (f"each checked call agrees but the {roll.get('steps', 0)}-step rollout from reset diverges: "
                "state carried between calls is not (all) in the export")
    return ""


def _finish(att: Attempt, capture: Capture, logger, started: float) -> None:
    logger.removeHandler(capture)
    att.signals = [s.to_json() for s in capture.signals]
    att.causes = list(capture.causes)
    att.messages = capture.messages
    att.seconds = time.monotonic() - started


def copy_artifacts(att: Attempt, graph: str, out: Path) -> Path:
    """Publish the validated attempt's artifacts as OUT/<graph>/, written once: they are moved there,
    the attempt's folder keeps only what else it holds (removed when nothing), and its record names
    OUT/<graph>/ as its directory."""
    target = out / graph
    if target.exists():
        shutil.rmtree(target)
    shutil.move(str(att.directory / graph), str(target))
    if att.yaml is not None:
        att.yaml = target / att.yaml.name
    if att.directory.is_dir() and not any(att.directory.iterdir()):
        att.directory.rmdir()
        if not any(att.directory.parent.iterdir()):
            att.directory.parent.rmdir()
    att.directory = target
    return target


def check_patch_parity(module, recorder: Recorder) -> list[dict]:
    rows: dict[str, dict] = {}
    for pc in recorder.patch_calls:
        key = f"{pc.patch.module}.{pc.patch.name}"
        row = rows.setdefault(key, {"patch": key, "replacement": pc.patch.replacement.__name__,
                                    "hazards": list(pc.patch.hazards), "calls": 0, "max_abs_error": 0.0,
                                    "ok": True})
        row["calls"] += 1
        try:
            expected, got = module.patch_parity(pc.patch, pc.args, pc.kwargs)
            got = values.numbers_as_one_element(expected, got)     # a twin's number as a one-element array
        except Exception as exc:  # noqa: BLE001 - report the replacement's error, keep going
            row["ok"] = False
            row["error"] = one_line(exc)
            continue
        errs = values.Errors()
        e_flat, g_flat = values.leaves(expected), values.leaves(got)
        if set(e_flat) != set(g_flat):
            row["ok"] = False
            row["error"] = "the replacement returns a different structure than the original"
            continue
        for k in e_flat:
            if not values.compare(e_flat[k], g_flat[k], errs, RTOL, ATOL):
                row["ok"] = False
        row["max_abs_error"] = max(row["max_abs_error"], errs.max_abs)
        kind, _ = values.mismatch(expected, got, RTOL, ATOL)
        changed = promotion(expected, got) or (kind if kind and " where the original returns " in kind else None)
        if changed and "error" not in row:     # same values, another dtype or kind: what the export inherits
            row.update(ok=False, error=changed)
    return list(rows.values())
