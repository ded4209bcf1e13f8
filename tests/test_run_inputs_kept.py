"""Every input kept: a robot standing level during the traced calls and a replacement that unpacks
the IMU quaternion into Python numbers (value-faithful): the pre-trace check, which traces the
replacement alone under LEAPP with the quaternion as an input, refuses it before anything is exported
(the export would have lost the quaternion)."""
from __future__ import annotations

import re

import pytest

from tests.test_run import generate, project, run_json, tree_hash

DROPPING_TWIN = '''def projected_gravity_traceable(quat):
    """Unpacks the quaternion into Python numbers: the values agree, the trace loses `quat`."""
    import numpy as np

    w, x, y, z = (float(v) for v in quat)
    return np.array([2.0 * (w * y - x * z), -2.0 * (w * x + y * z), -(w * w - x * x - y * y + z * z)],
                    dtype=np.float32)
'''


@pytest.mark.e2e
def test_a_twin_that_drops_the_quaternion_fails_naming_the_input(tmp_path):
    work = project(tmp_path, "run_imu")
    module = generate(work, "imuapp", "imuapp.policy:BalancePolicy.act")
    text = module.read_text()
    assert "def projected_gravity_traceable(quat):" in text
    text = re.sub(r"def projected_gravity_traceable\(quat\):\n(?:    .*\n|\n(?=    ))*", DROPPING_TWIN, text, count=1)
    module.write_text(text)
    before = tree_hash(work / "imuapp")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert proc.returncode == 1 and report["status"] == "failed"
    assert report["failed_stage"] == "twin-check" and not report["attempts"]
    assert [t["ok"] for t in report["twin_check"]] == [False]
    assert re.search(r"FunctionPatch imuapp\.\S+ \(projected_gravity_traceable\) disagrees .*: its result is not "
                     r"traced \(LEAPP would export it as a constant\)", report["error"]), report["error"]
    assert tree_hash(work / "imuapp") == before
