"""Ruff-like text output and configuration: header, source context, help, concise, statistics, quiet,
colour, --fail-on, per-file-ignores, exclude flags, extend-select, stdin, rule names, rules JSON."""
from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod import __version__
from leapp_codemod.cli import main
from leapp_codemod.model import Entrypoint, Finding, ScanResult, Severity
from leapp_codemod.report.style import Style, color_wanted
from leapp_codemod.report.text import SourceLines, TextOptions, caret_span, render_text
from leapp_codemod.rules import ALL_RULES

BIN = Path(sys.executable).parent / "leapp-codemod"
ANSI = re.compile(r"\x1b\[[0-9;]*m")

PIPE = '''\
import torch


def step(obs, cfg):
    print(obs)
    scale = obs.norm().item()
    return obs / scale
'''
# line 5: print (LCM901, warning); line 6: .item() (LCM101, error)
WARN_ONLY = "def step(obs):\n    print(obs)\n    return obs\n"

SNAPSHOT = """\
entry: pipe:step (given with --entry)

pipe.py:5:5: LCM901 [io-in-pipeline] `print(...)` in the pipeline
  |
5 |     print(obs)
  |     ^^^^^^^^^^ LCM901
  |
  = help: move the I/O out of the step

pipe.py:6:13: LCM101 [scalar-extraction] `obs.norm().item()` freezes a constant
  |
6 |     scale = obs.norm().item()
  |             ^^^^^^^^^^^^^^^^^ LCM101
  |
  = help: keep the value as a tensor

Found 2 hazards (1 error, 1 warning) in 1 file; 1 file analyzed.
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def write(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return root


def cli(root: Path, *args: str, input: str | None = None):
    old = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(main, list(args), catch_exceptions=False, input=input)
    finally:
        os.chdir(old)
    assert "Traceback" not in result.stdout + result.stderr
    return result


def findings_of(result) -> list[tuple[str, str, int]]:
    return [(f["path"], f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]]


def snapshot_result(path: str = "pipe.py") -> ScanResult:
    return ScanResult(findings=[
        Finding(path, 6, 13, 6, 30, "LCM101", "scalar-extraction", "error",
                "`obs.norm().item()` freezes a constant", "keep the value as a tensor", "pipe:step"),
        Finding(path, 5, 5, 5, 15, "LCM901", "io-in-pipeline", "warning", "`print(...)` in the pipeline",
                "move the I/O out of the step", "pipe:step"),
    ], entry=Entrypoint("pipe", "step", path, 4, 0, ("given with --entry",)), files_analyzed=1)


# --------------------------------------------------------------------------- the full text form
def test_full_text_snapshot():
    text = render_text(snapshot_result(), TextOptions(), SourceLines({"pipe.py": PIPE}))
    assert text == SNAPSHOT


def test_coloured_text_is_the_snapshot_plus_ansi_codes():
    text = render_text(snapshot_result(), TextOptions(style=Style(True)), SourceLines({"pipe.py": PIPE}))
    assert "\x1b[1;31mLCM101\x1b[0m" in text and "\x1b[1;33mLCM901\x1b[0m" in text
    assert ANSI.sub("", text) == SNAPSHOT


def test_cli_full_text_matches_the_snapshot_when_piped(tmp_path):
    write(tmp_path, {"pipe.py": PIPE})
    result = cli(tmp_path, "scan", "pipe.py", "--entry", "pipe:step")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    # the rule messages are the real rules'; the layout is the snapshot's
    assert lines[0] == "entry: pipe:step (given with --entry)"
    assert "\x1b[" not in result.stdout
    assert "5 |     print(obs)" in lines and "6 |     scale = obs.norm().item()" in lines
    assert "  |     ^^^^^^^^^^ LCM901" in lines and "  |             ^^^^^^^^^^^^^^^^^ LCM101" in lines
    assert sum(line.startswith("  = help: ") for line in lines) == 2
    assert lines[-1] == "Found 2 hazards (1 error, 1 warning) in 1 file; 1 file analyzed."


def run_in_terminal(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run `argv` with its standard output on a pseudo-terminal; return what it printed."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=follower, stderr=subprocess.DEVNULL)
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 30)
        if not ready:
            break
        try:
            data = os.read(leader, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=30)
    os.close(leader)
    return b"".join(chunks).decode()


def test_colour_on_a_terminal_and_off_with_no_color_or_a_pipe(tmp_path):
    write(tmp_path, {"pipe.py": PIPE})
    argv = [str(BIN), "scan", "pipe.py", "--entry", "pipe:step", "--no-cache"]
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    env["TERM"] = "xterm"
    coloured = run_in_terminal(argv, tmp_path, env)
    assert "\x1b[1;31mLCM101\x1b[0m" in coloured
    plain = run_in_terminal(argv, tmp_path, {**env, "NO_COLOR": "1"})
    assert "LCM101" in plain and "\x1b[" not in plain
    piped = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert "LCM101" in piped.stdout and "\x1b[" not in piped.stdout
    assert ANSI.sub("", coloured).replace("\r\n", "\n") == piped.stdout


@pytest.mark.parametrize("terminal, environ, wanted", [
    (True, {}, True), (False, {}, False), (True, {"NO_COLOR": "1"}, False), (False, {"FORCE_COLOR": "1"}, True),
    (True, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False), (True, {"TERM": "dumb"}, False),
])
def test_color_wanted(terminal, environ, wanted):
    assert color_wanted(terminal, environ) is wanted


@pytest.mark.parametrize("line, column, end, shown, start, width", [
    ("    x = obs.item()", 9, 19, "    x = obs.item()", 8, 10),
    ("\tx = obs.item()", 6, 16, "    x = obs.item()", 8, 10),
    ("    y = '\u4e2d\u6587'; x = obs.item()", 17, 27, "    y = '\u4e2d\u6587'; x = obs.item()", 18, 10),
    ("    if obs.sum() > (", 8, None, "    if obs.sum() > (", 7, 13),   # runs on to the next lines
])
def test_caret_is_under_the_span_in_display_columns(line, column, end, shown, start, width):
    assert caret_span(line, column, end) == (shown, start, width)


def test_a_finding_without_readable_source_keeps_its_help_line():
    text = render_text(snapshot_result("gone.py"), TextOptions(header=False))
    assert "  = help: keep the value as a tensor" in text and " | " not in text


# --------------------------------------------------------------------------- header
def test_header_names_the_discovered_entrypoint_and_why(tmp_path):
    driver = "from pipe import step\n\nfor _ in range(3):\n    step(1, 2)\n"
    write(tmp_path, {"pipe.py": PIPE, "main.py": driver})
    first = cli(tmp_path, "scan", ".").stdout.splitlines()[0]
    best = json.loads(cli(tmp_path, "entrypoints", ".", "--format", "json").stdout)["entrypoints"][0]
    assert best["entry"] == "pipe:step" and best["reasons"]
    # PIPE feeds no model: the choice is a guess, and the header says so (with the --entry spelling)
    assert first == (f"entry: no confident entry (no candidate feeds data to a model); analyzed the best guess "
                     f"pipe:step ({'; '.join(best['reasons'][:2])}); the best 3: --entry pipe:step")


def test_header_says_when_no_entrypoint_was_found_and_what_was_done(tmp_path):
    write(tmp_path, {"util.py": "X = 1\n"})
    assert cli(tmp_path, "scan", ".").stdout.splitlines()[0].startswith(
        "entry: no candidate found (no policy step called in a loop); analyzed every function as pipeline code")
    write(tmp_path, {"pipe.py": PIPE})
    assert cli(tmp_path, "scan", ".", "--all").stdout.splitlines()[0] == (
        "entry: none followed (--all); analyzed every function as pipeline code")


# --------------------------------------------------------------------------- concise / statistics / quiet
def test_concise_is_one_line_per_finding_plus_summary(tmp_path):
    write(tmp_path, {"pipe.py": PIPE})
    lines = cli(tmp_path, "scan", "pipe.py", "--entry", "pipe:step", "--output-format", "concise").stdout.splitlines()
    assert [line.split(": ")[1].split()[0] for line in lines[:-1]] == ["LCM901", "LCM101"]
    assert lines[-1].startswith("Found 2 hazards")


def test_statistics_counts_per_code(tmp_path):
    source = PIPE.replace("    return obs / scale\n", "    other = obs.sum().item()\n    return obs / scale / other\n")
    write(tmp_path, {"pipe.py": source})
    result = cli(tmp_path, "scan", "pipe.py", "--entry", "pipe:step", "--statistics", "--quiet")
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    assert [[cell.strip() for cell in row] for row in rows] == [
        ["2", "LCM101", "item-tolist", "error"], ["1", "LCM901", "io-call", "warning"]]
    assert result.exit_code == 1


def test_quiet_prints_findings_only(tmp_path):
    write(tmp_path, {"pipe.py": PIPE})
    quiet = cli(tmp_path, "scan", "pipe.py", "--entry", "pipe:step", "-q", "--format", "concise")
    assert len(quiet.stdout.splitlines()) == 2 and "Found" not in quiet.stdout
    clean = write(tmp_path / "clean", {"c.py": "def step(obs):\n    return obs\n"})
    assert cli(clean, "scan", "c.py", "--entry", "c:step", "-q").stdout == ""


# --------------------------------------------------------------------------- --fail-on
def test_warnings_alone_exit_0_unless_fail_on_warning(tmp_path):
    write(tmp_path, {"w.py": WARN_ONLY, "pipe.py": PIPE})
    assert cli(tmp_path, "scan", "w.py", "--entry", "w:step").exit_code == 0
    assert cli(tmp_path, "scan", "w.py", "--entry", "w:step", "--fail-on", "warning").exit_code == 1
    assert cli(tmp_path, "scan", "pipe.py", "--entry", "pipe:step", "--fail-on", "error").exit_code == 1
    assert cli(tmp_path, "lint", "w.py").exit_code == 0
    assert cli(tmp_path, "lint", "w.py", "--fail-on", "warning").exit_code == 1
    assert cli(tmp_path, "scan", "w.py", "--entry", "w:step", "--fail-on", "notice").exit_code == 2


# An input a listener thread fills (LCM903, severity info): no hazard, so no exit 1 unless `--fail-on info`.
FILLED_ONLY = ("import threading\nimport numpy as np\nimport torch\n\nclass Buoy:\n    def __init__(self):\n"
               "        self.wave = np.zeros(3)\n        threading.Thread(target=self.listen).start()\n\n"
               "    def listen(self):\n        self.wave = np.frombuffer(self.sock.recv(24))\n\n"
               "    def step(self, obs):\n        return obs + torch.from_numpy(self.wave)\n")


def test_an_input_filled_outside_the_step_is_info_not_a_hazard(tmp_path):
    write(tmp_path, {"b.py": FILLED_ONLY})
    plain = cli(tmp_path, "scan", "b.py", "--entry", "b:Buoy.step")
    assert plain.exit_code == 0 and "LCM903" in plain.stdout
    assert "No hazards found; 1 input filled outside the step (info);" in plain.stdout
    assert cli(tmp_path, "scan", "b.py", "--entry", "b:Buoy.step", "--fail-on", "warning").exit_code == 0
    assert cli(tmp_path, "scan", "b.py", "--entry", "b:Buoy.step", "--fail-on", "info").exit_code == 1
    doc = json.loads(cli(tmp_path, "scan", "b.py", "--entry", "b:Buoy.step", "--format", "json").stdout)
    assert [(f["code"], f["severity"]) for f in doc["findings"]] == [("LCM903", "info")]
    assert doc["findings"][0]["fix"].startswith("`generate` declares `wave` a held input")


# --------------------------------------------------------------------------- configuration
def test_per_file_ignores_from_the_config(tmp_path):
    config = ('[tool.leapp-codemod]\n[tool.leapp-codemod.per-file-ignores]\n'
              '"legacy/*" = ["scalar-extraction"]\n"tools.py" = ["io-call", "LCM1"]\n')
    write(tmp_path, {"pyproject.toml": config, "legacy/a.py": PIPE, "b.py": PIPE, "sub/tools.py": PIPE})
    found = findings_of(cli(tmp_path, "scan", ".", "--all", "--format", "json"))
    assert sorted(found) == [("b.py", "LCM101", 6), ("b.py", "LCM901", 5), ("legacy/a.py", "LCM901", 5)]
    inside = findings_of(cli(tmp_path / "legacy", "scan", "a.py", "--all", "--format", "json"))
    assert inside == [("a.py", "LCM901", 5)]   # patterns are relative to the pyproject.toml, not the cwd


def test_per_file_ignores_with_an_unknown_code_is_a_usage_error(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.leapp-codemod.per-file-ignores]\n"*.py" = ["LCM999"]\n',
                     "pipe.py": PIPE})
    result = cli(tmp_path, "scan", "pipe.py", "--all")
    assert result.exit_code == 2 and "LCM999" in result.stderr


def test_exclude_replaces_and_extend_exclude_adds_to_the_config(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.leapp-codemod]\nexclude = ["gen"]\n',
                     "gen/a.py": PIPE, "tools/b.py": PIPE, "c.py": PIPE})
    def paths(*args):
        return {p for p, _, _ in findings_of(cli(tmp_path, "scan", ".", "--all", "--format", "json", *args))}
    assert paths() == {"tools/b.py", "c.py"}
    assert paths("--extend-exclude", "tools") == {"c.py"}
    assert paths("--exclude", "tools") == {"gen/a.py", "c.py"}


def test_extend_select_adds_to_the_selection(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.leapp-codemod]\nselect = ["LCM1"]\n', "pipe.py": PIPE})
    def codes(*args):
        return {c for _, c, _ in findings_of(cli(tmp_path, "scan", "pipe.py", "--all", "--format", "json", *args))}
    assert codes() == {"LCM101"}
    assert codes("--extend-select", "io-call") == {"LCM101", "LCM901"}


def test_rule_names_are_accepted_wherever_codes_are(tmp_path):
    write(tmp_path, {"pipe.py": PIPE})
    def codes(*args):
        return {c for _, c, _ in findings_of(cli(tmp_path, "scan", "pipe.py", "--all", "--format", "json", *args))}
    assert codes("--select", "item-tolist") == {"LCM101"}
    assert codes("--ignore", "io-call") == {"LCM101"}
    write(tmp_path, {"pipe.py": PIPE.replace("print(obs)", "print(obs)  # leapp: ignore[io-call]")})
    assert codes() == {"LCM101"}
    for rule in ALL_RULES:
        by_name, by_code = cli(tmp_path, "explain", rule.name), cli(tmp_path, "explain", rule.code)
        assert by_name.exit_code == 0 and by_name.stdout == by_code.stdout


def test_explain_names_only_what_commands_accept(tmp_path):
    """The title's code and name both select the rule on the command line."""
    write(tmp_path, {"pipe.py": PIPE})
    for rule in ALL_RULES:
        title = cli(tmp_path, "explain", rule.code).stdout.splitlines()[0]
        code, name = re.match(r"^(\S+) \(([^)]+)\)", title).groups()
        for selector in (code, name):
            assert cli(tmp_path, "scan", "pipe.py", "--all", "--select", selector, "-q").exit_code in (0, 1)


def test_rules_json(tmp_path):
    doc = json.loads(cli(tmp_path, "rules", "--format", "json").stdout)
    assert [r["code"] for r in doc] == [r.code for r in ALL_RULES]
    assert {r["name"] for r in doc} == {r.name for r in ALL_RULES}
    assert all(r["severity"] in {s.value for s in Severity} and r["fix"] and r["summary"] for r in doc)


def test_scan_json_carries_version_and_entry(tmp_path):
    write(tmp_path, {"pipe.py": PIPE})
    doc = json.loads(cli(tmp_path, "scan", "pipe.py", "--entry", "pipe:step", "--format", "json").stdout)
    assert doc["version"] == __version__
    assert doc["entry"] == "pipe:step"
    assert doc["entry_detail"]["path"] == "pipe.py" and doc["entry_detail"]["reasons"] == ["given with --entry"]


# --------------------------------------------------------------------------- standard input
def test_stdin_with_a_filename(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/pol.py": "# the file on disk is not what is scanned\n"})
    result = cli(tmp_path, "scan", "-", "--stdin-filename", "pkg/pol.py", "--entry", "pkg.pol:step", input=PIPE)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "entry: pkg.pol:step (given with --entry)"
    assert "6 |     scale = obs.norm().item()" in lines      # source context from standard input
    doc = json.loads(cli(tmp_path, "lint", "-", "--stdin-filename", "pkg/pol.py", "--format", "json",
                         input=PIPE).stdout)
    assert {(f["path"], f["code"]) for f in doc["findings"]} == {("pkg/pol.py", "LCM101"), ("pkg/pol.py", "LCM901")}
    assert list(tmp_path.rglob("*.py")) and (tmp_path / "pkg/pol.py").read_text().startswith("# the file")


def test_stdin_without_a_filename_and_bad_stdin(tmp_path):
    result = cli(tmp_path, "scan", "-", "--format", "concise", "--all", input=PIPE)
    assert result.exit_code == 1 and result.stdout.startswith("-:5:5: LCM901")
    broken = cli(tmp_path, "scan", "-", "--all", input="def f(:\n")
    assert broken.exit_code == 2 and broken.stderr.startswith("leapp-codemod: -:")


def test_per_file_ignores_apply_to_the_stdin_filename(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.leapp-codemod.per-file-ignores]\n"legacy/*" = ["LCM9"]\n'})
    doc = json.loads(cli(tmp_path, "scan", "-", "--stdin-filename", "legacy/x.py", "--all", "--format", "json",
                         input=PIPE).stdout)
    assert [f["code"] for f in doc["findings"]] == ["LCM101"]


def test_stdin_ignores_the_configured_entry_of_another_module(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.leapp-codemod]\nentry = "app.policy:Policy.act"\n'})
    result = cli(tmp_path, "scan", "-", "--stdin-filename", "tools/x.py", "--format", "concise", input=PIPE)
    assert result.exit_code == 1
    assert [line.split(": ")[1].split()[0] for line in result.stdout.splitlines()[:-1]] == ["LCM901", "LCM101"]


# --------------------------------------------------------------------------- one error prefix
@pytest.mark.parametrize("args", [
    ["scan", "pipe.py", "--entry", "nosuch:step"],
    ["lint", "pipe.py", "--select", "LCM999"],
    ["explain", "no-such-rule"],
    ["generate", "missing_app", "--entry", "a:b", "--driver", "pipe.py"],
    ["generate", "pipe.py", "--entry", "pipe:step", "--driver", "missing.py"],
    ["run", "pipe.py"],
])
def test_every_command_reports_errors_with_one_prefix(tmp_path, args):
    write(tmp_path, {"pipe.py": PIPE})
    result = cli(tmp_path, *args)
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("leapp-codemod: error: "), result.stderr


def test_require_format_takes_the_export_with_names(tmp_path):
    from leapp_codemod.knowledge.leapp import EXPORTERS
    from leapp_codemod.runner.export import ladder
    for name in EXPORTERS:
        assert name in ladder("onnx", name)
    assert ladder("onnx", "jit-script") == ["jit-script"]
    assert ladder("onnx", "onnx") == ["onnx", "onnx-torchscript"]
    result = cli(tmp_path, "run", "x.py", "--require-format", "jit")
    assert result.exit_code == 2 and "jit-script" in result.stderr


def test_rules_with_a_code_explains_it_and_entrypoints_takes_no_cache(tmp_path):
    write(tmp_path, {"pipe.py": PIPE})
    assert cli(tmp_path, "rules", "LCM903").stdout == cli(tmp_path, "explain", "outside-filled-input").stdout
    unknown = cli(tmp_path, "rules", "LCM9x")
    assert unknown.exit_code == 2 and "did you mean 'LCM90" in unknown.stderr
    assert cli(tmp_path, "entrypoints", "pipe.py", "--no-cache").exit_code == 0
