"""The verdict of `run` when the integration module still holds a stub (a replacement to write): nothing is
traced, and the report names the application line the first stub replaces."""
from __future__ import annotations

from leapp_codemod.runner.module_info import ModuleInfo
from leapp_codemod.runner.parent import RunOptions


def stub_error(info: ModuleInfo) -> str:
    """`stub not written: app/file.py:16` (the application line the first stub replaces), and where."""
    first = info.stubs[0]
    at = first.hazards[0].split(" ")[0] if first.hazards else f"{info.path}:{first.line}"
    more = "".join(f"; also {s.function} at {info.path}:{s.line} for {_app_line(info, s)}" for s in info.stubs[1:])
    others = other_findings(info)
    also = (f"; other unresolved findings on the entry's path, which may decide the export even once the stub is "
            f"written (not yet checked for execution: nothing ran): {'; '.join(others)}" if others else "")
    return (f"stub not written: {at} ({first.function} at {info.path}:{first.line} raises NotImplementedError "
            f"until you write it; nothing was traced{more}){also}")


def _app_line(info: ModuleInfo, stub) -> str:
    """The application line(s) a stub replaces (`app/file.py:16`, several joined by ', ')."""
    lines = list(dict.fromkeys(h.split(" ")[0] for h in stub.hazards))
    return ", ".join(lines) if lines else f"{info.path}:{stub.line}"


def other_findings(info: ModuleInfo) -> list[str]:
    """The module header's unresolved findings that no stub covers (`file:line category`)."""
    covered = {h.split(" ")[0] for s in info.stubs for h in s.hazards}
    out = []
    for text in info.unresolved:
        head = text.split(" ")
        if head and head[0] not in covered and len(head) > 1:
            out.append(f"{head[0]} {head[1].rstrip(':')}")
    return out


def stub_report(info: ModuleInfo, opts: RunOptions) -> dict:
    return {"status": "failed", "entry": info.entry, "integration": str(info.path), "graph_yaml": None,
            "models": [], "attempts": [], "validation": {}, "findings_confirmed": [], "timings": {},
            "error": stub_error(info), "other_unresolved": other_findings(info),
            "stubs": [{"function": s.function, "at": f"{info.path}:{s.line}", "patches": list(s.patches),
                       "hazards": list(s.hazards), "blocked": s.blocked} for s in info.stubs]}
