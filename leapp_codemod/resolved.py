"""Findings the project's generated integration module already resolves.

A module `generate` wrote declares the pipeline's persistent tensors (`STATE`: name -> (owner
"module:Class", attribute)) and the functions it replaces while tracing (`PATCHES`: `Patch(module,
name, replacement, original "module:qualname", hazards=("path:line category", ...))`, twins
included). A finding is resolved by the module when
  * it is a state finding (category inplace-state) on an attribute the module declares for that class,
  * it lies in a function the module patches (the replacement runs in the trace, not the original),
  * or it is a hazard the module lists for a patch (a library call patched where it is looked up).
Resolved findings are not errors: `scan`/`lint` count them in the summary and list them with
`--show-resolved`. The modules are read with `ast` (never imported); which ones count: those the
`integration` setting names, else every module under the project carrying the generated header.
"""
from __future__ import annotations

import ast
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from leapp_codemod.knowledge.leapp import GENERATED_HEADER
from leapp_codemod.model import Category, Finding

_SELF_ATTR = re.compile(r"`self\.(\w+)")
_HAZARD = re.compile(r"^(?P<path>.+):(?P<line>\d+) (?P<category>[\w-]+)$")


@dataclass(frozen=True)
class Integration:
    """What one generated module resolves."""

    shown: str                                   # its path as printed
    state: frozenset[tuple[str, str]]            # (owner "module:Class", attribute)
    patched: frozenset[str]                      # originals, "module:qualname"
    hazards: frozenset[tuple[str, int, str]]     # (path as generate printed it, line, category)


@dataclass(frozen=True)
class Resolution:
    """A finding and the integration module that resolves it."""

    finding: Finding
    by: str

    def to_json(self) -> dict:
        return {**self.finding.to_json(), "resolved_by": self.by}


_HEADER = GENERATED_HEADER.encode("utf-8")


def is_generated(path: Path | str) -> bool:
    """The file starts with the generated header (only its first bytes are read)."""
    header = _HEADER
    try:
        with open(path, "rb") as handle:
            return handle.read(len(header)) == header
    except OSError:
        return False


def _generated_file(path: str) -> bool:
    """A regular file (a FIFO or a device is never opened) that starts with the generated header."""
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
    return regular and is_generated(path)


def discover_integrations(root: Path, configured=(), files=()) -> list[Path]:
    """The integration modules that count: `configured` (paths) when any, else the files carrying the
    generated header among `files` (what the scan walked) and under `root`. The search under `root` reads
    each file's first bytes before its other checks: nearly every file fails there, and cheaply."""
    if configured:
        return [Path(name).resolve() for name in configured]
    from leapp_codemod.source.files import python_paths
    found = {Path(p).resolve() for p in files if str(p).endswith(".py")}
    found |= python_paths(str(root), wanted=_generated_file) if root.is_dir() else set()
    return sorted(p for p in found if is_generated(p))


def _shown(path: Path) -> str:
    relative = os.path.relpath(path)
    return Path(relative).as_posix() if not relative.startswith("..") else path.as_posix()


def _assigned(tree: ast.Module, name: str) -> ast.expr | None:
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets) and node.value is not None:
            return node.value
    return None


def _literal(node: ast.expr | None, default):
    try:
        return ast.literal_eval(node) if node is not None else default
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return default


def read_integration(path: Path) -> Integration | None:
    """What the module at `path` declares, or None when it cannot be read as a generated module."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None
    state = _literal(_assigned(tree, "STATE"), {})
    pairs = {tuple(v) for v in state.values() if isinstance(v, (tuple, list)) and len(v) == 2} \
        if isinstance(state, dict) else set()
    patched, hazards = set(), set()
    patches = _assigned(tree, "PATCHES")
    for call in patches.elts if isinstance(patches, (ast.Tuple, ast.List)) else ():
        if not isinstance(call, ast.Call):
            continue
        original = _literal(call.args[3], None) if len(call.args) > 3 else None
        if isinstance(original, str):
            patched.add(original)
        for keyword in call.keywords:
            if keyword.arg == "hazards":
                for text in _literal(keyword.value, ()):
                    match = _HAZARD.match(str(text))
                    if match:
                        hazards.add((match["path"], int(match["line"]), match["category"]))
    return Integration(_shown(path), frozenset(pairs), frozenset(patched), frozenset(hazards))


def _owner(function: str) -> str:
    """`module:Class.method` -> `module:Class`."""
    module, _, qualname = function.partition(":")
    return f"{module}:{qualname.rpartition('.')[0]}" if "." in qualname else ""


def _same_file(listed: str, finding_path: str) -> bool:
    """Whether a path as `generate` printed it names the finding's file (run from another folder, the
    two differ by a prefix)."""
    a, b = Path(os.path.normpath(listed)).parts, Path(os.path.normpath(finding_path)).parts
    return len(a) > 0 and len(b) > 0 and (a[-len(b):] == b or b[-len(a):] == a)


def resolver(integration: Integration, finding: Finding) -> bool:
    """Whether `integration` resolves `finding`."""
    if finding.category == Category.INPLACE_STATE.value:
        attr = _SELF_ATTR.search(finding.message)
        if attr and (_owner(finding.function), attr.group(1)) in integration.state:
            return True
    function = finding.function
    if any(function == p or function.startswith(p + ".") for p in integration.patched):
        return True
    return any(line == finding.line and category == finding.category and _same_file(path, finding.path)
               for path, line, category in integration.hazards)


def resolve(findings: list[Finding], integrations: list[Integration]) -> tuple[list[Finding], list[Resolution]]:
    """The findings no module resolves, and the resolved ones with the module that does."""
    remaining, resolved = [], []
    for finding in findings:
        by = next((i.shown for i in integrations if resolver(i, finding)), None)
        if by is None:
            remaining.append(finding)
        else:
            resolved.append(Resolution(finding, by))
    return remaining, resolved
