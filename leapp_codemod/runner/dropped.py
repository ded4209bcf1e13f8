"""What LEAPP's own records and tracebacks say about computation that left the trace, as the cause
a verdict quotes.

LEAPP logs "Detected TorchScript call ... Decomposing via TS2EPConverter" for every scripted call it
meets, also when the decomposition works: that record is the cause only when tracing then failed
inside the scripted call. Records that always mean computation left the trace (a failed
decomposition, a call that bypasses tracing, inputs the graph does not use) come first.
"""
from __future__ import annotations

import linecache
import os
import traceback

# A LEAPP record that is only a notice on its own (see the module docstring).
NOTICE = "Detected TorchScript call"
# Frames of LEAPP's handling of a scripted call, and of the `torch.cond` a scripted `if` on a tensor
# (`prim::If`) becomes in the decomposition.
_SCRIPTED_FRAME = "_handle_scripted_call"
_COND_FILE = os.path.join("_higher_order_ops", "cond.py")


def leapp_cause(attempt: dict) -> str:
    """The record a verdict quotes as the cause of a failed attempt ('' when none applies)."""
    causes = attempt.get("leapp_causes") or []
    strong = [c for c in causes if not c.startswith(NOTICE)]
    if strong:
        return strong[0]
    if causes and attempt.get("failed_stage") == "tracing":
        return causes[0]
    return ""


def scripted_call_failure(exc: BaseException, app_root: str, cwd: str) -> str:
    """When tracing raised inside LEAPP's decomposition of a TorchScript call: one sentence naming the
    application line that made the call and what the decomposition met ('' otherwise)."""
    frames = traceback.extract_tb(exc.__traceback__)
    names = [f.name for f in frames]
    if _SCRIPTED_FRAME not in names:
        return ""
    cut = names.index(_SCRIPTED_FRAME)
    root = os.path.abspath(app_root) + os.sep if app_root else ""
    site = ""
    for frame in frames[:cut]:
        path = os.path.abspath(frame.filename)
        if root and path.startswith(root) and "site-packages" not in path:
            site = f"{os.path.relpath(path, cwd or os.getcwd())}:{frame.lineno}"
    where = f"the TorchScript call at {site}" if site else "a TorchScript call"
    if any(f.filename.endswith(_COND_FILE) for f in frames[cut:]):
        return (f"LEAPP could not trace {where}: its decomposition (TS2EPConverter) turned an `if` on a tensor in "
                "the script (prim::If) into torch.cond, which LEAPP 0.7.2 cannot record; export the module the "
                "script was made from, or a script without data-dependent control flow")
    return f"LEAPP could not trace {where} (its decomposition via TS2EPConverter failed)"


# What torch.fx raises when a NumPy function receives a traced torch tensor (it turns the tensor into an
# array through `__array__`, and the array is no value the graph can hold).
_TENSOR_INTO_NUMPY = "argument of type: <class 'numpy.ndarray'>"


def app_frame(exc: BaseException, app_root: str, cwd: str, module_file: str = "") -> tuple[str, str]:
    """(`path:line`, source text) of the innermost frame of the traceback in the application or in the
    integration module (`module_file`: its replacements), or ('', '')."""
    root = os.path.abspath(app_root) + os.sep if app_root else ""
    own = os.path.abspath(module_file) if module_file else ""
    found = ("", "")
    for frame in traceback.extract_tb(exc.__traceback__):
        path = os.path.abspath(frame.filename)
        if (root and path.startswith(root) and "site-packages" not in path) or path == own:
            text = (frame.line or linecache.getline(path, frame.lineno)).strip()
            found = (f"{os.path.relpath(path, cwd or os.getcwd())}:{frame.lineno}", text)
    return found


def tensor_into_numpy(exc: BaseException, app_root: str, cwd: str, module_file: str = "") -> str:
    """When tracing failed because a traced torch tensor reached a NumPy function: one sentence naming
    the line, in the application or in a replacement of the integration module ('' otherwise)."""
    if not isinstance(exc, NotImplementedError) or _TENSOR_INTO_NUMPY not in str(exc):
        return ""
    site, text = app_frame(exc, app_root, cwd, module_file)
    where = f"at {site} (`{text}`)" if site else "in the application"
    return (f"a traced torch tensor reached NumPy code {where}: LEAPP follows a tensor through torch operations "
            "only (a Python number the export carries as a 0-d tensor, such as a step counter in STATE, meets "
            "NumPy there: keep that helper in torch, or give it a twin that computes in torch)")
