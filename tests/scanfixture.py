"""Scan a copy of one fixture app with the scan's own API (shared by the reach and recall tests)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from leapp_codemod.scan import scan_project

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def scan_copy(group: str, tmp_path, app: str, entry: str, monkeypatch):
    """Copy fixtures/<group>/<app> under tmp_path, and scan it from there with `entry`."""
    root = tmp_path / app
    shutil.copytree(FIXTURES / group / app, root)
    monkeypatch.chdir(root)
    return scan_project(["."], entry=entry)


def scan_variant(group: str, tmp_path, monkeypatch, app: str, entry: str, module: str, old: str, new: str):
    """Scan a copy of fixtures/<group>/<app> whose `module` has `old` (which must be there) replaced by `new`."""
    root = tmp_path / app
    shutil.copytree(FIXTURES / group / app, root)
    path = root / module
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    monkeypatch.chdir(root)
    return scan_project(["."], entry=entry)


def found(result) -> set[tuple[str, int, str]]:
    """(file name, line, code) of every finding."""
    return {(Path(f.path).name, f.line, f.code) for f in result.findings}


def check_marked(group: str, tmp_path, monkeypatch, app: str, entry: str) -> set[tuple[str, int, str]]:
    """Scan fixtures/<group>/<app> and require exactly the findings its lines mark (`# expect: CATEGORY`) and
    none on a `# clean` line: (path, line, category) of every finding."""
    from tests.test_scan_fixtures import markers

    result = scan_copy(group, tmp_path, app, entry, monkeypatch)
    found = {(Path(f.path).as_posix().removeprefix("./"), f.line, f.category) for f in result.findings}
    marked, clean = markers(FIXTURES / group / app)
    assert marked and clean, "the fixture marks no finding or no clean line"
    assert found == marked
    assert not {(path, line) for path, line, _ in found} & clean
    return found


def marked_lines(app: Path, kind: str) -> dict[str, tuple[str, int]]:
    """{name: (file name, line)} of every `# KIND: name` comment in the fixture app's Python files."""
    out = {}
    for path in app.rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            found = re.search(rf"# {kind}: (\w+)", line)
            if found:
                out[found.group(1)] = (path.name, number)
    return out
