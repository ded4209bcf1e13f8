"""Capture LEAPP's log records and point each hazard signal at the application line that caused it."""
from __future__ import annotations

import logging
import os
import re
import traceback
from dataclasses import dataclass, field

from leapp_codemod.knowledge.categories import confirmed_by
from leapp_codemod.knowledge.leapp import SHAPE_ONLY_NUMPY, UNMAPPED_NUMPY_RECORD
from leapp_codemod.runner.errors import cut
from leapp_codemod.source.guards import guard_at

# substring of a LEAPP record -> signal; the scan categories a signal confirms are read from the category table
SIGNAL_OF: tuple[tuple[str, str], ...] = (
    ("No torch equivalent for numpy", "unmapped-numpy"),
    ("in a boolean context", "tensor-branch"),
    ("called during tracing", "numpy-item-tolist"),
    ("are not used in the computation", "trimmed-input"),
    ("is not one of its registered outputs", "foreign-intermediate"),
    ("has no torch equivalent and cannot be recorded", "astype"),
    ("cannot be lowered functionally", "setitem"),
    ("was inlined as a constant", "frozen-constant"),
    ("re-entry samples failed", "frozen-constant"),
)
PATTERNS: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    (pattern, signal, confirmed_by(signal)) for pattern, signal in SIGNAL_OF)
# LEAPP records that say computation left the trace (any level): quoted as the cause of a failure.
DROPPED = ("Failed to decompose TorchScript", "Detected TorchScript call", "bypasses TracedTensor tracing",
           "are not used in the computation", "Operation will not be traced")
_DEBUG_SCALAR = re.compile(r"builtin_function_or_method (item|tolist|__float__|__int__|__bool__)\b")
_NOISE = ("CUDA execution provider not available", "torchvision")
_UNMAPPED = re.compile(UNMAPPED_NUMPY_RECORD)


def _shape_only(text: str) -> bool:
    """LEAPP's "No torch equivalent for numpy function ndim": a function of shapes only (SHAPE_ONLY_NUMPY)."""
    found = _UNMAPPED.search(text)
    return bool(found) and found.group(1) in SHAPE_ONLY_NUMPY
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# leapp-codemod's own adapters: a record raised inside them belongs to the adapter, not to the app line
ADAPTERS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "adapters")


@dataclass(frozen=True)
class Signal:
    signal: str
    level: str
    message: str
    location: str            # "path:line" of the innermost application frame, or ""
    categories: tuple[str, ...]
    adapter: str = ""        # "leapp_codemod.adapters.<module>.<function>" when raised inside one
    library: str = ""        # "file:line" in a library when the record was raised there (not at `location`)
    guard: str = ""          # the check raised at, when its other side only raises (`if bad: raise ...`)

    def to_json(self) -> dict:
        out = {"signal": self.signal, "level": self.level, "message": self.message,
               "location": self.location, "categories": list(self.categories), "adapter": self.adapter}
        if self.library:
            out["library"] = self.library
        if self.guard:
            out["guard"] = self.guard
        return out


@dataclass
class Capture(logging.Handler):
    app_root: str = ""
    cwd: str = ""
    signals: list[Signal] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    causes: list[str] = field(default_factory=list)       # records of computation leaving the trace

    def __post_init__(self):
        logging.Handler.__init__(self, level=logging.DEBUG)

    def __hash__(self):
        return id(self)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = _ANSI.sub("", record.getMessage())
        except Exception:  # noqa: BLE001 - a malformed record must not break the trace
            return
        level = _ANSI.sub("", record.levelname)
        first = text.strip().splitlines()[0] if text.strip() else ""
        if any(n in first for n in _NOISE):
            return
        if record.levelno >= logging.WARNING and len(self.messages) < 200:
            self.messages.append(f"{level}: {cut(first, 300)}")
        if _shape_only(text):
            return       # a static shape read (`np.ndim` inside NumPy's own functions): nothing left the trace
        if any(d in text for d in DROPPED) and len(self.causes) < 20:
            quoted = cut(" ".join(text.split()), 400)
            if quoted not in self.causes:
                self.causes.append(quoted)
        found = [(sig, cats) for pat, sig, cats in PATTERNS if pat in text]
        if _DEBUG_SCALAR.search(text):
            found.append(("scalar-extraction", confirmed_by("scalar-extraction")))
        location, adapter = self._origin() if found else ("", "")
        library = _library_frame(location) if found and location else ""
        guard = _guard(found)
        for sig, cats in found:
            item = Signal(sig, level, cut(first, 600), location, cats, adapter, library,
                          guard if sig == "tensor-branch" else "")
            if item not in self.signals:
                self.signals.append(item)

    def _origin(self) -> tuple[str, str]:
        """The innermost application frame ("path:line") and, when the record was raised inside one of
        leapp-codemod's adapters, that adapter: the application line is then the call that used it."""
        adapter = ""
        for frame in reversed(traceback.extract_stack()):
            path = os.path.abspath(frame.filename)
            if not adapter and path.startswith(ADAPTERS_DIR + os.sep):
                module = os.path.splitext(os.path.relpath(path, ADAPTERS_DIR))[0].replace(os.sep, ".")
                adapter = f"leapp_codemod.adapters.{module}.{frame.name}"
            if self.app_root and path.startswith(self.app_root + os.sep) and "site-packages" not in path \
                    and not path.startswith(ADAPTERS_DIR + os.sep):
                rel = os.path.relpath(path, self.cwd) if self.cwd else path
                return f"{rel.replace(os.sep, '/')}:{frame.lineno}", adapter
        return "", adapter


_LEAPP_DIR = f"{os.sep}leapp{os.sep}"
_STDLIB_DIR = os.path.dirname(os.path.abspath(logging.__file__))


def _raising_frame() -> traceback.FrameSummary | None:
    """The innermost frame outside LEAPP, logging and this package: the line that raised the record."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for frame in reversed(traceback.extract_stack()):
        path = os.path.abspath(frame.filename)
        if not (_LEAPP_DIR in path or path.startswith((here + os.sep, _STDLIB_DIR + os.sep))):
            return frame
    return None


def _guard(found: list) -> str:
    """For a tensor-branch record: the check it was raised at when that check's other side only raises."""
    if not any(sig == "tensor-branch" for sig, _ in found):
        return ""
    frame = _raising_frame()
    return guard_at(os.path.abspath(frame.filename), frame.lineno) if frame and frame.lineno else ""


def _library_frame(location: str) -> str:
    """Where the record was raised when that is not the application line `location`: the innermost
    frame outside LEAPP, logging and this package, as "site-packages-relative file:line"; '' when
    that frame is the application line itself."""
    frame = _raising_frame()
    if frame is not None:
        path = os.path.abspath(frame.filename)
        if path.endswith(location.rsplit(":", 1)[0]) and location.endswith(f":{frame.lineno}"):
            return ""
        marker = f"site-packages{os.sep}"
        shown = path.split(marker, 1)[1] if marker in path else path
        return f"{shown.replace(os.sep, '/')}:{frame.lineno}"
    return ""

