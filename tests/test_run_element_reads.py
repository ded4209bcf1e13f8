"""One element of a NumPy vector read next to a slice of the same vector (`yaw = pose[5]` with
`pose[:2]`): the scan flags it as it flags two integer positions, the twin keeps it traced and the export
validates; and when the export does drop the element (no twin), the verdict names the line that read it."""
from __future__ import annotations

import json
import re
import textwrap

import pytest
from scanfixture import found, scan_copy

from leapp_codemod.runner.dropped_reads import element_reads
from tests.test_run import assert_validated, cli, generate, project, run_json, tree_hash


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_an_element_next_to_a_slice_of_the_same_vector_is_flagged(tmp_path, monkeypatch):
    hits = found(scan_copy("run_base_yaw", tmp_path, "baseapp", "baseapp.ctl:BaseController.command", monkeypatch))
    assert ("frames.py", 10, "LCM104") in hits
    assert not any(name == "frames.py" and line != 10 for name, line, _ in hits)   # the slice itself is no hazard


def test_element_reads_name_executed_lines_findings_first_and_the_replacement(tmp_path):
    src = tmp_path / "app" / "geo.py"
    src.parent.mkdir()
    src.write_text(textwrap.dedent('''\
        def tilt(q, v):
            w = q[3]
            return v * w

        def roll(q):
            return q[3] * 2

        def other(gains):
            gains[3] = 0
            return gains[2]
        '''))
    executed = {str(src): [1, 2, 3, 5, 6, 8, 9, 10]}
    findings = ("app/geo.py:6 scalar-extraction: `q[3] * 2` ...",)
    reads = element_reads("quat[3]", executed, findings, {"tilt": "tilt_traceable"})
    assert reads == ["app/geo.py:6 (`return q[3] * 2`)",
                     "app/geo.py:2 (`w = q[3]`, in tilt, which the replacement tilt_traceable handles)"]
    assert element_reads("quat[3]", {str(src): [1, 3]}, findings, {}) == []     # the reads did not run
    assert element_reads("quat", executed, findings, {}) == [] and element_reads("m[1, 2]", executed, (), {}) == []


@pytest.mark.e2e
def test_the_yaw_read_next_to_the_position_slice_stays_traced_and_validates(tmp_path):
    work = project(tmp_path, "run_base_yaw")
    module = generate(work, "baseapp", "baseapp.ctl:BaseController.command")
    assert "yaw = twin_item(pose, 5)" in module.read_text()
    before = tree_hash(work / "baseapp")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert_validated(proc, report, work)
    assert report["validation"]["across_run"]["inputs_used"]["ok"]
    assert tree_hash(work / "baseapp") == before


@pytest.mark.e2e
def test_a_dropped_yaw_is_named_with_the_line_that_read_it(tmp_path):
    work = project(tmp_path, "run_base_yaw")
    module = generate(work, "baseapp", "baseapp.ctl:BaseController.command", driver="main_parked.py")
    text = module.read_text()      # the user removed the twin: the yaw is read as a NumPy scalar again
    module.write_text(re.sub(r"PATCHES: tuple\[Patch, \.\.\.\] = \(\n.*?\n\)\n", "PATCHES: tuple[Patch, ...] = ()\n",
                             text, flags=re.S))
    before = tree_hash(work / "baseapp")
    proc = cli(["run", "integration.py", "--out", "out", "--require-format", "onnx"], work)
    report = json.loads((work / "out" / "report.json").read_text())
    assert proc.returncode == 1 and report["status"] == "failed"
    assert report["dropped_element_reads"] == {"pose[5]": ["baseapp/frames.py:10 (`yaw = pose[5]`)"]}
    assert "input `pose[5]` is not used by the export (read at baseapp/frames.py:10 (`yaw = pose[5]`)" in proc.stdout
    assert tree_hash(work / "baseapp") == before
