"""`generate` + `run` on a deploy script that defines its policy class and, under its main guard, the loop
calling it, in one file (real LEAPP, torch and onnxruntime on CPU). Run as `__main__`, the file would define
the class again and the loop would call that copy, never the intercepted one ("the driver never called")."""
from __future__ import annotations

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_an_entry_defined_in_the_driver_script_is_intercepted_and_validates(tmp_path):
    work = project(tmp_path, "run_single_file")
    before = tree_hash(work / "rover")
    generate(work, "rover", "drive:Steer.act", driver="rover/drive.py")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["validation"]["across_run"]["ok"]
    assert tree_hash(work / "rover") == before
