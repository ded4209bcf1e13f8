"""The one hook that watches a running application (in the observed process).

`Tracer` installs one trace function (`sys.monitoring` is not used yet: on Python 3.11 a
`sys.settrace` hook, which sees Python calls, returns and lines, and costs nothing for frames it
does not follow). It feeds two listeners:

* `Ranking` (`entrypoints --driver`): how every application function was called;
* `EntryRecorder` (`scan --driver`, `scan --inputs`, and `run`'s observations): during the first N
  calls of one entry, every function executed inside it with its call edges and the concrete class
  of its receiver, the lines executed, and for every `self.x` / `self.x.y` / global the function
  reads, whether its value was the same on every observed call (a setting) or changed (data or
  state), with its kind.

The tracer never changes what the application computes. Application code is code under `roots`
(outside site-packages); a library function called directly from application code is recorded as a
callee (a followed library), without tracing inside it.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import types

from leapp_codemod.observe.ranking import code_key
from leapp_codemod.observe.values import OBJECT, fingerprint, kind, summary, truth

_MODULE_CALLS = ("_call_impl", "_wrapped_call_impl")


class StopObserving(BaseException):
    """Raised into the driver once enough calls were seen (not caught by `except Exception`)."""


def _qualname(code) -> str:
    return getattr(code, "co_qualname", code.co_name)


def class_key(cls) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _receiver(frame, code):
    """The instance a method runs on: the first argument when the function is found on its class."""
    if not code.co_argcount:
        return None
    first = frame.f_locals.get(code.co_varnames[0])
    if first is None or isinstance(first, (type, types.ModuleType)):
        return None
    for klass in type(first).__mro__:
        member = klass.__dict__.get(code.co_name)
        for fn in (member, getattr(member, "fget", None), getattr(member, "__func__", None)):
            if getattr(fn, "__code__", None) is code:
                return first
    return None


def _plain_global(value) -> bool:
    return not isinstance(value, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
                                  types.MethodType))


class EntryRecorder:
    """Listener of `Tracer` for the first `calls` calls of the function whose code starts at
    (`file`, `line`) (same-named code when several start there)."""

    def __init__(self, file: str, line: int, name: str, calls: int):
        self.file, self.line, self.name, self.calls = os.path.abspath(file), line, name, calls
        self.seen = 0                 # entry calls started
        self.entry_frame = None
        self.thread = None
        self.functions: dict[str, dict] = {}
        self.lines: dict[str, set[int]] = {}
        self.edges: dict[tuple, dict] = {}
        self.reads: dict[tuple, dict] = {}     # (owner, path) -> {kind, fps: {call index: fp}, ...}
        self.done = False

    # ------------------------------------------------------------------ entry calls
    def is_entry(self, code) -> bool:
        return (code.co_firstlineno == self.line and code.co_name == self.name
                and os.path.abspath(code.co_filename) == self.file)

    @property
    def active(self) -> bool:
        return self.entry_frame is not None and threading.get_ident() == self.thread

    def start(self, frame) -> None:
        self.entry_frame, self.thread = frame, threading.get_ident()
        self.seen += 1

    def finish(self, frame) -> None:
        if frame is self.entry_frame:
            self.entry_frame = None
            if self.seen >= self.calls:
                self.done = True

    # ------------------------------------------------------------------ what ran
    def on_call(self, frame, code, is_app, library: bool = False) -> None:
        key = code_key(code)
        record = self.functions.get(key)
        if record is None:
            record = self.functions[key] = {"file": code.co_filename, "line": code.co_firstlineno,
                                            "qualname": _qualname(code), "calls": 0, "library": library}
            self.lines[key] = set()
        record["calls"] += 1
        if frame is not self.entry_frame:
            self._edge(frame, code, key, is_app)
        if not library:
            self._reads(frame, code)

    def on_line(self, frame) -> None:
        lines = self.lines.get(code_key(frame.f_code))
        if lines is not None:
            lines.add(frame.f_lineno)

    def _edge(self, frame, code, key: str, is_app) -> None:
        caller, via = frame.f_back, ""
        while caller is not None and not is_app(caller.f_code):
            via = via or f"{caller.f_globals.get('__name__', '?')}:{_qualname(caller.f_code)}"
            caller = caller.f_back
        if caller is None:
            return
        receiver = _receiver(frame, code)
        cls = type(receiver) if receiver is not None else None
        edge_key = (code_key(caller.f_code), caller.f_lineno, key, class_key(cls) if cls else "")
        if edge_key in self.edges:
            self.edges[edge_key]["count"] += 1
            return
        module = sys.modules.get(cls.__module__) if cls else None
        self.edges[edge_key] = {"caller": edge_key[0], "line": caller.f_lineno, "callee": key,
                                "receiver": edge_key[3], "receiver_file": getattr(module, "__file__", "") or "",
                                "via": via, "count": 1}

    def _reads(self, frame, code) -> None:
        names = code.co_names
        if not names:
            return
        receiver = _receiver(frame, code)
        if receiver is not None:
            cls = type(receiver)
            owner = class_key(cls)
            file = getattr(sys.modules.get(cls.__module__), "__file__", "") or ""
            attrs = _attributes(receiver)
            for name in names:
                if name in attrs:
                    value = attrs[name]
                    self._read(owner, file, (name,), value)
                    if kind(value) == OBJECT and not _is_module(value):
                        inner = _attributes(value)
                        for sub in names:
                            if sub in inner and sub != name:
                                self._read(owner, file, (name, sub), inner[sub])
        glob = frame.f_globals
        module = glob.get("__name__", "?")
        for name in names:
            if name in glob and not name.startswith("__"):
                value = glob[name]
                if _plain_global(value):
                    self._read(f"global:{module}", glob.get("__file__", "") or code.co_filename, (name,), value)

    def _read(self, owner: str, file: str, path: tuple, value) -> None:
        entry = self.reads.get((owner, path))
        if entry is None:
            entry = self.reads[(owner, path)] = {"kind": kind(value), "fps": {}, "value": summary(value),
                                                 "truth": truth(value), "file": file}
        index = self.seen
        if index not in entry["fps"]:
            entry["fps"][index] = fingerprint(value)

    def to_json(self) -> dict:
        functions = []
        for key, record in self.functions.items():
            functions.append(dict(record, key=key, lines=sorted(self.lines.get(key, ()))))
        reads = []
        for (owner, path), entry in sorted(self.reads.items(), key=lambda kv: (kv[0][0], kv[0][1])):
            values = list(entry["fps"].values())
            constant = len(values) >= 1 and all(v == values[0] for v in values)
            reads.append({"owner": owner, "file": entry["file"], "path": list(path), "kind": entry["kind"],
                          "constant": constant,
                          "calls": len(values), "value": entry["value"] if constant else "",
                          "truth": entry["truth"] if constant else None})
        return {"entry_calls": self.seen, "functions": functions, "edges": list(self.edges.values()),
                "reads": reads}


def _is_module(value) -> bool:
    return any(c.__name__ == "Module" and (c.__module__ or "").startswith("torch.nn") for c in type(value).__mro__)


def _attributes(obj) -> dict:
    """`vars(obj)`, with an nn.Module's parameters, buffers and submodules as attributes."""
    try:
        attrs = dict(vars(obj))
    except TypeError:
        return {}
    for inner in ("_parameters", "_buffers", "_modules"):
        extra = attrs.get(inner)
        if isinstance(extra, dict):
            attrs.update(extra)
    return attrs


class Tracer:
    """One trace function for the whole process: `install()` / `uninstall()` (all threads)."""

    def __init__(self, roots: list[str], ranking=None, recorder: EntryRecorder | None = None, on_done=None):
        self.roots = [os.path.abspath(r).rstrip(os.sep) + os.sep for r in roots]
        self.ranking, self.recorder = ranking, recorder
        self.on_done = on_done
        self._mine: dict = {}
        self._stopping = False
        self._finder = None

    def is_app(self, code) -> bool:
        mine = self._mine.get(code)
        if mine is None:
            path = os.path.abspath(code.co_filename)
            mine = (not code.co_filename.startswith("<") and any(path.startswith(r) for r in self.roots)
                    and "site-packages" not in path)
            self._mine[code] = mine
        return mine

    def install(self) -> None:
        threading.settrace(self.trace)
        sys.settrace(self.trace)

    def uninstall(self) -> None:
        sys.settrace(None)
        threading.settrace(None)
        if self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)

    def install_on_import(self, file: str) -> None:
        """Install once the module in `file` is imported (nothing is traced before: `import torch` runs
        at full speed); at once when it is already loaded."""
        file = os.path.abspath(file)
        if any(os.path.abspath(getattr(m, "__file__", None) or "") == file for m in list(sys.modules.values())):
            self.install()
            return
        self._finder = _InstallOnImport(file, self.install)
        sys.meta_path.insert(0, self._finder)

    @property
    def done(self) -> bool:
        return bool((self.ranking is not None and self.ranking.done)
                    or (self.recorder is not None and self.recorder.done))

    def trace(self, frame, event, arg):
        """The global trace function: called on every Python call; returns the local one or None."""
        if event != "call":
            return None
        rec = self.recorder
        if rec is not None and self.ranking is None and rec.entry_frame is None and not rec.done:
            code = frame.f_code                 # idle: the cheapest test that is false for other code
            if code.co_firstlineno != rec.line or code.co_name != rec.name or not rec.is_entry(code):
                return None
        if self.done:
            self._stop()
            return None
        code = frame.f_code
        follow = False
        if rec is not None:
            if rec.active:
                app = self.is_app(code)
                if app and code.co_name != "<module>":
                    rec.on_call(frame, code, self.is_app)
                    follow = True
                elif not app and frame.f_back is not None and self.is_app(frame.f_back.f_code):
                    rec.on_call(frame, code, self.is_app, library=True)
            elif rec.entry_frame is None and rec.seen < rec.calls and rec.is_entry(code):
                rec.start(frame)
                rec.on_call(frame, code, self.is_app)
                follow = True
        ranking = self.ranking
        if ranking is not None:
            if code.co_name in _MODULE_CALLS and "torch" in code.co_filename:
                ranking.on_module_call(frame, self.is_app)
                frame.f_trace_lines = False
                return self.local
            if self.is_app(code) and code.co_name != "<module>":
                ranking.on_app_call(frame, code, self.is_app)
                if not follow:
                    frame.f_trace_lines = False
                    follow = True
        return self.local if follow else None

    def local(self, frame, event, arg):
        if event == "line":
            rec = self.recorder
            if rec is not None and rec.active:
                rec.on_line(frame)
        elif event == "return":
            if self.ranking is not None:
                self.ranking.on_return(frame, arg)
            if self.recorder is not None:
                self.recorder.finish(frame)
        return self.local

    def _stop(self) -> None:
        if self._stopping:
            return
        self._stopping = True
        self.uninstall()
        if self.on_done is None:
            raise StopObserving()
        self.on_done()


class _InstallOnImport:
    """A meta-path finder that asks the other finders and calls `install` when the module they find is
    the watched file (then stays out of the way)."""

    def __init__(self, file: str, install):
        self.file, self.install, self.fired = file, install, False

    def find_spec(self, fullname, path, target=None):
        if self.fired:
            return None
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                if spec.origin and os.path.abspath(spec.origin) == self.file:
                    self.fired = True
                    self.install()
                return spec
        return None


@contextlib.contextmanager
def watching(fn, roots: list[str], calls: int):
    """In-process use (the runner's observations): record the first `calls` calls of the Python
    function `fn` while the block runs; the tracer removes itself after them and the application
    runs on undisturbed. Yields the `EntryRecorder` (`.to_json()` once the block is done)."""
    code = fn.__code__
    recorder = EntryRecorder(code.co_filename, code.co_firstlineno, code.co_name, calls)
    tracer = Tracer(roots, recorder=recorder, on_done=lambda: None)
    tracer.install()
    try:
        yield recorder
    finally:
        tracer.uninstall()
