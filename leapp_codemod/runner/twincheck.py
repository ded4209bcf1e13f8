"""Before tracing: every FunctionPatch replacement (traceable twins and adapters alike) against the
original on the arguments the running application passed to it during the calls about to be
traced, and on Gaussian-perturbed copies of those arguments; then traced alone under LEAPP on the
first of them (`twintrace`): every argument the original depends on must reach the graph. A
replacement that disagrees is never traced with the pipeline."""
from __future__ import annotations

import copy
import inspect
import tempfile
from pathlib import Path

import numpy as np
import torch

from leapp_codemod.knowledge.leapp import ATOL, RTOL
from leapp_codemod.runner import values
from leapp_codemod.runner.intercept import Recorder
from leapp_codemod.runner.twintrace import array_arguments, trace_check

# Why a replacement was compared by value only: LEAPP inputs are floating arrays, and the recorded call had none
# (an integer index, Python numbers), so nothing could be declared traced to see what the replacement keeps.
UNTRACEABLE = ("not traced alone: the recorded call passes no floating array to declare as a LEAPP input, so only "
               "its values were compared")

PERTURBATIONS = 3


def _run(fn, args: tuple, kwargs: dict):
    return fn(*copy.deepcopy(args), **copy.deepcopy(kwargs))


def _samples(call, rng: np.random.Generator, index: int) -> list[tuple[str, tuple, dict]]:
    out = [(f"recorded call {index}", call.args, call.kwargs)]
    for j in range(1, PERTURBATIONS + 1):
        (args, kwargs), changed = values.perturbed((call.args, call.kwargs), rng)
        if changed:
            out.append((f"recorded call {index}, perturbed copy {j}", args, kwargs))
    return out


def _describe_call(fn, args: tuple, kwargs: dict) -> str:
    """`delta=float32[1, 3] tensor, cfg=ReachConfig`, by parameter name when the signature allows."""
    try:
        named = inspect.signature(fn).bind(*args, **kwargs).arguments
    except (TypeError, ValueError):
        named = {**{f"arg{i}": a for i, a in enumerate(args)}, **kwargs}
    return ", ".join(f"{k}={values.describe(v)}" for k, v in named.items())


def promotion(expected, got) -> str | None:
    """Where a result that is a Python (or NumPy) number in the original comes back as a 0-d array
    or tensor: whether arithmetic with a float32 array still gives what it gives with the original
    (NumPy promotes a Python float weakly, a 0-d float64 array strongly: float32 math becomes float64)."""
    e_flat, g_flat = values.raw_leaves(expected), values.raw_leaves(got)
    for key, e in e_flat.items():
        g = g_flat.get(key)
        if values.is_array(e) or g is None or type(g) is type(e):
            continue
        probe = torch.ones(2, dtype=torch.float32) if isinstance(g, torch.Tensor) else np.ones(2, np.float32)
        try:
            want = (probe * e).dtype
            have = (probe * values.plain(g) if isinstance(g, torch.Tensor) else probe * np.asarray(g)).dtype
        except (TypeError, ValueError, RuntimeError):       # a value that does not mix with arrays
            continue
        if want != have:
            what = f"output {key!r}" if key else "the result"
            return (f"{what} is a {type(e).__name__} in the original and {values.describe(g)} in the replacement: "
                    f"float32 arithmetic downstream gives {str(have).replace('torch.', '')} instead of "
                    f"{str(want).replace('torch.', '')}")
    return None


def check_patch(patch, original, calls, seed: int = 0, workdir: Path | None = None, patching=None) -> dict:
    """One row of the report: whether `patch.replacement` agrees with `original` on every sample and,
    with a `workdir`, keeps every argument the original depends on under a LEAPP trace of the first."""
    row = {"patch": f"{patch.module}.{patch.name}", "replacement": patch.replacement.__name__,
           "original": patch.original, "hazards": list(patch.hazards), "recorded_calls": len(calls),
           "samples": 0, "max_abs_error": 0.0, "ok": True}
    rng = np.random.default_rng(seed)
    for index, call in enumerate(calls, 1):
        for label, args, kwargs in _samples(call, rng, index):
            try:
                expected = _run(original, args, kwargs)
            except Exception:  # noqa: BLE001 - an input the original rejects says nothing about the twin
                continue
            row["samples"] += 1
            try:
                got = values.numbers_as_one_element(expected, _run(patch.replacement, args, kwargs))
                problem, worst = values.mismatch(expected, got, RTOL, ATOL)
                problem = problem or promotion(expected, got)
            except Exception as exc:  # noqa: BLE001 - any error of the replacement is a disagreement
                from leapp_codemod.runner.errors import one_line
                problem, worst = f"the replacement raises {one_line(exc)}", float("inf")
            row["max_abs_error"] = max(row["max_abs_error"], worst)
            if problem:
                inputs = _describe_call(original, args, kwargs)
                row.update(ok=False, input=f"{label} ({inputs})", error=problem)
                return row
    if calls and row["samples"] == 0:
        row.update(ok=False, input=f"{len(calls)} recorded call(s)",
                   error="the original raised on every recorded input, so the replacement was checked on zero samples")
    elif calls and workdir is not None and not array_arguments(calls[0].args, calls[0].kwargs):
        row.update(traced=None, note=UNTRACEABLE)
    elif calls and workdir is not None:
        try:
            problem = trace_check(patch.replacement, original, calls, workdir, patching)
        except Exception as exc:  # noqa: BLE001 - the check itself could not run (not the replacement's fault)
            from leapp_codemod.runner.errors import one_line
            row["note"] = f"not traced alone: {one_line(exc)}"
            return row
        row["traced"] = problem is None
        if problem:
            row.update(ok=False, input=f"recorded call 1 ({_describe_call(original, calls[0].args, calls[0].kwargs)})",
                       error=problem)
    return row


def check_replacements(patches, recorder: Recorder, trace: bool = False, patching=None) -> list[dict]:
    """Every patch called during the traced calls, checked on its recorded arguments (and, with
    `trace`, traced alone under LEAPP, its files in a temporary directory, with the FunctionPatch list
    `patching()` gives active as it is in the pipeline's trace: a twin calling `np.radians`, which
    another patch replaces, traces as it will there)."""
    if trace:
        with tempfile.TemporaryDirectory(prefix="leapp-codemod-twin-") as workdir:
            return _check_all(patches, recorder, Path(workdir), patching)
    return _check_all(patches, recorder, None)


def _check_all(patches, recorder: Recorder, workdir: Path | None, patching=None) -> list[dict]:
    rows = []
    for patch in patches:
        original = recorder.originals.get((patch.module, patch.name))
        if original is None:
            continue
        calls = [c for c in recorder.twin_calls if c.patch is patch]
        row = check_patch(patch, original, calls, workdir=workdir, patching=patching)
        called = recorder.twin_call_counts.get(id(patch), 0)
        if called and not calls:
            row.update(ok=False, input=f"{called} call(s) during the traced calls",
                       error="its arguments could not be copied, so the replacement was checked on zero samples")
        elif not called:
            row["note"] = "not called during the traced calls: not checked, and not part of the export"
        rows.append(row)
    return rows


def refusal(row: dict) -> str:
    """The one-line reason `run` refuses to trace with this replacement."""
    hazards = f"; hazards: {', '.join(row['hazards'])}" if row["hazards"] else ""
    return (f"FunctionPatch {row['patch']} ({row['replacement']}) disagrees with the original "
            f"{row['original']} on {row['input']}: {row['error']}; not traced{hazards}")
