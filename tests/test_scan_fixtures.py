"""The `scan_*` fixture apps end to end: discovery, reachability, findings on marked lines only.

Each app marks its source lines: `# expect: CATEGORY[, CATEGORY]` must be reported with exactly those
categories, `# clean` must not be reported at all. `expected.toml` names the entry and functions
that must (not) be reachable from it.
"""
from __future__ import annotations

import ast
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod.scan import scan_project
from leapp_codemod.cli import main
from leapp_codemod.model import Category

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
APPS = sorted(p.name for p in FIXTURES.glob("scan_*") if (p / "expected.toml").is_file())
MARKER = re.compile(r"#\s*(?:expect:\s*(?P<cats>[a-z][a-z, -]*[a-z])|(?P<clean>clean))\s*$")
CATEGORIES = {c.value for c in Category}


def python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def markers(root: Path) -> tuple[set[tuple[str, int, str]], set[tuple[str, int]]]:
    """(expected findings as (path, line, category), clean lines as (path, line)), paths relative to root."""
    expected, clean = set(), set()
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = MARKER.search(line)
            if not match:
                continue
            if match.group("clean"):
                clean.add((rel, number))
            else:
                for category in match.group("cats").split(","):
                    expected.add((rel, number, category.strip()))
    return expected, clean


def expected_toml(app: str) -> dict:
    return tomllib.loads((FIXTURES / app / "expected.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """Each app copied once to a scratch folder (the repository copy is never scanned in place)."""
    root = tmp_path_factory.mktemp("apps")
    for app in APPS:
        shutil.copytree(FIXTURES / app, root / app)
    return root


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def run_cli(args, cwd: Path, monkeypatch):
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    return result


def found(document: dict) -> set[tuple[str, int, str]]:
    return {(f["path"], f["line"], f["category"]) for f in document["findings"]}


# --------------------------------------------------------------------------- the fixtures themselves
def test_there_are_fixture_apps():
    assert len(APPS) >= 3


@pytest.mark.parametrize("app", APPS)
def test_fixture_is_complete_python_app(app):
    root = FIXTURES / app
    assert (root / "main.py").is_file() and (root / "app" / "__init__.py").is_file()
    for path in python_files(root):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")  # real, parseable Python
    expected, clean = markers(root)
    assert clean, f"{app} marks no clean line"
    assert {cat for *_, cat in expected} <= CATEGORIES
    assert not {(p, n) for p, n, _ in expected} & clean
    toml = expected_toml(app)
    assert toml["entry"] and toml["reachable"] and toml["unreachable"]
    assert not set(toml["reachable"]) & set(toml["unreachable"])


def test_fixtures_cover_every_category():
    covered = {cat for app in APPS for *_, cat in markers(FIXTURES / app)[0]}
    assert covered == CATEGORIES


def test_markers_parser_reads_both_kinds(tmp_path):
    (tmp_path / "m.py").write_text("a = 1  # expect: tensor-branch, io-in-pipeline\nb = 2  # clean\nc = 3  # cleaned\n")
    expected, clean = markers(tmp_path)
    assert expected == {("m.py", 1, "tensor-branch"), ("m.py", 1, "io-in-pipeline")}
    assert clean == {("m.py", 2)}


# --------------------------------------------------------------------------- scan
@pytest.mark.parametrize("explicit_entry", [False, True], ids=["discovered", "explicit"])
@pytest.mark.parametrize("app", APPS)
def test_scan_reports_exactly_the_marked_findings(app, explicit_entry, copies, monkeypatch):
    root = copies / app
    expected, clean = markers(root)
    args = ["scan", ".", "--format", "json"]
    if explicit_entry:
        args += ["--entry", expected_toml(app)["entry"]]
    result = run_cli(args, root, monkeypatch)
    document = json.loads(result.stdout)
    assert document["entry"] == expected_toml(app)["entry"]
    assert document["errors"] == []
    assert document["files_analyzed"] == len(python_files(root))
    got = found(document)
    flagged_clean = sorted({(p, n) for p, n, _ in got} & clean)
    assert flagged_clean == [], "look-alike lines were flagged"
    assert sorted(expected - got) == [], "hazards were missed"
    assert sorted(got - expected) == [], "unexpected findings"
    assert result.exit_code == (1 if any(f["severity"] == "error" for f in document["findings"]) else 0)


@pytest.mark.parametrize("app", APPS)
def test_scan_from_outside_keeps_the_relative_prefix(app, copies, monkeypatch):
    expected, _ = markers(copies / app)
    result = run_cli(["scan", app, "--format", "json"], copies, monkeypatch)
    got = found(json.loads(result.stdout))
    assert got == {(f"{app}/{p}", n, c) for p, n, c in expected}


@pytest.mark.parametrize("app", APPS)
def test_reachability_from_the_discovered_entry(app, copies, monkeypatch):
    monkeypatch.chdir(copies / app)
    toml = expected_toml(app)
    result = scan_project(["."])
    assert result.entry is not None and result.entry.id == toml["entry"]
    assert result.entrypoints[0].id == toml["entry"]
    reachable = set(result.reachable)
    assert sorted(set(toml["reachable"]) - reachable) == []
    assert sorted(set(toml["unreachable"]) & reachable) == []
    assert {f.function for f in result.findings} <= reachable


@pytest.mark.parametrize("app", APPS)
def test_lint_mode_sees_more_than_the_pipeline(app, copies, monkeypatch):
    """`--all` analyzes every function: it must report at least what the pipeline scan reports."""
    root = copies / app
    expected, _ = markers(root)
    result = run_cli(["scan", ".", "--all", "--format", "json"], root, monkeypatch)
    got = found(json.loads(result.stdout))
    assert expected <= got
    assert json.loads(result.stdout)["entry"] is None


# --------------------------------------------------------------------------- entrypoints
@pytest.mark.parametrize("app", APPS)
def test_entrypoints_ranks_the_pipeline_first(app, copies, monkeypatch):
    entry = expected_toml(app)["entry"]
    text = run_cli(["entrypoints", "."], copies / app, monkeypatch)
    assert text.exit_code == 0
    first = text.stdout.splitlines()[0]
    assert first.startswith(f"1. {entry}  (")
    as_json = run_cli(["entrypoints", ".", "--format", "json"], copies / app, monkeypatch)
    assert as_json.exit_code == 0
    ranked = json.loads(as_json.stdout)["entrypoints"]
    assert ranked[0]["entry"] == entry
    assert ranked[0]["reasons"], "the top entry must say why"
    scores = [e["score"] for e in ranked]
    assert scores == sorted(scores, reverse=True)
    module, qualname = entry.split(":")
    path = ranked[0]["path"]
    source = (copies / app / path).read_text(encoding="utf-8")
    defs = {n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)
            and n.name == qualname.rsplit(".", 1)[-1]}
    assert ranked[0]["line"] in defs
    assert path == module.replace(".", "/") + ".py"
