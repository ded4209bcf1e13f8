"""Where a finding is, in the terms that every output format uses.

`Finding` positions are already 1-based: lines as Python's `ast` numbers them, columns as
`col_offset + 1`, the end column just past the last character. Editors, ruff and flake8, SARIF
and GitHub all read columns that way, so the renderers show them unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass

from leapp_codemod.model import Finding


@dataclass(frozen=True)
class Span:
    """1-based line and column of the start; the end line and the 1-based column just past the end."""

    line: int
    column: int
    end_line: int
    end_column: int


def span(finding: Finding) -> Span:
    """The finding's region, made well-formed: starts at 1 or later, never ends before it starts."""
    line = max(1, finding.line)
    column = max(1, finding.column)
    end_line = finding.end_line
    end_column = finding.end_column
    if end_line < line or (end_line == line and end_column < column):
        end_line, end_column = line, column
    return Span(line, column, end_line, max(1, end_column))


def sort_key(finding: Finding) -> tuple:
    """Report order: by path, then position, then code."""
    return (finding.path, finding.line, finding.column, finding.code, finding.message)


def sorted_findings(findings) -> list[Finding]:
    return sorted(findings, key=sort_key)
