import ast
import re
import subprocess
import sys
from pathlib import Path

from leapp_codemod.model import Category, Severity
from leapp_codemod.report.ruledocs import anchor, explain, rules_markdown, rules_table, sections, title
from leapp_codemod.rules import ALL_RULES, get_rule
from leapp_codemod.rules.base import Rule

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = ["What it does", "Why is this a problem", "How to fix", "Example"]


def make_rule(code="LC101", name="item-call", category="scalar-extraction", severity="error") -> Rule:
    return Rule(
        code=code, name=name, category=category, severity=severity,
        summary="`.item()` on pipeline data freezes a constant",
        what="""
            Finds `.item()` calls on values derived from the
            pipeline's inputs or state.
        """,
        why="LEAPP records the Python number, so the exported model replays the traced value.",
        fix="Keep the value a tensor: compare and select with `torch.where`.",
        example="""
            def step(obs):
                if obs.sum().item() > 0:
                    return obs
                return -obs
        """,
        fixed_example="def step(obs):\n    return torch.where(obs.sum() > 0, obs, -obs)\n",
        node_types=(ast.Call,), check=lambda node, ctx: (),
    )


def test_title_line():
    assert title(make_rule()) == "LC101 (item-call) [scalar-extraction, error]"


def test_explain_has_title_then_sections_in_order():
    text = explain(make_rule())
    lines = text.splitlines()
    assert lines[0] == "LC101 (item-call) [scalar-extraction, error]"
    headings = [line[3:] for line in lines if line.startswith("## ")]
    assert headings == SECTIONS
    assert "Finds `.item()` calls on values derived from the\npipeline's inputs or state." in text
    assert "replays the traced value" in text
    assert "torch.where" in text


def test_explain_example_shows_flagged_and_fixed_code_dedented():
    text = explain(make_rule())
    assert ("Flagged:\n\n```python\ndef step(obs):\n    if obs.sum().item() > 0:\n        return obs\n"
            "    return -obs\n```") in text
    assert "Fixed:\n\n```python\ndef step(obs):\n    return torch.where(obs.sum() > 0, obs, -obs)\n```" in text
    assert text.index("Flagged:") < text.index("Fixed:")


def test_rules_table_aligns_columns():
    table = rules_table([make_rule(), make_rule("LC1001", "shape-branch", "shape-specialization", "warning")])
    lines = table.splitlines()
    assert lines[0].split() == ["CODE", "NAME", "CATEGORY", "SEVERITY", "SUMMARY"]
    assert lines[1].split()[:4] == ["LC101", "item-call", "scalar-extraction", "error"]
    assert lines[2].split()[:4] == ["LC1001", "shape-branch", "shape-specialization", "warning"]
    starts = {line.index(word) for line, word in zip(lines, ["SUMMARY", "`.item()`", "`.item()`"])}
    assert len(starts) == 1  # the summary column lines up
    assert lines[1].endswith("`.item()` on pipeline data freezes a constant")


def test_rules_table_without_rules():
    assert rules_table([]) == "No rules are registered.\n"


def test_markdown_index_links_to_each_rule_heading():
    doc = rules_markdown([make_rule(), make_rule("LC901", "shape-branch", "shape-specialization", "warning")])
    assert doc.startswith("# Rules\n")
    headings = re.findall(r"^## (.+)$", doc, flags=re.M)
    assert headings == ["LC101 (item-call)", "LC901 (shape-branch)"]
    links = re.findall(r"\]\(#([^)]+)\)", doc)
    assert links == [anchor(h) for h in headings] == ["lc101-item-call", "lc901-shape-branch"]
    assert re.findall(r"^### (.+)$", doc, flags=re.M) == SECTIONS * 2
    assert "| [LC901](#lc901-shape-branch) | shape-branch | `shape-specialization` | warning |" in doc


def test_markdown_escapes_pipes_in_table_cells():
    rule = make_rule()
    rule = Rule(**{**rule.__dict__, "summary": "a | b"})
    assert "| a \\| b |" in rules_markdown([rule])


def test_docs_rules_md_is_current():
    expected = rules_markdown(ALL_RULES)
    actual = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert actual == expected, "docs/rules.md is stale: python -m leapp_codemod.report.ruledocs > docs/rules.md"


def test_module_entry_point_prints_the_markdown():
    proc = subprocess.run([sys.executable, "-m", "leapp_codemod.report.ruledocs"], capture_output=True,
                          text=True, check=True, cwd=ROOT)
    assert proc.stdout == rules_markdown(ALL_RULES)


def test_registered_rules_are_well_formed():
    codes = [rule.code for rule in ALL_RULES]
    assert len(codes) == len(set(codes))
    assert all(re.fullmatch(r"[A-Z]+[0-9]+", code) for code in codes)
    assert {rule.category for rule in ALL_RULES} <= {c.value for c in Category}
    assert {rule.severity for rule in ALL_RULES} <= {s.value for s in Severity}
    assert all(get_rule(code.lower()) is rule for code, rule in zip(codes, ALL_RULES))


def test_every_registered_rule_explains_fully():
    for rule in ALL_RULES:
        text = explain(rule)
        assert text.startswith(f"{rule.code} ({rule.name}) [{rule.category}, {rule.severity}]\n")
        for heading, body in sections(rule):
            assert f"## {heading}\n\n{body}" in text
            assert body.strip(), f"{rule.code}: empty section {heading!r}"
        assert rule.summary.strip(), rule.code
        assert rule.example.strip() and rule.fixed_example.strip(), rule.code
        assert rule.example.strip() != rule.fixed_example.strip(), rule.code
        assert rule.code in rules_table(ALL_RULES)


def test_cli_explains_every_code_that_rules_lists():
    from click.testing import CliRunner

    from leapp_codemod.cli import main

    runner = CliRunner()
    listed = runner.invoke(main, ["rules"])
    assert listed.exit_code == 0, listed.output
    assert listed.output == rules_table(ALL_RULES)
    codes = [line.split()[0] for line in listed.output.splitlines()[1:]]
    assert codes == [rule.code for rule in ALL_RULES]
    for code in codes:
        shown = runner.invoke(main, ["explain", code.lower()])
        assert shown.exit_code == 0, shown.output
        assert shown.output == explain(get_rule(code))
    unknown = runner.invoke(main, ["explain", "NOPE999"])
    assert unknown.exit_code == 2


def test_readme_names_every_rule_and_their_number():
    """The README's rule table names every registered code, and its count line says how many there are."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert ALL_RULES and not [rule.code for rule in ALL_RULES if rule.code not in readme]
    counted = re.search(r"\*\*Rules\*\*: (\d+) rules in the (\d+) categories", readme)
    assert counted is not None
    assert (int(counted.group(1)), int(counted.group(2))) == (len(ALL_RULES), len({r.category for r in ALL_RULES}))
