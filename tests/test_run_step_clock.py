"""`run` on a step whose Python int counter feeds NumPy clock code (real torch; the refusal comes
before LEAPP is imported): neither kind LEAPP can carry the counter in (a shape-(1,) array, a 0-d
tensor) gives the application's outputs, so `run` stops at the state stage naming the lines where
each kind breaks, instead of failing later inside the trace with an error that names no line."""
from __future__ import annotations

import pytest
from test_run import generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_counter_feeding_numpy_clock_code_is_refused_naming_the_lines(tmp_path):
    work = project(tmp_path, "run_step_clock")
    before = tree_hash(work / "finctl")
    generate(work, "finctl", "finctl.swimmer:FinController.command")
    proc, report = run_json(work)
    assert proc.returncode == 1 and report["status"] == "failed"
    assert report["failed_stage"] == "state"
    error = report["error"]
    assert error.startswith("self.ticks is a Python number the outputs depend on")
    # the array kind breaks where the clock values are joined as numbers, the tensor kind where NumPy takes it in
    assert "as a shape-(1,) NumPy array the call raises at finctl/swimmer.py:33" in error
    assert "as a 0-d tensor the call raises at finctl/swimmer.py:31 (`pattern = 0.4 * np.sin(angle + FIN_OFFSETS)`)" in error
    assert not report["attempts"], "nothing is traced once the counter cannot be carried"
    assert tree_hash(work / "finctl") == before
