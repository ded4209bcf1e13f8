import json
import subprocess
import sys

import pytest

from leapp_codemod.model import Finding, ScanResult
from leapp_codemod.report import FORMATS, render


def result() -> ScanResult:
    return ScanResult(findings=[Finding("a.py", 2, 0, 2, 5, "LC101", "scalar-extraction", "error",
                                        "`.item()` on pipeline data", "keep it a tensor")], files_analyzed=1)


def test_formats():
    assert FORMATS == ("text", "concise", "json", "sarif", "github")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_renders_a_newline_terminated_string(fmt):
    out = render(result(), fmt)
    assert isinstance(out, str) and out.endswith("\n")
    assert "a.py" in out


def test_machine_formats_parse():
    assert json.loads(render(result(), "json"))["findings"][0]["code"] == "LC101"
    assert json.loads(render(result(), "sarif"))["runs"][0]["results"][0]["ruleId"] == "LC101"


def test_unknown_format_is_rejected():
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        render(result(), "xml")


def test_rendering_does_not_change_the_result():
    original = result()
    original.findings.insert(0, Finding("z.py", 1, 0, 1, 1, "LC101", "scalar-extraction", "error", "m", "f"))
    before = list(original.findings)
    for fmt in FORMATS:
        render(original, fmt)
    assert original.findings == before


def test_report_imports_stay_light():
    code = (
        "import sys, leapp_codemod.report as r, leapp_codemod.report.sarif, leapp_codemod.report.github, "
        "leapp_codemod.report.text, leapp_codemod.report.json_format, leapp_codemod.report.ruledocs, "
        "leapp_codemod.io_util\n"
        "heavy = sorted(m for m in ('torch', 'leapp', 'numpy', 'onnx', 'onnxruntime', 'jinja2') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == ""
