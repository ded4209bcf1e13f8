"""Post-processing of a scan's findings: library findings moved to the application call sites that
reach them, one finding per line and category, the functions `generate` patches."""
from __future__ import annotations

from dataclasses import replace

from leapp_codemod.analysis.flow.dataflow import Analysis
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.knowledge.categories import PATCHABLE_CATEGORIES, REPORTED_IN_LIBRARIES
from leapp_codemod.knowledge.libraries import PLUMBING_ROOTS
from leapp_codemod.model import Finding, LibraryCall, PatchTarget
from leapp_codemod.rules import ALL_RULES, scratch_buffer

# Codes of the rules that say their findings inside an installed library are not reported.
UNREPORTED_LIBRARY_CODES = frozenset(rule.code for rule in ALL_RULES if not rule.in_libraries)


def call_site_findings(findings: list[Finding], origins: dict[str, set[tuple]], reachable, project) -> list[Finding]:
    """Library findings moved to the application call sites that reach them; project findings kept."""
    out = []
    for finding in findings:
        fn = reachable.get(finding.function)
        if fn is None or not project.is_library(fn.module):
            out.append(finding)
            continue
        if finding.category not in REPORTED_IN_LIBRARIES or finding.code in UNREPORTED_LIBRARY_CODES \
                or fn.module.partition(".")[0] in PLUMBING_ROOTS:
            continue
        for caller_id, line, col, end_line, end_col in sorted(origins.get(fn.id, ())):
            caller = reachable.get(caller_id)
            if caller is None:
                continue
            module = project.modules[caller.module]
            out.append(replace(finding, path=caller.path, line=line, column=module.column(line, col),
                               end_line=end_line, end_column=module.column(end_line, end_col),
                               message=f"{finding.message} (in {finding.path}:{finding.line})"))
    return out


def relocated_calls(findings: list[Finding], library_calls: list[LibraryCall], analysis: Analysis,
                    project: Project) -> list[LibraryCall]:
    """Flagged calls inside an installed library, placed at the application call sites their findings
    move to (`call_site_findings`), still naming the binding the library looks the callee up through:
    what `generate` patches when the hazard lives in the library."""
    by_site = {(c.path, c.line): c for c in library_calls}
    out = []
    for finding in findings:
        fn = analysis.reachable.get(finding.function)
        call = by_site.get((finding.path, finding.line))
        if call is None or fn is None or not project.is_library(fn.module):
            continue
        for caller_id, line, *_ in sorted(analysis.facts.library_origins.get(fn.id, ())):
            caller = analysis.reachable.get(caller_id)
            if caller is not None:
                out.append(LibraryCall(caller.path, line, call.module, call.name, call.target))
    return out


def dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per (path, line, category): the first by column, the rest say the same thing.
    Within an I/O call (`cv2.imshow(img[..., ::-1])`) the I/O is the one root cause: what only
    feeds it leaves the export with it."""
    io_spans = [(f.path, f.line, f.column, f.end_line, f.end_column) for f in findings
                if f.category == "io-in-pipeline"]
    findings = [f for f in findings if f.category == "io-in-pipeline" or not any(
        f.path == path and f.line == line and f.end_line == end_line and column <= f.column
        and f.end_column <= end_column for path, line, column, end_line, end_column in io_spans)]
    seen: set[tuple[str, int, str]] = set()
    out = []
    for finding in sorted(findings, key=lambda f: (f.path, f.line, f.column, f.code)):
        key = (finding.path, finding.line, finding.category)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out


def patch_targets(analysis: Analysis, findings: list[Finding]) -> list[PatchTarget]:
    flagged = {f.function for f in findings if f.category in PATCHABLE_CATEGORIES or _local_buffer(f)}
    out = set()
    for fid in flagged:
        fn = analysis.reachable.get(fid)
        if fn is None or fn.class_name is not None or analysis.project.is_library(fn.module):
            continue
        for module, name in analysis.facts.call_bindings.get(fid, ()):
            out.add(PatchTarget(module, name, fid))
    return sorted(out, key=lambda t: (t.function, t.module, t.name))


def _local_buffer(finding: Finding) -> bool:
    """A write into an array the function allocates itself (LCM703's local case, whose fix is a FunctionPatch
    of the function: `generate` twins it with the writes kept on a traced allocation)."""
    return finding.code == scratch_buffer.RULE.code and scratch_buffer.PATCH_FIX in finding.fix
