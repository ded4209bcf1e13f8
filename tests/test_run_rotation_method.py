"""A SciPy `Rotation` built inside a helper *method* of another application module
(`MountedImu.tilt`, called as `self.imu.tilt(quat)` from the entry): a method cannot be a
FunctionPatch, so `run` diverts the `Rotation` binding of every application module whose functions
or methods read it. Before, only the entry's own code was diverted: native SciPy ran on the traced
quaternion, LEAPP dropped the input and the run failed although the adapter covers the chain
(real LEAPP, SciPy, torch, onnxruntime)."""
from __future__ import annotations

import pytest
from test_run import cli, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_rotation_in_a_helper_method_of_another_module_is_diverted_and_validates(tmp_path):
    work = project(tmp_path, "run_rotation_method")
    before = tree_hash(work / "tilt")
    gen = cli(["generate", "tilt", "--entry", "tilt.gimbal:GimbalLeveler.command", "--driver", "main.py",
               "-o", "integration.py"], work)
    assert gen.returncode == 0, gen.stderr
    proc, report = run_json(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert not [a for a in report["attempts"] if a.get("dropped_inputs")]
    assert not [s for s in report["hazard_signals"] if "scipy/" in s.get("library", "")]   # no native SciPy traced
    perturbed = report["validation"]["across_run"]["perturbed"]       # varied quaternions reach the output
    assert perturbed["ok"] and perturbed["steps"] >= 8
    assert tree_hash(work / "tilt") == before
