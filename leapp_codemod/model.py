"""The shared vocabulary of every stage: plain, immutable data."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Category(str, Enum):
    SCALAR_EXTRACTION = "scalar-extraction"
    TENSOR_BRANCH = "tensor-branch"
    UNMAPPED_NUMPY = "unmapped-numpy"
    FOREIGN_LIBRARY = "foreign-library"
    NUMPY_NEGATIVE_STRIDE = "numpy-negative-stride"
    NUMPY_ASTYPE = "numpy-astype"
    INPLACE_STATE = "inplace-state"
    RANDOM_IN_PIPELINE = "random-in-pipeline"
    IO_IN_PIPELINE = "io-in-pipeline"
    SHAPE_SPECIALIZATION = "shape-specialization"
    WARP_KERNEL = "warp-kernel"


class Severity(str, Enum):
    ERROR = "error"      # the export is silently wrong or fails
    WARNING = "warning"  # the export is restricted (e.g. to one shape) or loses a side effect
    INFO = "info"        # no code falls out of the trace: an input the boundary must declare (`generate` does)


@dataclass(frozen=True, order=True)
class Finding:
    """One hazard at one place. `path` is as the user named it (POSIX separators)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    category: str
    severity: str
    message: str
    fix: str
    function: str = ""  # "module:qualname" of the enclosing function, "" at module level
    seen: str = ""      # with an observation: "seen running" (the line ran) or "static only"
    # other places of the same hazard, each (path, line, column, note): for recurrent state, where the step
    # first reads the value the previous call left (the state input; the finding sits on the write, its output)
    related: tuple[tuple[str, int, int, str], ...] = ()

    def to_json(self) -> dict:
        data = {
            "path": self.path, "line": self.line, "column": self.column,
            "end_line": self.end_line, "end_column": self.end_column,
            "code": self.code, "category": self.category, "severity": self.severity,
            "message": self.message, "fix": self.fix, "function": self.function,
        }
        if self.seen:
            data["seen"] = self.seen
        if self.related:
            data["related"] = [{"path": p, "line": n, "column": c, "message": note} for p, n, c, note in self.related]
        return data


@dataclass(frozen=True)
class Entrypoint:
    """A candidate pipeline entrypoint plus why it was ranked.

    kind "function": `module:qualname`. kind "inline": statements `start`-`end` (1-based, inclusive,
    whole statements) of a driver loop at `path`:`line`, spelled `path:start-end`.
    """

    module: str
    qualname: str
    path: str
    line: int
    score: int
    reasons: tuple[str, ...]
    kind: str = "function"
    start: int = 0
    end: int = 0

    @property
    def id(self) -> str:
        if self.kind == "inline":
            return f"{self.path}:{self.start}-{self.end}"
        return f"{self.module}:{self.qualname}"

    @property
    def title(self) -> str:
        """How a listing names the candidate."""
        if self.kind == "inline":
            return f"inline loop at {self.path}:{self.line} (statements {self.start}-{self.end})"
        return self.id

    def to_json(self) -> dict:
        doc = {"entry": self.id, "kind": self.kind, "path": self.path, "line": self.line, "score": self.score,
               "reasons": list(self.reasons)}
        if self.kind == "inline":
            doc.update(start=self.start, end=self.end)
        return doc


@dataclass(frozen=True)
class PatchTarget:
    """A binding through which the pipeline calls a module-level function.

    `leapp.FunctionPatch(import_module(module), name, replacement)` replaces the call;
    `function` is the defining "module:qualname".
    """

    module: str
    name: str
    function: str


@dataclass(frozen=True)
class LibraryCall:
    """A flagged call of a library function, and the binding the pipeline looks it up through.

    `from numpy import deg2rad` then `deg2rad(x)` in app.frames: module "app.frames", name "deg2rad";
    `cv.resize(...)` after `import cv2 as cv`: module "cv2", name "resize". `target` is the library
    callable ("numpy.deg2rad", "cv2.resize").
    """

    path: str
    line: int
    module: str
    name: str
    target: str


@dataclass(frozen=True)
class StateAttr:
    """Persistent tensor state that the pipeline writes: `owner` is "module:Class"."""

    owner: str
    attr: str
    kind: str  # "reassigned" (self.x = ...) or "inplace" (self.x.copy_(...), self.x += ..., self.x[i] = ...)
    path: str
    line: int
    is_module_buffer: bool = False  # registered with register_buffer on an nn.Module


@dataclass(frozen=True, order=True)
class NotFollowed:
    """A call inside the pipeline whose callee the scan could not resolve (so its code was not analyzed).

    `text` is the call as written, shortened (`self.adapter.preprocess(...)`); `reason` says why the
    receiver stayed unknown (`receiver from hydra.utils.instantiate; no _target_ found`); `receiver` is the
    expression to bind (`self.adapter`), "" when the callee is not an attribute of a receiver; `function` is
    the enclosing "module:qualname"; `package` is the top-level package the callee comes from when that
    package is neither scanned nor installed (installing it lets the scan follow the call), else "".
    """

    path: str
    line: int
    text: str
    reason: str
    receiver: str = ""
    function: str = ""
    package: str = ""

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "text": self.text, "reason": self.reason,
                "receiver": self.receiver, "function": self.function, "package": self.package}


@dataclass(frozen=True, order=True)
class Resolved:
    """A call whose receiver is bound at run time, and how the scan resolved it: `how` is "hydra _target_
    in conf/policy.yaml:12", "duck typing: ...", "bound with --bind", ...; `targets` the "module:qualname"s."""

    path: str
    line: int
    text: str
    targets: tuple[str, ...]
    how: str

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "text": self.text, "targets": list(self.targets),
                "how": self.how}


@dataclass(frozen=True)
class FileError:
    path: str
    message: str
    internal: bool = False      # a fault of the tool (a rule that crashed), not of the file

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass
class ScanResult:
    findings: list[Finding] = field(default_factory=list)
    entrypoints: list[Entrypoint] = field(default_factory=list)
    entry: Entrypoint | None = None
    entry_note: str = ""  # one line: which entry the scan used and why, or what it did without one
    reachable: list[str] = field(default_factory=list)          # "module:qualname", call order
    patch_targets: list[PatchTarget] = field(default_factory=list)
    library_calls: list[LibraryCall] = field(default_factory=list)
    state: list[StateAttr] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    not_followed: tuple[NotFollowed, ...] = ()   # calls in the pipeline whose callee stayed unknown
    observed_note: str = ""   # "observed: 3 calls of … from main.py, …", or why a saved observation was ignored
    bound_calls: tuple[Resolved, ...] = ()       # calls on run-time-bound receivers, and how they were resolved
    open_keys: tuple[str, ...] = ()   # tests on the keys of a dict a reached call fills with keys not known (both branches analysed)
    files_analyzed: int = 0
    libraries_followed: tuple[str, ...] = ()   # installed packages whose code the pipeline runs and the scan read
    leapp_support: str = ""  # where the LEAPP mapping came from, e.g. "installed leapp 0.7.2"
    resolved: list = field(default_factory=list)   # resolved.Resolution: findings a generated module resolves
