import ast
import json
from functools import lru_cache
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inprocess

from leapp_codemod.model import Category, Entrypoint, FileError, Finding, ScanResult
from leapp_codemod.report import render
from leapp_codemod.report.sarif import artifact_location, to_log
from leapp_codemod.rules import ALL_RULES
from leapp_codemod.rules.base import Rule

SCHEMA_PATH = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
SECTIONS = ("What it does", "Why is this a problem", "How to fix", "Example")


@lru_cache(maxsize=1)
def validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def assert_valid(log: dict) -> None:
    errors = sorted(validator().iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def make_rule(code, category, severity="error", name="item-call") -> Rule:
    return Rule(
        code=code, name=name, category=category, severity=severity,
        summary=f"{name} | on pipeline data",
        what="Finds `.item()` on pipeline data.",
        why="LEAPP records the value as a constant: the exported model replays the traced value.",
        fix="Keep the value a tensor.",
        example="def step(x):\n    return x.sum().item()\n",
        fixed_example="def step(x):\n    return x.sum()\n",
        node_types=(ast.Call,), check=lambda node, ctx: (),
    )


RULES = (make_rule("LC101", "scalar-extraction"),
         make_rule("LC901", "shape-specialization", "warning", name="shape-branch"))


def finding(code="LC101", path="pkg/policy.py", line=3, column=4, end_line=3, end_column=12,
            severity="error", category="scalar-extraction", message="`.item()` on pipeline data",
            fix="keep it a tensor", function="pkg.policy:Policy.step") -> Finding:
    return Finding(path, line, column, end_line, end_column, code, category, severity, message, fix, function)


def sample_result() -> ScanResult:
    entry = Entrypoint("pkg.policy", "Policy.step", "pkg/policy.py", 10, 5, ("named step",))
    return ScanResult(
        findings=[finding(path="b.py"), finding(code="LC901", severity="warning",
                                                category="shape-specialization", function=""),
                  finding(path="./src/a b.py", line=8, column=1, end_line=9, end_column=3)],
        entrypoints=[entry], entry=entry, errors=[FileError("bad.py", "invalid syntax")],
        files_analyzed=4, leapp_support="installed leapp 0.7.2")


def test_schema_is_the_sarif_2_1_0_schema_and_rejects_a_broken_log():
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    assert schema["properties"]["version"]["enum"] == ["2.1.0"]
    log = to_log(sample_result(), RULES)
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert list(validator().iter_errors(broken))
    del broken["version"]
    assert not validator().is_valid(broken)


def test_sample_log_validates():
    assert_valid(json.loads(render(sample_result(), "sarif", RULES)))


def test_empty_result_validates_with_and_without_rules():
    assert_valid(to_log(ScanResult(), ()))
    assert_valid(to_log(ScanResult(files_analyzed=3), RULES))


def test_driver_lists_every_rule_with_its_docs():
    driver = to_log(ScanResult(), RULES)["runs"][0]["tool"]["driver"]
    assert driver["name"] == "leapp-codemod"
    assert [r["id"] for r in driver["rules"]] == ["LC101", "LC901"]
    warning = driver["rules"][1]
    assert warning["name"] == "shape-branch"
    assert warning["shortDescription"]["text"] == "shape-branch | on pipeline data"
    assert "constant" in warning["fullDescription"]["text"]
    assert warning["defaultConfiguration"] == {"level": "warning"}
    assert warning["properties"]["category"] == "shape-specialization"
    assert warning["properties"]["severity"] == "warning"
    for heading in SECTIONS:
        assert f"## {heading}" in warning["help"]["text"]
        assert f"### {heading}" in warning["help"]["markdown"]
    assert "```python\ndef step(x):\n    return x.sum().item()\n```" in warning["help"]["markdown"]


def test_results_point_at_their_rule_with_their_region():
    run = to_log(sample_result(), RULES)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["LC101", "LC101", "LC901"]  # sorted: ./src, b.py, pkg/
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    first = results[0]
    assert first["level"] == "error"
    assert first["message"]["text"] == "`.item()` on pipeline data Fix: keep it a tensor"
    physical = first["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": "src/a%20b.py", "uriBaseId": "%SRCROOT%"}
    assert physical["region"] == {"startLine": 8, "startColumn": 1, "endLine": 9, "endColumn": 3}
    assert first["locations"][0]["logicalLocations"] == [
        {"fullyQualifiedName": "pkg.policy:Policy.step", "kind": "function"}]
    assert results[2]["level"] == "warning"
    assert "logicalLocations" not in results[2]["locations"][0]


def test_unknown_codes_get_a_placeholder_rule_so_rule_index_stays_valid():
    log = to_log(ScanResult(findings=[finding(code="LC999", category="io-in-pipeline")]), RULES)
    run = log["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert ids == ["LC101", "LC901", "LC999"]
    assert run["results"][0]["ruleIndex"] == 2
    assert_valid(log)


def test_errors_become_notifications_and_run_properties_are_kept():
    run = to_log(sample_result(), RULES)["runs"][0]
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is True
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "invalid syntax" in note["message"]["text"]
    assert run["properties"] == {"filesAnalyzed": 4, "leappSupport": "installed leapp 0.7.2",
                                 "entry": "pkg.policy:Policy.step"}
    nothing = to_log(ScanResult(errors=[FileError("x.py", "unreadable")]), RULES)["runs"][0]
    assert nothing["invocations"][0]["executionSuccessful"] is False


@pytest.mark.parametrize("path, expected", [
    ("pkg/policy.py", {"uri": "pkg/policy.py", "uriBaseId": "%SRCROOT%"}),
    ("./pkg/../policy.py", {"uri": "policy.py", "uriBaseId": "%SRCROOT%"}),
    ("pkg\\win.py", {"uri": "pkg/win.py", "uriBaseId": "%SRCROOT%"}),
    ("dir #1/50%.py", {"uri": "dir%20%231/50%25.py", "uriBaseId": "%SRCROOT%"}),
    ("/abs/p y.py", {"uri": "file:///abs/p%20y.py"}),
    ("C:/proj/a.py", {"uri": "file:///C:/proj/a.py"}),
])
def test_artifact_locations(path, expected):
    assert artifact_location(path) == expected


def test_degenerate_positions_still_validate():
    weird = finding(line=0, column=-1, end_line=0, end_column=-5)
    log = to_log(ScanResult(findings=[weird]), RULES)
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}
    assert_valid(log)


findings_strategy = st.builds(
    finding,
    code=st.sampled_from(["LC101", "LC901", "LC777"]),
    path=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30),
    line=st.integers(1, 5000), column=st.integers(1, 200),
    end_line=st.integers(0, 5000), end_column=st.integers(0, 200),
    severity=st.sampled_from(["error", "warning"]),
    category=st.sampled_from([c.value for c in Category]),
    message=st.text(max_size=60), fix=st.text(max_size=30), function=st.text(max_size=20),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(findings_strategy, max_size=6))
def test_any_findings_validate(findings):
    log = json.loads(render(ScanResult(findings=findings, files_analyzed=len(findings)), "sarif", RULES))
    assert_valid(log)
    run = log["runs"][0]
    assert len(run["results"]) == len(findings)
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_registered_rules_all_appear_in_the_driver_and_validate():
    log = json.loads(render(ScanResult(), "sarif"))  # default: the real registry
    assert_valid(log)
    descriptors = log["runs"][0]["tool"]["driver"]["rules"]
    assert [d["id"] for d in descriptors] == [rule.code for rule in ALL_RULES]
    for rule, descriptor in zip(ALL_RULES, descriptors):
        assert descriptor["properties"]["category"] == rule.category
        assert descriptor["defaultConfiguration"]["level"] == {"info": "note"}.get(rule.severity, rule.severity)
        assert descriptor["shortDescription"]["text"].strip()
        for heading in SECTIONS:
            assert f"### {heading}" in descriptor["help"]["markdown"]


ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(p for p in (ROOT / "fixtures").iterdir() if p.is_dir() and p.name.startswith("scan_"))


def test_there_are_scan_fixtures():
    assert FIXTURES


@pytest.mark.parametrize("fixture", FIXTURES, ids=[p.name for p in FIXTURES])
def test_scan_of_every_fixture_writes_a_valid_sarif_file(fixture, tmp_path):
    out = tmp_path / "leapp.sarif"
    rel = fixture.relative_to(ROOT).as_posix()
    proc = inprocess.cli(["scan", rel, "--no-cache", "--format", "sarif", "--output", str(out)], ROOT)
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stdout == ""
    log = json.loads(out.read_text(encoding="utf-8"))
    assert_valid(log)
    run = log["runs"][0]
    assert (proc.returncode == 1) == any(r["level"] == "error" for r in run["results"])   # warnings alone exit 0
    assert [r["id"] for r in run["tool"]["driver"]["rules"]][:len(ALL_RULES)] == [r.code for r in ALL_RULES]
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location["uriBaseId"] == "%SRCROOT%"
        assert location["uri"].startswith(rel + "/")
        assert (ROOT / location["uri"]).is_file()
