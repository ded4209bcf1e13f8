"""Entrypoint ranking by observation (`entrypoints --driver`): for every application function, how
it was called while the driver ran.

Per function: calls, how many distinct array/tensor argument values it saw, whether it returned
arrays, whether an `nn.Module` ran inside it, and the application call chain that reached it. Per
loop frame that calls an `nn.Module` directly (a pipeline written inline): the calling line. The
tracer (`observe.watch.Tracer`) feeds it call and return events; `enough()` says when some
function or inline call site has been seen `calls` times.
"""
from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field

from leapp_codemod.observe.values import is_ndarray, is_tensor

_MAX_DIGESTS = 64          # argument digests kept per function (enough to see that values change)
_MAX_BYTES = 1 << 20       # larger arrays are identified by shape/dtype and a sample


@dataclass
class FunctionRecord:
    file: str
    line: int
    qualname: str
    calls: int = 0
    digests: set = field(default_factory=set)
    array_args: bool = False
    returns_array: bool = False
    reaches_module: bool = False
    chain: list = field(default_factory=list)        # [file, line, qualname] of application callers
    ancestors: set = field(default_factory=set)      # keys of application functions it ran inside
    order: int = 0

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "qualname": self.qualname, "calls": self.calls,
                "distinct_inputs": len(self.digests), "array_args": self.array_args,
                "returns_array": self.returns_array, "reaches_module": self.reaches_module,
                "chain": self.chain, "ancestors": sorted(self.ancestors), "order": self.order}


def _is_array(value) -> bool:
    return is_ndarray(value) or is_tensor(value)


def _has_array(value, depth: int = 0) -> bool:
    if _is_array(value):
        return True
    if depth < 2 and isinstance(value, (tuple, list)):
        return any(_has_array(v, depth + 1) for v in value[:8])
    if depth < 2 and isinstance(value, dict):
        return any(_has_array(v, depth + 1) for v in list(value.values())[:8])
    return False


def _digest(value) -> str:
    try:
        if is_tensor(value):
            value = value.detach().cpu().numpy()
        raw = value.tobytes() if value.nbytes <= _MAX_BYTES else value.reshape(-1)[:4096].tobytes()
        return hashlib.blake2b(raw + str((value.shape, value.dtype)).encode(), digest_size=8).hexdigest()
    except Exception:  # noqa: BLE001 - an exotic array type still counts as an array argument
        return f"id:{id(value)}"


def code_key(code) -> str:
    return f"{code.co_filename}:{code.co_firstlineno}:{getattr(code, 'co_qualname', code.co_name)}"


class Ranking:
    """Listener of `Tracer`: call/return events of application frames and of `nn.Module` calls."""

    def __init__(self, enough: int):
        self.enough_calls = enough
        self.functions: dict[str, FunctionRecord] = {}
        self.sites: dict[tuple[str, int], dict] = {}
        self._local = threading.local()  # per thread: the call stack and the nn.Module nesting depth
        self.done = False

    @property
    def stack(self) -> list:
        local = self._local
        if not hasattr(local, "stack"):
            local.stack, local.module_depth = [], 0
        return local.stack

    def on_return(self, frame, arg) -> None:
        stack = self.stack
        if stack and stack[-1][0] is frame:
            _, record = stack.pop()
            if record is None:
                self._local.module_depth -= 1
            elif arg is not None and not record.returns_array and _has_array(arg):
                record.returns_array = True

    def _app_frames(self):
        return [(f, r) for f, r in self.stack if r is not None]

    def on_app_call(self, frame, code, is_app) -> None:
        key = code_key(code)
        record = self.functions.get(key)
        if record is None:
            record = self.functions[key] = FunctionRecord(code.co_filename, code.co_firstlineno,
                                                          getattr(code, "co_qualname", code.co_name),
                                                          order=len(self.functions))
            record.chain = [[f.f_code.co_filename, f.f_lineno, r.qualname] for f, r in self._app_frames()]
            caller = frame.f_back
            if caller is not None and is_app(caller.f_code) and caller.f_code.co_name == "<module>":
                record.chain.insert(0, [caller.f_code.co_filename, caller.f_lineno, "<module>"])
        record.calls += 1
        record.ancestors |= {code_key(f.f_code) for f, _ in self._app_frames()}
        if len(record.digests) < _MAX_DIGESTS:
            n_args = code.co_argcount + code.co_kwonlyargcount
            values = [frame.f_locals.get(name) for name in code.co_varnames[:n_args]]
            arrays = [v for v in values if _is_array(v)]
            if arrays:
                record.array_args = True
                record.digests.add("|".join(_digest(a) for a in arrays))
        self.stack.append((frame, record))
        if record.calls >= self.enough_calls and record.reaches_module and len(record.digests) > 1:
            self.done = True

    def on_module_call(self, frame, is_app) -> None:
        self.stack.append((frame, None))
        self._local.module_depth += 1
        if self._local.module_depth > 1:
            return
        for _, record in self._app_frames():
            record.reaches_module = True
        caller = frame.f_back
        while caller is not None and not is_app(caller.f_code):
            caller = caller.f_back
        if caller is not None:
            site_key = (caller.f_code.co_filename, caller.f_lineno)
            site = self.sites.setdefault(site_key, {
                "file": caller.f_code.co_filename, "line": caller.f_lineno, "count": 0,
                "frame": getattr(caller.f_code, "co_qualname", caller.f_code.co_name),
                "frame_key": code_key(caller.f_code)})
            site["count"] += 1
            if site["count"] >= self.enough_calls:
                self.done = True

    def to_json(self) -> dict:
        return {"functions": [r.to_json() for r in self.functions.values()], "sites": list(self.sites.values())}
