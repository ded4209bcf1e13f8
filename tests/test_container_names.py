"""A list's or a dict's method (`pop`, `insert`, `remove`, ...) called on a receiver whose class the scan
does not know is not bound by duck typing to a project class that defines a method of that name
(fixtures/scan_container_names)."""
from __future__ import annotations

import pytest
from scanfixture import FIXTURES, scan_copy

APP = FIXTURES / "scan_container_names" / "winch_app"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_no_container_call_runs_a_project_method(tmp_path, monkeypatch):
    lines = (APP / "winch" / "control.py").read_text().splitlines()
    decoys = {number for number, line in enumerate(lines, 1) if line.rstrip().endswith("# decoy")}
    assert len(decoys) == 3
    result = scan_copy("scan_container_names", tmp_path, "winch_app", "winch.control:WinchController.step", monkeypatch)
    assert not {f.line for f in result.findings} & decoys
    assert not [b for b in result.bound_calls if "CableLog" in " ".join(b.targets)]
