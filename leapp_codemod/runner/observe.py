"""Child process of `entrypoints --driver`: run the unmodified driver under a profiler and record,
for every function of the application, how it was called while the driver ran.

Per function: calls, how many distinct array/tensor argument values it saw, whether it returned
arrays, whether an `nn.Module` ran inside it, and the application call chain that reached it. Per
loop frame that calls an `nn.Module` directly (a pipeline written inline): the calling line. The
driver is stopped once some function or inline call site has been seen `calls` times. Writes one
JSON file; never prints to stdout.
"""
from __future__ import annotations

import hashlib
import json
import os
import runpy
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

_MAX_DIGESTS = 64          # argument digests kept per function (enough to see that values change)
_MAX_BYTES = 1 << 20       # larger arrays are identified by shape/dtype and a sample


class StopObserving(BaseException):
    """Raised into the driver once enough calls were seen (not caught by `except Exception`)."""


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
    t = type(value)
    return (t.__module__.startswith("numpy") and t.__name__ == "ndarray") or (
        t.__module__.startswith("torch") and t.__name__ in ("Tensor", "Parameter"))


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
        if type(value).__module__.startswith("torch"):
            value = value.detach().cpu().numpy()
        raw = value.tobytes() if value.nbytes <= _MAX_BYTES else value.reshape(-1)[:4096].tobytes()
        return hashlib.blake2b(raw + str((value.shape, value.dtype)).encode(), digest_size=8).hexdigest()
    except Exception:  # noqa: BLE001 - an exotic array type still counts as an array argument
        return f"id:{id(value)}"


def _key(code) -> str:
    return f"{code.co_filename}:{code.co_firstlineno}:{getattr(code, 'co_qualname', code.co_name)}"


class Observer:
    def __init__(self, roots: list[str], module_codes: set, enough: int):
        self.roots = [r.rstrip(os.sep) + os.sep for r in roots]
        self.module_codes = module_codes
        self.enough = enough
        self.functions: dict[str, FunctionRecord] = {}
        self.sites: dict[tuple[str, int], dict] = {}
        self._local = threading.local()  # per thread: the call stack and the nn.Module nesting depth
        self._mine: dict = {}            # code -> bool (application code?)
        self.stopped = False

    @property
    def stack(self) -> list:
        """[(frame, record, or None for an nn.Module call)] of the current thread."""
        local = self._local
        if not hasattr(local, "stack"):
            local.stack, local.module_depth = [], 0
        return local.stack

    def _is_app(self, code) -> bool:
        mine = self._mine.get(code)
        if mine is None:
            path = os.path.abspath(code.co_filename)
            mine = (not code.co_filename.startswith("<") and any(path.startswith(r) for r in self.roots)
                    and "site-packages" not in path)
            self._mine[code] = mine
        return mine

    def __call__(self, frame, event, arg):
        if event == "call":
            code = frame.f_code
            if code in self.module_codes:
                self._module_call(frame)
            elif self._is_app(code) and code.co_name != "<module>":
                self._app_call(frame, code)
        elif event == "return" and self.stack and self.stack[-1][0] is frame:
            _, record = self.stack.pop()
            if record is None:
                self._local.module_depth -= 1
            elif arg is not None and not record.returns_array and _has_array(arg):
                record.returns_array = True

    def _app_frames(self):
        return [(f, r) for f, r in self.stack if r is not None]

    def _app_call(self, frame, code) -> None:
        key = _key(code)
        record = self.functions.get(key)
        if record is None:
            record = self.functions[key] = FunctionRecord(code.co_filename, code.co_firstlineno,
                                                          getattr(code, "co_qualname", code.co_name),
                                                          order=len(self.functions))
            record.chain = [[f.f_code.co_filename, f.f_lineno, r.qualname] for f, r in self._app_frames()]
            caller = frame.f_back
            if caller is not None and self._is_app(caller.f_code) and caller.f_code.co_name == "<module>":
                record.chain.insert(0, [caller.f_code.co_filename, caller.f_lineno, "<module>"])
        record.calls += 1
        record.ancestors |= {_key(f.f_code) for f, _ in self._app_frames()}
        if len(record.digests) < _MAX_DIGESTS:
            n_args = code.co_argcount + code.co_kwonlyargcount
            values = [frame.f_locals.get(name) for name in code.co_varnames[:n_args]]
            arrays = [v for v in values if _is_array(v)]
            if arrays:
                record.array_args = True
                record.digests.add("|".join(_digest(a) for a in arrays))
        self.stack.append((frame, record))
        if record.calls >= self.enough and record.reaches_module and len(record.digests) > 1:
            self._stop()

    def _module_call(self, frame) -> None:
        self.stack.append((frame, None))
        self._local.module_depth += 1
        if self._local.module_depth > 1:
            return
        for _, record in self._app_frames():
            record.reaches_module = True
        caller = self._calling_app_frame(frame)
        if caller is not None:
            site_key = (caller.f_code.co_filename, caller.f_lineno)
            site = self.sites.setdefault(site_key, {
                "file": caller.f_code.co_filename, "line": caller.f_lineno, "count": 0,
                "frame": getattr(caller.f_code, "co_qualname", caller.f_code.co_name),
                "frame_key": _key(caller.f_code)})
            site["count"] += 1
            if site["count"] >= self.enough:
                self._stop()

    def _calling_app_frame(self, frame):
        """The application frame that called the module (through library frames, if any)."""
        f = frame.f_back
        while f is not None and not self._is_app(f.f_code):
            f = f.f_back
        return f

    def _stop(self) -> None:
        if not self.stopped:
            self.stopped = True
            raise StopObserving()

    def to_json(self) -> dict:
        return {"functions": [r.to_json() for r in self.functions.values()], "sites": list(self.sites.values())}


def _module_codes() -> set:
    try:
        import torch
    except ImportError:
        return set()
    codes = set()
    for name in ("_call_impl", "_wrapped_call_impl"):
        fn = getattr(torch.nn.Module, name, None)
        if fn is not None:
            codes.add(fn.__code__)
    return codes


def main(config_path: str) -> int:
    cfg = json.loads(Path(config_path).read_text())
    from leapp_codemod.runner.procgroup import die_with_parent
    die_with_parent(cfg["parent"])
    driver = Path(cfg["driver"])
    for p in (cfg["import_root"], str(driver.parent)):
        if p in sys.path:
            sys.path.remove(p)
        sys.path.insert(0, p)
    sys.dont_write_bytecode = True
    result: dict = {}
    observer = Observer(cfg["roots"], _module_codes(), cfg["calls"])
    os.chdir(cfg["cwd"])
    argv = sys.argv[:]
    sys.argv = [str(driver)]
    threading.setprofile(observer)
    sys.setprofile(observer)
    try:
        runpy.run_path(str(driver), run_name="__main__")
    except StopObserving:
        pass
    except SystemExit as exc:
        if exc.code not in (None, 0):
            result["driver_error"] = f"the driver exited with status {exc.code}"
    except BaseException as exc:  # noqa: BLE001 - the ranking still uses what was seen before the crash
        result["driver_error"] = f"the driver crashed: {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        sys.argv = argv
    result.update(observer.to_json())
    result["stopped"] = observer.stopped
    from leapp_codemod.io_util import write_atomic
    write_atomic(cfg["result"], json.dumps(result))
    return 0


if __name__ == "__main__":
    from leapp_codemod.runner.procgroup import finish_child
    finish_child(main(sys.argv[1]))     # threads the driver left running do not hold the tool


class ObserveError(Exception):
    """The driver could not be observed (one line)."""


def observe_driver(paths: list[Path], driver: Path, import_root: Path, calls: int, timeout: float) -> dict:
    """Run `driver` in a child process under the profiler (and `procgroup`: nothing it starts
    outlives the tool); the recorded calls (see `Observer`)."""
    import tempfile

    from leapp_codemod.io_util import write_atomic
    from leapp_codemod.runner import procgroup

    roots = sorted({str(p.resolve() if p.is_dir() else p.resolve().parent) for p in paths}
                   | {str(driver.resolve().parent)})
    work = tempfile.mkdtemp(prefix="leapp-codemod-observe-")
    try:
        result = Path(work) / "observed.json"
        config = Path(work) / "config.json"
        write_atomic(config, json.dumps({
            "driver": str(driver.resolve()), "import_root": str(import_root), "roots": roots, "calls": calls,
            "cwd": os.getcwd(), "result": str(result), "parent": os.getpid()}))
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        outcome = procgroup.run_supervised([sys.executable, "-m", "leapp_codemod.runner.observe", str(config)],
                                           env=env, timeout=timeout, log=None, cleanup=(work,),
                                           read_result=str(result))
    finally:
        procgroup.remove_paths([work])
    if outcome.result is None:
        tail = outcome.output.text().strip().splitlines()
        why = f"timed out after {timeout:g} s" if outcome.timed_out else (
            f"the observer stopped (exit {outcome.returncode}): {tail[-1][:200] if tail else 'no output'}")
        raise ObserveError(f"{driver}: {why}")
    return outcome.result
