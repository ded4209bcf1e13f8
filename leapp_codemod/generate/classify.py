"""Where each finding of a scan goes in the generated module: resolved (a patch, declared state, a held
input), unresolved, moved to the host runtime or left out of the export."""
from __future__ import annotations

from leapp_codemod.generate.adapters import class_constructor
from leapp_codemod.generate.held_inputs import OUTSIDE_RULE
from leapp_codemod.generate.sources import Sources
from leapp_codemod.knowledge.categories import HOST_CATEGORIES, LEFT_OUT_CATEGORIES, LIBRARY_CATEGORIES
from leapp_codemod.model import Finding, ScanResult


def finding_ref(f: Finding) -> str:
    return f"{f.path}:{f.line} {f.category}: {f.message}"


def resolved_by_state(f: Finding, state, sources: Sources) -> bool:
    """Is the in-place state write `f` one of the declared state specs (`state`: StateSpec)?"""
    if f.category != "inplace-state":
        return False
    for s in state:
        if s.where == f"{f.path}:{f.line}" or s.attr in sources.self_attrs_on_line(f.path, f.line):
            return True
    return False


def classify(scan: ScanResult, covered: dict[int, str], stubs: set[str], state,
             sources: Sources, served: set[tuple[str, int, int]]) -> tuple[list[str], list[str], list[str]]:
    """(unresolved, moved to the host runtime, left out of the export) findings, as references. An input
    filled outside the step is served by HELD (`served`) or unresolved: it is no side effect to leave out."""
    unresolved, host, left_out = [], [], []
    for f in sorted(scan.findings, key=lambda f: (f.path, f.line, f.column, f.code)):
        idx = scan.findings.index(f)
        ref = finding_ref(f)
        if f.code == OUTSIDE_RULE:
            if (f.path, f.line, f.column) not in served:
                unresolved.append(ref)
        elif f.category in HOST_CATEGORIES:
            host.append(ref)
            unresolved.append(ref)
        elif f.category in LEFT_OUT_CATEGORIES:
            left_out.append(ref)
        elif idx in covered:
            if covered[idx] in stubs:
                unresolved.append(f"{ref} (write {covered[idx]})")
        elif diverted_class(scan, f):
            unresolved.append(f"{ref} (`run` diverts {diverted_class(scan, f)} to its torch adapter while "
                              "tracing; the validation checks it)")
        elif not resolved_by_state(f, state, sources):
            unresolved.append(ref)
    return unresolved, host, left_out


def diverted_class(scan: ScanResult, f: Finding) -> str:
    """The class adapter `run` diverts a library constructor on the finding's line to (runner/
    class_patches.py), or ''."""
    if f.category not in LIBRARY_CATEGORIES:
        return ""
    for call in scan.library_calls:
        if call.path == f.path and call.line == f.line:
            owner, _, name = call.target.rpartition(".")
            found = class_constructor(f"{owner}:{name}")
            if found:
                return found
    return ""
