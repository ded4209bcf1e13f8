from leapp_codemod.model import FileError, Finding, ScanResult
from leapp_codemod.report import render
from leapp_codemod.report.text import TextOptions, finding_line, render_text, summary_line

CONCISE = TextOptions(concise=True, header=False)


def finding(path="pkg/policy.py", line=3, column=4, code="LC101", severity="error",
            category="scalar-extraction", message="`.item()` on pipeline data", **kw) -> Finding:
    return Finding(path=path, line=line, column=column, end_line=kw.pop("end_line", line),
                   end_column=kw.pop("end_column", column + 8), code=code, category=category,
                   severity=severity, message=message, fix=kw.pop("fix", "keep it a tensor"), **kw)


def test_finding_line_is_ruff_style():
    assert finding_line(finding()) == "pkg/policy.py:3:4: LC101 [scalar-extraction] `.item()` on pipeline data"


def test_multi_line_message_stays_on_one_line():
    line = finding_line(finding(message="first\n   second\tthird"))
    assert line.endswith("] first second third")
    assert "\n" not in line


def test_findings_are_sorted_by_path_line_column():
    result = ScanResult(findings=[
        finding(path="b.py", line=1, column=1),
        finding(path="a.py", line=10, column=1),
        finding(path="a.py", line=2, column=8),
        finding(path="a.py", line=2, column=2),
    ], files_analyzed=2)
    lines = render_text(result, CONCISE).splitlines()
    assert [line.split(": ")[0] for line in lines[:4]] == ["a.py:2:2", "a.py:2:8", "a.py:10:1", "b.py:1:1"]


def test_summary_counts_hazards_by_severity_and_distinct_files():
    result = ScanResult(findings=[
        finding(path="a.py", line=1), finding(path="a.py", line=2),
        finding(path="b.py", severity="warning", category="shape-specialization", code="LC901"),
    ], files_analyzed=12)
    assert summary_line(result) == "Found 3 hazards (2 errors, 1 warning) in 2 files; 12 files analyzed."


def test_summary_singular_and_omits_zero_counts():
    result = ScanResult(findings=[finding(severity="warning")], files_analyzed=1)
    assert summary_line(result) == "Found 1 hazard (1 warning) in 1 file; 1 file analyzed."


def test_clean_result_says_no_hazards():
    result = ScanResult(files_analyzed=12)
    assert render_text(result, CONCISE) == "No hazards found; 12 files analyzed.\n"


def test_file_errors_are_counted_in_the_summary_only():
    result = ScanResult(findings=[finding()],
                        errors=[FileError("broken.py", "invalid syntax (line 3)"),
                                FileError("broken.py", "second problem"),
                                FileError("other.py", "not UTF-8")], files_analyzed=4)
    lines = render_text(result, CONCISE).splitlines()
    assert len(lines) == 2 and "invalid syntax" not in render_text(result)
    assert lines[-1] == "Found 1 hazard (1 error) in 1 file; 4 files analyzed; 2 files could not be analyzed."


def test_render_dispatches_to_text():
    result = ScanResult(findings=[finding()], files_analyzed=1)
    out = render(result, "text")
    assert out == render_text(result)
    assert render(result, "concise", text_options=TextOptions(header=False)).count("\n") == 2
