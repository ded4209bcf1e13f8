import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from leapp_codemod.model import FileError, Finding, ScanResult
from leapp_codemod.report import render
from leapp_codemod.report.github import escape_data, escape_property, finding_command

# `::name key=value,key=value::message`: no raw CR/LF anywhere, no raw `:`/`,` inside values.
COMMAND = re.compile(r"^::(?P<name>error|warning|notice)(?: (?P<props>[^:\r\n]*))?::(?P<msg>[^\r\n]*)$")


def unescape(value: str) -> str:
    for code, char in (("%2C", ","), ("%3A", ":"), ("%0A", "\n"), ("%0D", "\r"), ("%25", "%")):
        value = value.replace(code, char)
    return value


def parse(line: str) -> tuple[str, dict[str, str], str]:
    match = COMMAND.match(line)
    assert match, line
    props = dict(item.split("=", 1) for item in match["props"].split(",")) if match["props"] else {}
    return match["name"], {k: unescape(v) for k, v in props.items()}, unescape(match["msg"])


def finding(**kw) -> Finding:
    base = dict(path="pkg/policy.py", line=3, column=4, end_line=3, end_column=12, code="LC101",
                category="scalar-extraction", severity="error", message="`.item()` on pipeline data",
                fix="keep it a tensor")
    return Finding(**{**base, **kw})


def test_error_annotation_exact():
    assert finding_command(finding()) == (
        "::error file=pkg/policy.py,line=3,col=4,endLine=3,endColumn=12,title=LC101"
        "::[scalar-extraction] `.item()` on pipeline data%0AFix: keep it a tensor"
    )


def test_warning_severity_gives_warning_command():
    name, props, _ = parse(finding_command(finding(severity="warning")))
    assert name == "warning"
    assert props["title"] == "LC101"


def test_message_escapes_percent_cr_lf():
    line = finding_command(finding(message="100% wrong\r\nnext", fix=""))
    assert line.endswith("::[scalar-extraction] 100%25 wrong%0D%0Anext")


def test_property_values_escape_colon_and_comma():
    line = finding_command(finding(path="C:/x,y%/a b.py"))
    assert "file=C%3A/x%2Cy%25/a b.py," in line
    assert parse(line)[1]["file"] == "C:/x,y%/a b.py"


def test_every_line_is_a_well_formed_command_that_round_trips():
    result = ScanResult(
        findings=[finding(path="b,1.py", line=7, column=1, end_line=9, end_column=4, message="a:b,c\nd"),
                  finding(path="a.py", severity="warning", fix="")],
        errors=[FileError("bad:1.py", "invalid syntax\nat line 2")], files_analyzed=3)
    lines = render(result, "github").splitlines()
    assert len(lines) == 3
    parsed = [parse(line) for line in lines]
    assert parsed[0] == ("warning", {"file": "a.py", "line": "3", "col": "4", "endLine": "3",
                                     "endColumn": "12", "title": "LC101"},
                         "[scalar-extraction] `.item()` on pipeline data")
    assert parsed[1][1] == {"file": "b,1.py", "line": "7", "col": "1", "endLine": "9", "endColumn": "4",
                            "title": "LC101"}
    assert parsed[1][2] == "[scalar-extraction] a:b,c\nd\nFix: keep it a tensor"
    assert parsed[2] == ("error", {"file": "bad:1.py", "title": "leapp-codemod"},
                         "could not analyze: invalid syntax\nat line 2")


def test_clean_result_renders_nothing():
    assert render(ScanResult(files_analyzed=5), "github") == ""


@given(st.text())
def test_escape_property_round_trips_and_removes_separators(value):
    escaped = escape_property(value)
    assert not set(escaped) & {":", ",", "\r", "\n"}
    assert unescape(escaped) == value


@given(st.text())
def test_escape_data_round_trips_and_removes_newlines(value):
    escaped = escape_data(value)
    assert "\r" not in escaped and "\n" not in escaped
    assert unescape(escaped) == value


@given(path=st.text(min_size=1), message=st.text(), line=st.integers(1, 10_000), col=st.integers(1, 500))
def test_any_finding_gives_one_parseable_command(path, message, line, col):
    out = render(ScanResult(findings=[finding(path=path, message=message, line=line, column=col,
                                              end_line=line, end_column=col + 1)]), "github")
    assert out.count("\n") == 1
    _, props, msg = parse(out.rstrip("\n"))
    assert props["file"] == path
    assert (props["line"], props["col"]) == (str(line), str(col))
    assert msg.startswith("[scalar-extraction] " + message)


def test_scan_of_a_fixture_in_github_format_is_all_workflow_commands():
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-m", "leapp_codemod", "scan", "fixtures/scan_arm_policy", "--no-cache",
                           "--format", "github"], cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines
    for line in lines:
        name, props, message = parse(line)
        assert name in ("error", "warning")
        assert props["file"].startswith("fixtures/scan_arm_policy/")
        assert (root / props["file"]).is_file()
        assert int(props["line"]) >= 1 and int(props["col"]) >= 1
        assert re.fullmatch(r"[A-Z]+[0-9]+", props["title"])
        assert message.startswith("[")
