"""A parallel assignment that takes one element of a pipeline array next to a slice of it
(`position, yaw = pose[:2], pose[2]`): the scan flags the element (scalar-extraction) as it does for
`yaw = pose[2]` alone, and `generate` writes the twin that keeps it a one-element slice, so the export
follows the heading and validates (real LEAPP, torch, onnxruntime). Before, nothing was flagged, the
heading was exported as the constant of the first traced call and `run` failed naming no line."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_run import generate, project, run_json, tree_hash

from leapp_codemod.scan import scan_project

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "run_parallel_items"


def test_an_element_taken_in_a_parallel_assignment_is_flagged(tmp_path, monkeypatch):
    shutil.copytree(FIXTURE, tmp_path / "app")
    monkeypatch.chdir(tmp_path / "app")
    result = scan_project(["rover"], entry="rover.follower:WaypointFollower.act")
    flagged = [f for f in result.findings if Path(f.path).name == "geometry.py" and f.line == 6]
    assert [f.category for f in flagged] == ["scalar-extraction"], [(f.path, f.line, f.category) for f in result.findings]
    assert "`pose[2]`" in flagged[0].message and "into `yaw`" in flagged[0].message


@pytest.mark.e2e
def test_the_twin_keeps_the_element_traced_and_the_export_validates(tmp_path):
    work = project(tmp_path, "run_parallel_items")
    before = tree_hash(work / "rover")
    generate(work, "rover", "rover.follower:WaypointFollower.act")
    assert "position, yaw = pose[:2], twin_item(pose, 2)" in (work / "integration.py").read_text()
    proc, report = run_json(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert report["validation"]["across_run"]["perturbed"]["ok"]
    assert tree_hash(work / "rover") == before
