"""LEAPP's own record that computation left the trace (here: a TorchScript policy call it decomposes)
is quoted in the verdict as the cause, instead of only the error it led to."""
from __future__ import annotations

import pytest

from leapp_codemod.runner.logcap import Capture
from tests.test_run import generate, project, run_json


def test_capture_keeps_the_records_of_dropped_computation_at_any_level():
    import logging

    cap = Capture()
    logger = logging.getLogger("leapp-test-causes")
    logger.addHandler(cap)
    logger.setLevel(logging.DEBUG)
    try:
        logger.info("Detected TorchScript call to ScriptMethod. Decomposing via TS2EPConverter for transparent tracing.")
        logger.warning("Warning: detected the following inputs are not used in the computation or directly "
                       "returned as output: {'quat'}")
        logger.info("Compiled graph module for n:")
    finally:
        logger.removeHandler(cap)
    assert [c.split(".")[0] for c in cap.causes] == ["Detected TorchScript call to ScriptMethod",
                                                     "Warning: detected the following inputs are not used in the "
                                                     "computation or directly returned as output: {'quat'}"]


@pytest.fixture(scope="module")
def scripted(tmp_path_factory):
    """One `run` of the TorchScript policy: both tests below read its report (one export, not two)."""
    work = project(tmp_path_factory.mktemp("scripted"), "run_scripted")
    generate(work, "armapp", "armapp.reach:ReachController.command")
    return run_json(work, "integration.py", "--require-format", "onnx")


@pytest.mark.e2e
def test_a_torchscript_policy_is_named_as_the_cause(scripted):
    proc, report = scripted
    assert proc.returncode == 1 and report["status"] == "failed"
    assert report["leapp_cause"].startswith("Detected TorchScript call")
    assert "cause, as LEAPP logged it: Detected TorchScript call" in report["error"]


def test_the_torchscript_notice_is_not_quoted_as_the_cause_of_a_later_failure():
    from leapp_codemod.runner.dropped import leapp_cause

    notice = "Detected TorchScript call to ScriptMethod. Decomposing via TS2EPConverter for transparent tracing."
    unused = "Warning: detected the following inputs are not used in the computation: {'history_0'}"
    assert leapp_cause({"leapp_causes": [notice], "failed_stage": "validation"}) == ""
    assert leapp_cause({"leapp_causes": [notice, unused], "failed_stage": "validation"}) == unused
    assert leapp_cause({"leapp_causes": [notice], "failed_stage": "tracing"}) == notice


@pytest.mark.e2e
def test_a_scripted_if_on_a_tensor_is_named_with_the_line_that_calls_the_script(scripted):
    _, report = scripted
    assert report["status"] == "failed" and report["failed_stage"] == "tracing"
    assert "LEAPP could not trace the TorchScript call at armapp/reach.py:27" in report["error"]
    assert "prim::If" in report["error"] and "torch.cond" in report["error"]
