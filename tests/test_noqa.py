"""`# noqa` comments: read as suppressions, written by --add-noqa (ruff's behaviour)."""
from pathlib import Path

from leapp_codemod.model import Finding
from leapp_codemod.noqa import add_noqa, with_codes
from leapp_codemod.scan.suppressions import is_suppressed, parse_suppressions


def _finding(path: Path, line: int, code: str = "LCM101") -> Finding:
    return Finding(str(path), line, 1, line, 2, code, "scalar-extraction", "error", "m", "f")


def test_noqa_codes_bare_noqa_and_other_linters_codes():
    text = ("a = x.item()  # noqa: E501, LCM101\nb = 1  # noqa\nc = 2  # noqa: E501\n"
            "d = 3  # why # noqa:LCM2\ne = '# noqa: LCM101'\n")
    table = parse_suppressions(text)
    assert [is_suppressed(table, n, n, "LCM101") for n in range(1, 6)] == [True, True, False, False, False]
    assert is_suppressed(table, 4, 4, "LCM201")


def test_with_codes_appends_merges_and_leaves_blanket_comments():
    assert with_codes("y = x.item()", None, {"LCM101"}) == "y = x.item()  # noqa: LCM101"
    line = "y = x.item()  # noqa: E501"
    assert with_codes(line, (14, "# noqa: E501"), {"LCM101"}) == "y = x.item()  # noqa: E501, LCM101"
    assert with_codes("y = 1  # noqa", (7, "# noqa"), {"LCM101"}) is None
    assert with_codes("y = 1  # leapp: ignore", (7, "# leapp: ignore"), {"LCM101"}) is None
    assert with_codes("y = 1  # noqa: LCM101", (7, "# noqa: LCM101"), {"LCM101"}) is None


def test_add_noqa_keeps_line_endings_skips_strings_and_outside_files(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    source = project / "step.py"
    source.write_bytes(b'def f(x):\r\n    s = """a\r\n    b""" + str(x.item())\r\n    return x.item()\r\n')
    outside = tmp_path / "lib.py"
    outside.write_text("def g(x):\n    return x.item()\n")
    report = add_noqa([_finding(source, 2), _finding(source, 4), _finding(outside, 2)], project)
    assert source.read_bytes() == (b'def f(x):\r\n    s = """a\r\n    b""" + str(x.item())\r\n'
                                   b'    return x.item()  # noqa: LCM101\r\n')
    assert outside.read_text() == "def g(x):\n    return x.item()\n"
    assert report.added == 1 and len(report.skipped) == 2
    assert any("cannot take a comment" in line for line in report.skipped)
    assert any("outside the project" in line for line in report.skipped)


def test_add_noqa_never_writes_a_generated_module(tmp_path):
    module = tmp_path / "leapp_integration.py"
    text = "# leapp-codemod-generated sha256=" + "0" * 64 + "\ndef f(x):\n    return x.item()\n"
    module.write_text(text)
    report = add_noqa([_finding(module, 3)], tmp_path)
    assert module.read_text() == text and report.added == 0 and report.skipped
