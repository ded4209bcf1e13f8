"""Before a pipeline with Warp kernels runs: is LEAPP's Warp backend usable on this machine?

LEAPP records Warp kernels only when CUDA is available, leapp's `warp-cu12`/`warp-cu13` extra is
installed (warp-lang and cupti-python) and its native runtime was built (`leapp-build-warp-runtime`).
Without one of them the kernels would run untraced, so the run stops with the missing piece."""
from __future__ import annotations

from dataclasses import dataclass

EXTRA = "install leapp's Warp extra: pip install 'leapp[warp-cu12]' (or warp-cu13)"


@dataclass(frozen=True)
class WarpFacts:
    warp_importable: bool
    cuda_devices: int
    cupti_importable: bool
    runtime_library: str           # "" when LEAPP's Warp runtime library was found, else why not


def problem(facts: WarpFacts) -> str | None:
    """One line naming what this machine lacks for a Warp export, or None."""
    if not facts.warp_importable:
        return f"the pipeline launches Warp kernels but warp-lang is not installed; {EXTRA}"
    if facts.cuda_devices == 0:
        return ("the pipeline launches Warp kernels and LEAPP exports them only with CUDA: no CUDA device is "
                "available on this machine; run on a machine with an NVIDIA GPU")
    if not facts.cupti_importable:
        return f"the pipeline launches Warp kernels but leapp's Warp extra (cupti-python) is not installed; {EXTRA}"
    if facts.runtime_library:
        return f"the pipeline launches Warp kernels but {facts.runtime_library}"
    return None


def probe() -> WarpFacts:
    """What this machine has (imports warp and leapp's Warp modules; call in the runner's child)."""
    try:
        import warp as wp
    except ImportError:
        return WarpFacts(False, 0, False, "")
    try:
        devices = len(wp.get_cuda_devices())
    except Exception:  # noqa: BLE001 - a broken driver means no usable device
        devices = 0
    try:
        from leapp.leapp_graph.datatypes.warp.cupti_oracle import CUPTI_AVAILABLE
    except ImportError:
        CUPTI_AVAILABLE = False
    runtime = ""
    try:
        from leapp.warp_runtime import resolve_warp_runtime_library
        resolve_warp_runtime_library("onnx")
    except (FileNotFoundError, ValueError, ImportError) as exc:
        runtime = " ".join(str(exc).split())
    return WarpFacts(True, devices, bool(CUPTI_AVAILABLE), runtime)


def require(module, traces: int) -> None:
    """Raise RunnerError when a Warp export cannot work here; else initialize Warp (before leapp.start)."""
    from leapp_codemod.runner.intercept import RunnerError

    reason = problem(probe())
    if reason:
        raise RunnerError(reason, "missing dependency")
    minimum = getattr(module, "WARP_MIN_TRACES", 2)
    if traces < minimum:
        raise RunnerError(f"--traces {traces}: the Warp path must run at least {minimum} times in the LEAPP session "
                          "(discovery, then capture)", "inputs")
    module.init_warp()
