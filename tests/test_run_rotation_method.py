"""A SciPy `Rotation` built inside a helper *method* of another application module
(`MountedImu.tilt`, called as `self.imu.tilt(quat)` from the entry): a method cannot be a
FunctionPatch, so `run` diverts the `Rotation` binding of every application module whose functions
or methods read it. Before, only the entry's own code was diverted: native SciPy ran on the traced
quaternion, LEAPP dropped the input and the run failed although the adapter covers the chain
(real LEAPP, SciPy, torch, onnxruntime)."""
from __future__ import annotations

import pytest
from test_run import generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_rotation_in_a_helper_method_of_another_module_is_diverted_and_validates(tmp_path):
    work = project(tmp_path, "run_rotation_method")
    before = tree_hash(work / "tilt")
    generate(work, "tilt", "tilt.gimbal:GimbalLeveler.command")
    proc, report = run_json(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert not [a for a in report["attempts"] if a.get("dropped_inputs")]
    assert not [s for s in report["hazard_signals"] if "scipy/" in s.get("library", "")]   # no native SciPy traced
    perturbed = report["validation"]["across_run"]["perturbed"]       # varied quaternions reach the output
    assert perturbed["ok"] and perturbed["steps"] >= 8
    assert tree_hash(work / "tilt") == before


def test_the_bindings_of_every_application_module_are_diverted_and_still_answer_isinstance(tmp_path, monkeypatch):
    """Unit level: a module under the application root whose method reads `R` gets the dispatcher while
    the block runs (the entry is elsewhere); `isinstance(x, R)` in diverted code still works."""
    import importlib
    import sys

    from scipy.spatial.transform import Rotation

    from leapp_codemod.runner.class_patches import diverted

    (tmp_path / "helper_frames_mod.py").write_text(
        "from scipy.spatial.transform import Rotation as R\n\n\nclass Frame:\n"
        "    def is_rotation(self, x):\n        return isinstance(x, R)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    helper = importlib.import_module("helper_frames_mod")
    try:
        with diverted(len, app_root=str(tmp_path)) as names:
            assert names == ["R"] and helper.R is not Rotation
            assert helper.Frame().is_rotation(Rotation.identity()) and not helper.Frame().is_rotation(3)
        assert helper.R is Rotation
    finally:
        sys.modules.pop("helper_frames_mod", None)
