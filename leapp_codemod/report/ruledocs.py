"""Rule documentation rendered from the rule declarations themselves.

`rules_table` is `leapp-codemod rules`, `explain` is `leapp-codemod explain CODE`, and
`rules_markdown` is docs/rules.md. Regenerate that file with

    python -m leapp_codemod.report.ruledocs > docs/rules.md
"""
from __future__ import annotations

import inspect
import re
import textwrap
from typing import Iterable

from leapp_codemod.rules.base import Rule

REGENERATE = "python -m leapp_codemod.report.ruledocs > docs/rules.md"
TABLE_HEADER = ("CODE", "NAME", "CATEGORY", "SEVERITY", "SUMMARY")


def prose(text: str) -> str:
    """A docstring-like field without its common indentation and surrounding blank lines."""
    return inspect.cleandoc(text or "")


def code_block(snippet: str) -> str:
    body = textwrap.dedent(snippet or "").strip("\n").rstrip()
    return f"```python\n{body}\n```"


def title(rule: Rule) -> str:
    """`CODE (name) [category, severity]`: the code and the name are both accepted by every command."""
    return f"{rule.code} ({rule.name}) [{rule.category}, {rule.severity}]"


def sections(rule: Rule) -> list[tuple[str, str]]:
    """The explanation's sections in order, as (heading, markdown body)."""
    example = "\n\n".join([
        "Flagged:", code_block(rule.example), "Fixed:", code_block(rule.fixed_example),
    ])
    return [
        ("What it does", prose(rule.what)),
        ("Why is this a problem", prose(rule.why)),
        ("How to fix", prose(rule.fix)),
        ("Example", example),
    ]


def _sections_markdown(rule: Rule, level: int) -> str:
    marks = "#" * level
    return "\n\n".join(f"{marks} {heading}\n\n{body}" for heading, body in sections(rule))


def explain(rule: Rule) -> str:
    """What `leapp-codemod explain CODE` prints."""
    return f"{title(rule)}\n\n{_sections_markdown(rule, 2)}\n"


def rules_table(rules: Iterable[Rule]) -> str:
    """What `leapp-codemod rules` prints: an aligned table of code, category, severity, summary."""
    rows = [TABLE_HEADER] + [(r.code, r.name, r.category, r.severity, " ".join(r.summary.split())) for r in rules]
    if len(rows) == 1:
        return "No rules are registered.\n"
    widths = [max(len(row[i]) for row in rows) for i in range(len(TABLE_HEADER) - 1)]
    lines = ["  ".join([*(cell.ljust(w) for cell, w in zip(row, widths)), row[-1]]).rstrip() for row in rows]
    return "\n".join(lines) + "\n"


def rules_json(rules: Iterable[Rule]) -> list[dict]:
    """What `leapp-codemod rules --format json` prints: one object per rule with its documentation."""
    return [{"code": r.code, "name": r.name, "category": r.category, "severity": r.severity,
             "summary": " ".join(r.summary.split()), "what": prose(r.what), "why": prose(r.why),
             "fix": prose(r.fix)} for r in rules]


def anchor(heading: str) -> str:
    """The fragment GitHub gives a markdown heading."""
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def rule_markdown(rule: Rule, level: int = 2) -> str:
    """One rule's documentation: heading, category and severity, then the explanation's sections."""
    heading = f"{rule.code} ({rule.name})"
    meta = f"Category: `{rule.category}` · Severity: `{rule.severity}` · {_cell(rule.summary)}"
    return f"{'#' * level} {heading}\n\n{meta}\n\n{_sections_markdown(rule, level + 1)}\n"


def rules_markdown(rules: Iterable[Rule]) -> str:
    """docs/rules.md: an index table, then every rule's documentation."""
    rules = list(rules)
    parts = [
        "# Rules\n",
        f"<!-- Generated from the rule modules by `{REGENERATE}`. Do not edit by hand. -->\n",
        "Each rule finds one kind of LEAPP trace hazard in pipeline code. "
        "`leapp-codemod rules` lists them; `leapp-codemod explain CODE` prints one rule's "
        "section of this page.\n",
    ]
    if not rules:
        parts.append("No rules are registered.\n")
        return "\n".join(parts)
    table = ["| Code | Name | Category | Severity | Summary |", "| --- | --- | --- | --- | --- |"]
    for rule in rules:
        link = anchor(f"{rule.code} ({rule.name})")
        table.append(f"| [{rule.code}](#{link}) | {rule.name} | `{rule.category}` | {rule.severity} "
                     f"| {_cell(rule.summary)} |")
    parts.append("\n".join(table) + "\n")
    parts.extend(rule_markdown(rule) for rule in rules)
    return "\n".join(parts)


def main() -> None:
    import sys

    from leapp_codemod.rules import ALL_RULES

    sys.stdout.write(rules_markdown(ALL_RULES))


if __name__ == "__main__":
    main()
