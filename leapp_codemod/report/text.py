"""Ruff-style text: one line per finding, then a one-line summary.

Files that could not be analyzed are counted in the summary; the command prints their messages
on standard error.
"""
from __future__ import annotations

from collections import Counter

from leapp_codemod.model import Finding, ScanResult
from leapp_codemod.report.positions import sorted_findings, span


def render_text(result: ScanResult) -> str:
    lines = [finding_line(f) for f in sorted_findings(result.findings)]
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def finding_line(finding: Finding) -> str:
    """`path:line:col: CODE [category] message`, the column 1-based."""
    where = span(finding)
    message = " ".join(finding.message.split())
    return f"{finding.path}:{where.line}:{where.column}: {finding.code} [{finding.category}] {message}"


def summary_line(result: ScanResult) -> str:
    """`Found 3 hazards (2 errors, 1 warning) in 2 files; 12 files analyzed.` or `No hazards found; ...`."""
    analyzed = f"{plural(result.files_analyzed, 'file')} analyzed"
    parts = [_found(result.findings), analyzed]
    if result.errors:
        unreadable = len({error.path for error in result.errors})
        parts.append(f"{plural(unreadable, 'file')} could not be analyzed")
    return "; ".join(parts) + "."


def _found(findings: list[Finding]) -> str:
    if not findings:
        return "No hazards found"
    by_severity = Counter(f.severity for f in findings)
    order = ["error", "warning"] + sorted(set(by_severity) - {"error", "warning"})
    counts = ", ".join(plural(by_severity[s], s) for s in order if by_severity[s])
    files = len({f.path for f in findings})
    return f"Found {plural(len(findings), 'hazard')} ({counts}) in {plural(files, 'file')}"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
