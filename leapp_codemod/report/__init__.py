"""Renderers: turn a `ScanResult` into text, JSON, SARIF or GitHub workflow commands.

Renderers are pure: they return strings and never decide what is a finding.
"""
from __future__ import annotations

from typing import Iterable

from leapp_codemod.model import ScanResult
from leapp_codemod.rules import ALL_RULES
from leapp_codemod.rules.base import Rule

FORMATS = ("text", "concise", "json", "sarif", "github")


def render(result: ScanResult, fmt: str, rules: Iterable[Rule] = ALL_RULES, text_options=None, sources=None) -> str:
    """Render `result` in `fmt` (one of `FORMATS`); `rules` documents the SARIF driver.

    `text_options` (a `text.TextOptions`) and `sources` (a `text.SourceLines`) shape the text forms.
    """
    if fmt in ("text", "concise"):
        from dataclasses import replace

        from leapp_codemod.report.text import TextOptions, render_text
        options = text_options or TextOptions()
        return render_text(result, replace(options, concise=options.concise or fmt == "concise"), sources)
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
