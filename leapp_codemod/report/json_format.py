"""The JSON object of the `scan --format json` contract (see DESIGN.md)."""
from __future__ import annotations

import json

from leapp_codemod import __version__
from leapp_codemod.model import ScanResult
from leapp_codemod.report.positions import sorted_findings


def to_document(result: ScanResult) -> dict:
    """`{"version", "findings", "resolved", "entrypoints", "entry", "entry_detail", "entry_note", "errors", "files_analyzed",
    "leapp_support"}`.

    `version` is leapp-codemod's. `entry` is the chosen entrypoint's `module:qualname` (the same form
    as each entrypoint's `"entry"`), or null when none was chosen; `entry_detail` is that entrypoint's
    object (path, line, score and the reasons it was chosen), or null; `entry_note` is the one line that
    says which entry the scan used and why (or what it did without one). Findings are in report order;
    `resolved` holds the findings a generated integration module resolves, each with `resolved_by`.
    With an observation (`scan --driver`, or a saved one), `observed_note` names it and each finding has
    `seen`: "seen running" or "static only". A finding of recurrent state has `related`: the first read of
    the value the previous call left (`path`, `line`, `column`, `message`).
    `libraries_followed` names the installed packages whose code the pipeline runs and the scan read (their
    findings are reported at the application's call site). `not_followed` lists the calls in the pipeline whose callee the scan could not resolve (`path`, `line`,
    `text`, `reason`, `receiver`, `function`); `bound_calls` the calls on run-time-bound receivers it did
    resolve (`path`, `line`, `text`, `targets`, `how`). `open_keys` (only when there are some) lists the tests
    on the keys of a dict a reached call fills with keys the scan cannot know: both branches were analysed.
    """
    return {
        "version": __version__,
        "findings": [f.to_json() for f in sorted_findings(result.findings)],
        "resolved": [r.to_json() for r in result.resolved],
        "entrypoints": [e.to_json() for e in result.entrypoints],
        "entry": result.entry.id if result.entry is not None else None,
        "entry_note": result.entry_note,
        "entry_detail": result.entry.to_json() if result.entry is not None else None,
        "errors": [{"path": e.path, "message": e.message} for e in result.errors],
        "files_analyzed": result.files_analyzed,
        "libraries_followed": list(result.libraries_followed),
        "leapp_support": result.leapp_support,
        "not_followed": [n.to_json() for n in result.not_followed],
        "bound_calls": [r.to_json() for r in result.bound_calls],
        **({"observed_note": result.observed_note} if result.observed_note else {}),
        **({"open_keys": list(result.open_keys)} if result.open_keys else {}),
    }


def render_json(result: ScanResult) -> str:
    return json.dumps(to_document(result), indent=2, ensure_ascii=False) + "\n"
