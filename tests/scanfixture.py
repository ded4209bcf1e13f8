"""Scan a copy of one fixture app with the scan's own API (shared by the reach and recall tests)."""
from __future__ import annotations

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


def found(result) -> set[tuple[str, int, str]]:
    """(file name, line, code) of every finding."""
    return {(Path(f.path).name, f.line, f.code) for f in result.findings}
