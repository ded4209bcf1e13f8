"""Renderers: turn a `ScanResult` into text, JSON, SARIF or GitHub workflow commands.

Renderers are pure: they return strings and never decide what is a finding.
"""
from __future__ import annotations

from typing import Iterable

from leapp_codemod.model import ScanResult
from leapp_codemod.rules import ALL_RULES
from leapp_codemod.rules.base import Rule

FORMATS = ("text", "json", "sarif", "github")


def render(result: ScanResult, fmt: str, rules: Iterable[Rule] = ALL_RULES) -> str:
    """Render `result` in `fmt` (one of `FORMATS`); `rules` documents the SARIF driver."""
    if fmt == "text":
        from leapp_codemod.report.text import render_text
        return render_text(result)
    if fmt == "json":
        from leapp_codemod.report.json_format import render_json
        return render_json(result)
    if fmt == "sarif":
        from leapp_codemod.report.sarif import render_sarif
        return render_sarif(result, rules)
    if fmt == "github":
        from leapp_codemod.report.github import render_github
        return render_github(result)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


__all__ = ["FORMATS", "render"]
