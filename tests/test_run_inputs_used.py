"""Every input element used as the application uses it: a battery voltage read as a NumPy number
(`volts = supply[0]`) is baked into the trace; the driver's voltage barely moves, so the calls
across the run and the inputs varied within their observed ranges all agree. The element-by-element
check (a meaningful step around a recorded call) sees the application react and the export not."""
from __future__ import annotations

import pytest

from tests.test_run import generate, project, run_json, tree_hash


@pytest.mark.e2e
def test_an_element_the_export_ignores_fails_the_run_naming_it(tmp_path):
    work = project(tmp_path, "run_supply_scale")
    generate(work, "drivectl", "drivectl.controller:DriveController.step")
    before = tree_hash(work / "drivectl")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert proc.returncode == 1 and report["status"] == "failed", report.get("error")
    attempt = report["attempts"][-1]
    assert attempt["failed_stage"] == "validation"
    used = attempt["validation"]["across_run"]["inputs_used"]
    assert [f["element"] for f in used["findings"]] == ["supply[0]"]
    assert used["findings"][0]["kind"] == "ignored" and used["findings"][0]["app_change"] > 1e-3
    assert "input `supply[0]` is not used by the export (read at drivectl/controller.py:11 (`volts = supply[0]`" \
        in report["error"] and "the original depends on it" in report["error"]
    assert report["dropped_element_reads"]["supply[0]"][0].startswith("drivectl/controller.py:11 ")
    assert used["checked"] == 2 * (4 + 3)      # every element of both inputs, around two calls
    assert attempt["validation"]["across_run"]["perturbed"]["ok"]    # the range-bound variation cannot see it
    assert tree_hash(work / "drivectl") == before


def test_steps_are_the_spread_or_at_least_step():
    import numpy as np

    from leapp_codemod.runner.perturb import STEP
    from leapp_codemod.runner.sensitivity import chosen_elements, element_name, steps_for

    base = np.array([1.0, 0.0, -3.0])
    samples = [base, np.array([1.0, 2.0, -3.0])]
    assert np.allclose(steps_for(samples, base), [STEP, 2.0, STEP])
    assert element_name("quat", (4,), 0) == "quat[0]" and element_name("img", (2, 3), 4) == "img[1, 1]"
    assert chosen_elements(5) == [0, 1, 2, 3, 4] and len(chosen_elements(1000)) == 64


def test_judge_tells_ignored_from_different_and_from_agreeing():
    import numpy as np

    from leapp_codemod.runner.sensitivity import judge

    app0, app1 = {"f": np.array([2.0, 2.0])}, {"f": np.array([2.003, 2.0])}
    same0, same1 = {"f": np.array([2.0, 2.0])}, {"f": np.array([2.0, 2.0])}
    assert judge(app0, app1, same0, same1)[0] == "ignored"        # small against the output, clear as a change
    assert judge(app0, app1, app0, app1) is None
    assert judge(app0, {"f": np.array([2.5, 2.0])}, app0, {"f": np.array([2.2, 2.0])})[0] == "different"
    assert judge(app0, app0, same0, same1) is None                 # neither side reacts
