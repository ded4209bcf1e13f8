"""`scan` and `lint` from the command line: formats, exit codes, selection, suppressions, config, output and
other commands (bad input: test_cli_bad_input.py)."""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod.cli import main
from leapp_codemod.model import Category
from leapp_codemod.rules import ALL_RULES

PIPE = '''\
import torch


def step(obs, cfg):
    print(obs)
    scale = obs.norm().item()
    if obs.sum() > cfg.limit:
        obs = obs * 0.5
    return obs / scale


def other(obs):
    return obs.tolist()
'''
CLEAN = '''\
import torch


def step(obs, cfg):
    gain = float(cfg.gain)
    if cfg.use_filter:
        obs = obs * 0.5
    return torch.tanh(obs) * gain
'''
ALL_PIPE_CODES = {"LCM901", "LCM101", "LCM201"}
TEXT_LINE = re.compile(r"^(?P<path>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<code>LCM\d{3}) "
                       r"\[(?P<category>[a-z-]+)\] (?P<message>\S.*)$")
SUMMARY = re.compile(r"^(Found (?P<n>\d+) hazards? \(.+\) in \d+ files?|No hazards found); "
                     r"(?P<files>\d+) files? analyzed(; \d+ files? could not be analyzed)?\.$")
BIN = Path(sys.executable).parent / "leapp-codemod"


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """Keep the result cache out of the repository and out of the scanned trees."""
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def cli(root: Path, *args: str, monkeypatch=None):
    """Run the CLI in `root`; any exception other than SystemExit fails the test."""
    old = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
    assert "Traceback" not in result.stdout + result.stderr
    return result


def line_of(source: str, fragment: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if fragment in line)


def codes(result) -> set[str]:
    return {f["code"] for f in json.loads(result.stdout)["findings"]}


def stderr_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


@pytest.fixture
def pipe(tmp_path) -> Path:
    return write(tmp_path, {"pipe.py": PIPE})


# --------------------------------------------------------------------------- text
def test_text_format_lines_and_summary(pipe):
    result = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--output-format", "concise")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    parsed = [TEXT_LINE.match(line) for line in lines[:-1]]
    assert all(parsed), lines
    assert {m["code"] for m in parsed} == ALL_PIPE_CODES
    assert {(m["path"], int(m["line"]), m["category"]) for m in parsed} == {
        ("pipe.py", line_of(PIPE, "print(obs)"), "io-in-pipeline"),
        ("pipe.py", line_of(PIPE, ".item()"), "scalar-extraction"),
        ("pipe.py", line_of(PIPE, "if obs.sum()"), "tensor-branch"),
    }
    summary = SUMMARY.match(lines[-1])
    assert summary and int(summary["n"]) == 3 and summary["files"] == "1"
    assert "2 errors, 1 warning" in lines[-1]


def test_text_format_clean_summary_and_exit_zero(tmp_path):
    write(tmp_path, {"pipe.py": CLEAN})
    result = cli(tmp_path, "scan", "pipe.py", "--entry", "pipe:step", "--output-format", "concise")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["No hazards found; 1 file analyzed."]


def expression_column(source: str, line: int, fragment: str) -> int:
    """1-based column where the AST node of `fragment` (a call or an if-test) starts on `line`."""
    for node in ast.walk(ast.parse(source)):
        if getattr(node, "lineno", None) == line and ast.get_source_segment(source, node) == fragment:
            return node.col_offset + 1
    raise AssertionError(f"{fragment!r} not found on line {line}")


def test_json_columns_are_one_based(pipe):
    result = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--format", "json")
    item = next(f for f in json.loads(result.stdout)["findings"] if f["code"] == "LCM101")
    assert item["column"] == expression_column(PIPE, item["line"], "obs.norm().item()")


def test_text_sarif_github_columns_are_one_based(pipe):
    line = line_of(PIPE, ".item()")
    want = expression_column(PIPE, line, "obs.norm().item()")
    text = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--select", "LCM101", "--format", "concise")
    assert TEXT_LINE.match(text.stdout.splitlines()[0])["col"] == str(want)
    sarif = json.loads(cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--select", "LCM101",
                           "--format", "sarif").stdout)
    region = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region["startColumn"] == want
    github = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--select", "LCM101", "--format", "github")
    assert f",col={want}," in github.stdout


def test_columns_count_characters_on_non_ascii_lines(tmp_path):
    source = 'def step(obs):\n    label = "\u00fcber\u00e4"; v = obs.item()\n    return v\n'
    write(tmp_path, {"m.py": source})
    want = source.splitlines()[1].index("obs.item()") + 1
    text = cli(tmp_path, "scan", "m.py", "--entry", "m:step", "--format", "concise")
    assert TEXT_LINE.match(text.stdout.splitlines()[0])["col"] == str(want)
    item = json.loads(cli(tmp_path, "scan", "m.py", "--entry", "m:step", "--format", "json").stdout)["findings"][0]
    assert item["column"] == want and item["end_column"] == want + len("obs.item()")


# --------------------------------------------------------------------------- json / sarif / github
FINDING_KEYS = {"path", "line", "column", "end_line", "end_column", "code", "category", "severity", "message", "fix"}


def test_json_contract(pipe):
    result = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--format", "json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert {"findings", "entrypoints"} <= set(document)
    assert document["entry"] == "pipe:step"
    assert len(document["findings"]) == 3
    categories = {c.value for c in Category}
    for item in document["findings"]:
        assert FINDING_KEYS <= set(item)
        assert item["category"] in categories and item["severity"] in ("error", "warning")
        assert item["path"] == "pipe.py"
        assert isinstance(item["line"], int) and item["end_line"] >= item["line"]
        assert item["message"] and item["fix"]


@pytest.mark.parametrize("given, shown", [
    ("proj", "proj/pipe.py"), ("./proj", "proj/pipe.py"), ("proj/pipe.py", "proj/pipe.py"),
    ("proj/../proj/pipe.py", "proj/pipe.py"),
])
def test_json_paths_stay_relative_as_given(tmp_path, given, shown):
    write(tmp_path, {"proj/pipe.py": PIPE})
    result = cli(tmp_path, "scan", given, "--entry", "pipe:step", "--format", "json")
    assert {f["path"] for f in json.loads(result.stdout)["findings"]} == {shown}


def test_json_paths_stay_absolute_when_given_absolute(pipe):
    result = cli(pipe, "scan", str(pipe / "pipe.py"), "--entry", "pipe:step", "--format", "json")
    assert {f["path"] for f in json.loads(result.stdout)["findings"]} == {(pipe / "pipe.py").as_posix()}


def test_sarif_shape(pipe):
    result = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--format", "sarif")
    assert result.exit_code == 1
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "leapp-codemod"
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == {r.code for r in ALL_RULES}
    assert {r["ruleId"] for r in run["results"]} == ALL_PIPE_CODES
    for r in run["results"]:
        location = r["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "pipe.py"
        assert location["region"]["startLine"] >= 1


def test_github_shape(pipe):
    result = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    for line in lines:
        assert re.match(r"^::(error|warning) file=pipe\.py,line=\d+,col=\d+,.*title=LCM\d{3}::\[[a-z-]+\] ", line)
    assert sum(line.startswith("::warning ") for line in lines) == 1  # the print() is a warning


# --------------------------------------------------------------------------- exit codes
def test_exit_zero_keeps_the_report(pipe):
    result = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--exit-zero")
    assert result.exit_code == 0
    assert "Found 3 hazards" in result.stdout


@pytest.mark.parametrize("entry, words", [
    ("nosuchmodule:step", "nosuchmodule"), ("pipe:nosuchfunction", "nosuchfunction"), ("pipe", "MODULE:QUALNAME"),
    (":step", "MODULE:QUALNAME"),
])
def test_bad_entry_is_a_usage_error(pipe, entry, words):
    result = cli(pipe, "scan", "pipe.py", "--entry", entry)
    assert result.exit_code == 2
    assert len(stderr_lines(result)) == 1 and words in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("option, value", [
    ("--select", "LCM999"), ("--ignore", "no-such-category"), ("--select", "LCM101,bogus"), ("--select", "X"),
])
def test_unknown_selector_is_a_usage_error(pipe, option, value):
    result = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", option, value)
    assert result.exit_code == 2
    assert len(stderr_lines(result)) == 1 and "unknown rule code, name or category" in result.stderr


def test_nothing_analyzable_is_exit_2(tmp_path):
    write(tmp_path, {"docs/readme.txt": "no python here\n"})
    for args in (["scan", "docs"], ["scan", "missing.py"], ["scan", "docs", "missing.py"]):
        result = cli(tmp_path, *args)
        assert result.exit_code == 2, args
        assert result.stderr.strip()


def test_unknown_format_is_a_usage_error(pipe):
    assert cli(pipe, "scan", "pipe.py", "--format", "xml").exit_code == 2


# --------------------------------------------------------------------------- select / ignore
@pytest.mark.parametrize("args, expected", [
    (["--select", "LCM101"], {"LCM101"}),
    (["--select", "lcm101"], {"LCM101"}),
    (["--select", "LCM1"], {"LCM101"}),
    (["--select", "LCM"], ALL_PIPE_CODES),
    (["--select", "ALL"], ALL_PIPE_CODES),
    (["--select", "tensor-branch"], {"LCM201"}),
    (["--select", "LCM101,io-in-pipeline"], {"LCM101", "LCM901"}),
    (["--select", "LCM101", "--select", "LCM2"], {"LCM101", "LCM201"}),
    (["--ignore", "LCM2"], {"LCM101", "LCM901"}),
    (["--ignore", "scalar-extraction,io-in-pipeline"], {"LCM201"}),
    (["--select", "ALL", "--ignore", "LCM901"], {"LCM101", "LCM201"}),
    (["--select", "LCM1", "--ignore", "LCM101"], set()),
])
def test_select_and_ignore(pipe, args, expected):
    result = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--format", "json", *args)
    assert codes(result) == expected
    assert result.exit_code == (1 if expected else 0)


# --------------------------------------------------------------------------- suppressions
SUPPRESSED = '''\
def step(obs):
    a = obs.norm().item()  # leapp: ignore[LCM101]
    b = obs.sum().item()  # leapp: ignore
    c = obs.mean().item()  # leapp: ignore[LCM201]
    d = obs.max().item()  # leapp: ignore[lcm1]
    e = obs.min().item(); s = "# leapp: ignore"
    f = obs.std().item()  # noqa: E501  # leapp: ignore[LCM201, LCM101]
    g = obs.norm(
        p=2).item()  # leapp: ignore[LCM101]
    h = obs.var().item()  #leapp:ignore[LCM102]
    return a + b + c + d + e + f + g + h + len(s)
'''


@pytest.mark.parametrize("mode", [["--entry", "sup:step"], ["--all"]], ids=["entry", "all-functions"])
def test_suppression_comments(tmp_path, mode):
    write(tmp_path, {"sup.py": SUPPRESSED})
    result = cli(tmp_path, "scan", "sup.py", *mode, "--format", "json")
    lines = {f["line"] for f in json.loads(result.stdout)["findings"]}
    assert lines == {line_of(SUPPRESSED, "c = "), line_of(SUPPRESSED, "e = "), line_of(SUPPRESSED, "h = ")}
    assert result.exit_code == 1


def test_suppression_does_not_hide_other_rules_on_the_line(tmp_path):
    source = "def step(obs):\n    print(obs.item())  # leapp: ignore[LCM101]\n    return obs\n"
    write(tmp_path, {"m.py": source})
    result = cli(tmp_path, "scan", "m.py", "--entry", "m:step", "--format", "json")
    assert codes(result) == {"LCM901"}


# --------------------------------------------------------------------------- configuration
CONFIG = '''\
[tool.leapp-codemod]
entry = "pipe:step"
select = ["scalar-extraction", "LCM2"]
ignore = ["LCM201"]
exclude = ["generated"]
'''


@pytest.fixture
def configured(tmp_path) -> Path:
    return write(tmp_path, {"pyproject.toml": CONFIG, "pipe.py": PIPE,
                            "generated/bad.py": "def broken(:\n", "generated/more.py": PIPE})


def test_config_entry_select_ignore_exclude(configured):
    result = cli(configured, "scan", ".", "--format", "json")
    document = json.loads(result.stdout)
    assert document["entry"] == "pipe:step"
    assert {(f["path"], f["code"]) for f in document["findings"]} == {("pipe.py", "LCM101")}
    # excluded files model the program (an excluded driver still shows the entry) but are never reported:
    # generated/more.py is read, the syntax error of generated/bad.py is not shown
    assert document["errors"] == [] and document["files_analyzed"] == 2
    assert result.stderr == ""


def test_config_is_found_from_a_subfolder_path(configured):
    result = cli(configured / "generated", "scan", "..", "--format", "json")
    assert {(f["path"], f["code"]) for f in json.loads(result.stdout)["findings"]} == {("../pipe.py", "LCM101")}


@pytest.mark.parametrize("args, expected", [
    (["--entry", "pipe:other"], {("LCM101", line_of(PIPE, "obs.tolist()"))}),
    (["--select", "io-in-pipeline"], {("LCM901", line_of(PIPE, "print(obs)"))}),
    (["--ignore", "LCM9"], {("LCM101", line_of(PIPE, ".item()")), ("LCM201", line_of(PIPE, "if obs.sum()"))}),
])
def test_cli_overrides_config(configured, args, expected):
    result = cli(configured, "scan", ".", "--format", "json", *args)
    assert {(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]} == expected


@pytest.mark.parametrize("toml", [
    "[tool.leapp-codemod\n",
    "[tool.leapp-codemod]\nentry = 3\n",
    "[tool.leapp-codemod]\nselect = 5\n",
    "[tool.leapp-codemod]\nignore = [1, 2]\n",
    "[tool.leapp-codemod]\nexclude = {a = 1}\n",
    "[tool.leapp-codemod]\nbogus = true\n",
    "[tool]\nleapp-codemod = 3\n",
    "[tool.leapp-codemod]\nselect = [\"LCM999\"]\n",
])
def test_invalid_config_is_a_one_line_usage_error(tmp_path, toml):
    write(tmp_path, {"pyproject.toml": toml, "pipe.py": PIPE})
    for command in ("scan", "lint"):
        target = "." if command == "scan" else "pipe.py"
        result = cli(tmp_path, command, target)
        assert result.exit_code == 2, (command, result.stdout)
        assert len(stderr_lines(result)) == 1, result.stderr
        assert "error" in result.stderr


# --------------------------------------------------------------------------- --output
def test_output_file_is_written_instead_of_stdout(pipe):
    expected = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--format", "json").stdout
    result = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--format", "json", "-o", "report.json")
    assert result.exit_code == 1 and result.stdout == ""
    assert json.loads((pipe / "report.json").read_text()) == json.loads(expected)
    assert sorted(p.name for p in pipe.iterdir()) == ["pipe.py", "report.json"]  # no temporary left over


def test_output_file_replaces_an_existing_report(pipe):
    (pipe / "report.txt").write_text("old report that is much longer than the new one\n" * 100)
    result = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "--select", "LCM101", "--output", "report.txt")
    assert result.exit_code == 1
    text = (pipe / "report.txt").read_text()
    assert "old report" not in text and text.splitlines()[-1].startswith("Found 1 hazard")


def test_output_into_a_missing_folder_is_a_usage_error(pipe):
    result = cli(pipe, "scan", "pipe.py", "--entry", "pipe:step", "-o", "no/such/dir/report.txt")
    assert result.exit_code == 2
    assert len(stderr_lines(result)) == 1 and "report.txt" in result.stderr
    assert not (pipe / "no").exists()


# --------------------------------------------------------------------------- lint
def test_lint_reports_only_the_given_files(tmp_path):
    write(tmp_path, {"a.py": PIPE, "b.py": PIPE, "clean.py": CLEAN})
    result = cli(tmp_path, "lint", "a.py", "--format", "json")
    assert result.exit_code == 1
    assert {f["path"] for f in json.loads(result.stdout)["findings"]} == {"a.py"}
    assert cli(tmp_path, "lint", "clean.py").exit_code == 0
    assert cli(tmp_path, "lint").exit_code == 0
    assert cli(tmp_path, "lint", "a.py", "--exit-zero").exit_code == 0


POLICY = "from app.util import helper\n\n\ndef step(x):\n    return helper(x) * 2\n"
UTIL = "def helper(x):\n    return x.item()\n\n\ndef unused(cfg):\n    return float(cfg.gain)\n"


@pytest.fixture
def entry_project(tmp_path) -> Path:
    return write(tmp_path, {"pyproject.toml": '[tool.leapp-codemod]\nentry = "app.pol:step"\n',
                            "app/__init__.py": "", "app/pol.py": POLICY, "app/util.py": UTIL})


def test_lint_with_config_entry_reports_reachable_code_in_the_given_file(entry_project):
    result = cli(entry_project, "lint", "app/util.py", "--format", "json")
    assert [(f["path"], f["line"]) for f in json.loads(result.stdout)["findings"]] == [("app/util.py", 2)]
    assert result.exit_code == 1
    other = cli(entry_project, "lint", "app/pol.py")
    assert other.exit_code == 0


def test_lint_of_one_file_does_not_hide_findings_of_a_later_run(entry_project):
    assert cli(entry_project, "lint", "app/pol.py").exit_code == 0
    later = cli(entry_project, "scan", ".", "--format", "json")
    assert [(f["path"], f["line"]) for f in json.loads(later.stdout)["findings"]] == [("app/util.py", 2)]


def test_no_cache_flag_gives_the_same_result_after_a_lint(entry_project):
    assert cli(entry_project, "lint", "app/pol.py").exit_code == 0
    later = cli(entry_project, "scan", ".", "--no-cache", "--format", "json")
    assert [(f["path"], f["line"]) for f in json.loads(later.stdout)["findings"]] == [("app/util.py", 2)]


# --------------------------------------------------------------------------- other commands
def test_rules_and_explain():
    listing = CliRunner().invoke(main, ["rules"])
    assert listing.exit_code == 0
    for rule in ALL_RULES:
        assert rule.code in listing.stdout
    explained = CliRunner().invoke(main, ["explain", "lcm101"])
    assert explained.exit_code == 0 and "LCM101" in explained.stdout
    unknown = CliRunner().invoke(main, ["explain", "LCM999"])
    assert unknown.exit_code == 2 and "LCM999" in unknown.stderr


# --------------------------------------------------------------------------- real processes
def run_process(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("launcher", ["script", "module"])
def test_installed_command_and_module_agree_with_cli(pipe, launcher):
    prefix = [str(BIN)] if launcher == "script" else [sys.executable, "-m", "leapp_codemod"]
    args = ["scan", "pipe.py", "--entry", "pipe:step", "--format", "json"]
    proc = run_process(prefix + args, pipe)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout) == json.loads(cli(pipe, *args).stdout)
    assert "Traceback" not in proc.stderr


def test_installed_command_exit_codes_and_stderr(tmp_path):
    write(tmp_path, {"good.py": PIPE, "broken.py": "def f(:\n", "clean.py": CLEAN})
    proc = run_process([str(BIN), "scan", "good.py", "broken.py", "--entry", "good:step"], tmp_path)
    assert proc.returncode == 1
    assert [line for line in proc.stderr.splitlines() if line] == [
        line for line in proc.stderr.splitlines() if "broken.py" in line] and "broken.py" in proc.stderr
    assert run_process([str(BIN), "scan", "clean.py", "--entry", "clean:step"], tmp_path).returncode == 0
    bad = run_process([sys.executable, "-m", "leapp_codemod", "scan", "broken.py"], tmp_path)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr + bad.stdout


def test_lint_with_entry_keeps_an_absolute_path_absolute(entry_project):
    target = (entry_project / "app" / "util.py").as_posix()
    result = cli(entry_project, "lint", target, "--no-cache", "--format", "json")
    assert [f["path"] for f in json.loads(result.stdout)["findings"]] == [target]


# --------------------------------------------------------------------------- defaults, parallel, entrypoints
def test_scan_without_paths_scans_the_working_directory(pipe):
    result = cli(pipe, "scan", "--entry", "pipe:step", "--format", "json")
    assert {f["path"] for f in json.loads(result.stdout)["findings"]} == {"pipe.py"}
    assert result.exit_code == 1


def test_parallel_lint_mode_matches_serial(tmp_path):
    files = {f"many/m{i:03d}.py": f"def f{i}(x):\n    return x.item()\n" for i in range(70)}
    files["many/zz_broken.py"] = "def f(:\n"
    write(tmp_path, files)
    serial = cli(tmp_path, "scan", "many", "--all", "-j", "1", "--no-cache", "--format", "json")
    parallel = cli(tmp_path, "scan", "many", "--all", "-j", "3", "--no-cache", "--format", "json")
    assert serial.exit_code == parallel.exit_code == 1
    assert json.loads(serial.stdout) == json.loads(parallel.stdout)
    document = json.loads(parallel.stdout)
    assert len(document["findings"]) == 70 and document["files_analyzed"] == 70
    assert [e["path"] for e in document["errors"]] == ["many/zz_broken.py"]


def test_entrypoints_without_candidates_or_files(tmp_path):
    write(tmp_path, {"lib/util.py": "def _private(x):\n    return x\n", "empty/notes.txt": "x\n"})
    none = cli(tmp_path, "entrypoints", "lib")
    assert none.exit_code == 0 and "--entry" in none.stdout
    assert json.loads(cli(tmp_path, "entrypoints", "lib", "--format", "json").stdout) == {"entrypoints": []}
    nothing = cli(tmp_path, "entrypoints", "empty")
    assert nothing.exit_code == 2 and "empty" in nothing.stderr
