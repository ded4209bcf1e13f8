"""`generate` + `run` on per-sensor windows (deques of floats) that fill up over the first calls: `run`
fails at the state stage with one line naming the window, where it is made and its lengths across the
observed calls (never an IndexError from the trace), and leaves the application untouched."""
from __future__ import annotations

import pytest
from test_run import cli, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_windows_that_fill_up_fail_at_the_state_stage_naming_the_window(tmp_path):
    work = project(tmp_path, "run_sensor_window")
    before = tree_hash(work / "sensorwin")
    generate(work, "sensorwin", "sensorwin.smoother:SensorSmoother.command")
    proc, report = run_json(work)
    assert proc.returncode != 0 and report["status"] == "failed"
    assert report["failed_stage"] == "state"
    error = report["error"]
    assert "\n" not in error and "IndexError" not in error and "KeyError" not in error
    assert error.startswith("state: self.windows['left'] (sensorwin/smoother.py:13, a deque(maxlen=4)) changes "
                            "length between the observed calls (0, 1, 2, 3, 4, 4, 4, 4, 4 items")
    text = cli(["run", "integration.py", "--out", "out"], work)
    first = text.stdout.splitlines()[0]
    assert first.startswith("failed: state: self.windows['left'] (sensorwin/smoother.py:13") and "Traceback" not in text.stderr
    assert tree_hash(work / "sensorwin") == before
