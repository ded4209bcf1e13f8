"""A verdict that names the real failure: `partial` only when host-side lines that executed explain
a validation failure; otherwise `failed` with the stage and the full first error; a shared tracing
failure is not retried; spurious state is named as such; a stale module is refused; findings are
confirmed only on lines that executed."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from leapp_codemod.runner.export import spurious_state
from leapp_codemod.runner.linecover import LineCover, ran
from leapp_codemod.runner.module_info import ModuleInfo
from leapp_codemod.runner.parent import ChildResult, RunOptions
from leapp_codemod.runner.verdict import build_report, confirm_findings
from tests.test_run import cli, generate, project, run_json, tree_hash

HOST = "app/step.py:9 io-in-pipeline: `np.loadtxt(path)` performs I/O inside the pipeline"


def _info(tmp_path: Path, **kw) -> ModuleInfo:
    (tmp_path / "integration.py").write_text('ENTRY = "app.step:act"\n')
    base = dict(path=tmp_path / "integration.py", entry="app.step:act", app_root=tmp_path, driver=None,
                graph="g", export_with="onnx", stubs=(), findings=(), host_runtime=())
    return ModuleInfo(**(base | kw))


def _child(attempts: list[dict], executed: dict) -> ChildResult:
    return ChildResult(data={"attempts": attempts, "executed": executed, "calls": {}, "graph": "g"})


def _report(tmp_path, info, attempts, executed):
    return build_report(info, RunOptions(file=info.path, out=tmp_path / "out"), _child(attempts, executed), 1.0)


VALIDATION_FAILURE = {"backend": "onnx", "format": "onnx", "outcome": "failed", "failed_stage": "validation",
                      "reason": "parity FAILED on 3 fresh calls", "signals": []}


def test_partial_only_when_the_host_line_executed(tmp_path):
    info = _info(tmp_path, left_out=(HOST,))
    ran_it = _report(tmp_path, info, [VALIDATION_FAILURE], {str(tmp_path / "app" / "step.py"): [8, 9, 10]})
    assert ran_it["status"] == "partial" and ran_it["host_runtime"] == [HOST]
    assert ran_it["failed_stage"] == "validation"
    not_run = _report(tmp_path, info, [VALIDATION_FAILURE], {str(tmp_path / "app" / "step.py"): [8, 10]})
    assert not_run["status"] == "failed" and not_run["failed_stage"] == "validation"
    assert not_run["error"] == "onnx failed at validation: parity FAILED on 3 fresh calls"


def test_a_tracing_failure_is_failed_even_with_host_lines_that_ran(tmp_path):
    info = _info(tmp_path, host_runtime=(HOST,))
    tracing = dict(VALIDATION_FAILURE, failed_stage="tracing", reason="RuntimeError: state 'h' has no value")
    report = _report(tmp_path, info, [tracing], {str(tmp_path / "app" / "step.py"): [9]})
    assert report["status"] == "failed" and report["failed_stage"] == "tracing"
    assert report["error"].endswith("RuntimeError: state 'h' has no value")


def test_a_mismatch_only_on_a_state_output_is_named_spurious_not_lost(tmp_path):
    messages = ["ERROR: ctl/last_cmd_out sample 2: Mismatch detected (rtol=0.001, atol=1e-05). Please check x",
                "WARNING: Sample 0 (initial trace) passed validation, but one or more re-entry samples failed"]
    assert spurious_state(messages, {"torque"}) == ["last_cmd_out"]
    assert spurious_state(messages + ["ERROR: ctl/torque sample 1: Mismatch detected (rtol=0.001)"],
                          {"torque"}) == []
    spurious = dict(VALIDATION_FAILURE, reason="LEAPP's validation mismatched only on state output(s) last_cmd_out",
                    spurious_state=["last_cmd_out"])
    report = _report(tmp_path, _info(tmp_path), [spurious], {})
    assert report["status"] == "failed" and "lost_computation" not in report
    assert report["spurious_state"]["outputs"] == ["last_cmd_out"]
    assert "spurious state" in report["error"] and "computation was lost" not in report["error"]


def test_the_verdict_names_the_first_failure_at_the_furthest_stage(tmp_path):
    lowering = [dict(VALIDATION_FAILURE, backend=b, failed_stage="lowering", reason=f"{b}: cannot lower op X",
                     exporter_specific=True) for b in ("onnx", "onnx-torchscript", "pt2")]
    report = _report(tmp_path, _info(tmp_path), lowering, {})
    assert report["status"] == "failed" and report["failed_stage"] == "lowering"
    assert report["error"] == "onnx failed at lowering: onnx: cannot lower op X"
    validation = dict(VALIDATION_FAILURE, backend="jit-script")
    later = _report(tmp_path, _info(tmp_path), [*lowering, validation], {})
    assert later["failed_stage"] == "validation" and later["error"].startswith("jit-script failed at validation")


def test_a_graph_that_torch_rejects_is_named_as_not_retried(tmp_path):
    shared = dict(VALIDATION_FAILURE, failed_stage="lowering", reason="TorchExportError: ... got list",
                  exporter_specific=False, graph_error="TypeError: clamp() received an invalid combination")
    report = _report(tmp_path, _info(tmp_path), [shared], {})
    assert report["failed_stage"] == "lowering"
    assert report["not_retried"].startswith("the traced graph itself fails when torch runs it, outside any "
                                            "exporter (TypeError: clamp()")


def test_findings_are_confirmed_only_on_executed_lines(tmp_path):
    findings = ("app/step.py:12 scalar-extraction: `float(x)`", "app/step.py:20 scalar-extraction: `int(y)`")
    signal = {"signal": "scalar-extraction", "message": "m", "location": "", "categories": ["scalar-extraction"]}
    executed = {str(tmp_path / "app" / "step.py"): [11, 12, 13]}
    confirmed = confirm_findings(findings, [signal], executed)
    assert [c["finding"] for c in confirmed] == [findings[0]]
    assert ran(executed, "elsewhere/step.py:12") is False and ran({}, "app/step.py:12") is None


def test_the_line_cover_sees_only_application_files(tmp_path):
    source = tmp_path / "mod.py"
    source.write_text("def f(x):\n    if x:\n        return 1\n    return 2\n")
    namespace: dict = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)   # noqa: S102 - a test module
    with LineCover((str(tmp_path),)) as cover:
        namespace["f"](0)
        json.dumps({})                       # a library frame: not recorded
    assert cover.to_json() == {str(source): [1, 2, 4]}


@pytest.mark.e2e
def test_a_shared_tracing_failure_is_failed_once_with_its_full_error(tmp_path):
    work = project(tmp_path, "run_verdict")
    generate(work, "gripapp", "gripapp.grasp:GraspController.command")
    module_text = (work / "integration.py").read_text()
    assert "gripapp/grasp.py:17 io-in-pipeline" in module_text            # a left-out line that never runs
    assert "gripapp/grasp.py:18 scalar-extraction" in module_text         # a finding that never runs
    before = tree_hash(work / "gripapp")
    proc, report = run_json(work)
    assert proc.returncode == 1 and report["status"] == "failed"          # not `partial`
    assert report["failed_stage"] == "tracing"
    assert [a["backend"] for a in report["attempts"]] == ["onnx"]          # not retried on 4 more exporters
    assert "Reentering grasp_controller" in report["error"]
    assert report["error"].endswith("not captured by the annotations")    # the whole message, not its first line
    assert report["host_runtime"] == [] and "proposed_split" not in report
    assert not [f for f in report.get("explained_by", []) if ":18 " in f or ":17 " in f]
    assert not [c for c in report["findings_confirmed"] if ":18 " in c["finding"]]
    assert tree_hash(work / "gripapp") == before


def test_run_refuses_a_module_older_than_the_application(tmp_path):
    work = project(tmp_path, "run_verdict")
    generate(work, "gripapp", "gripapp.grasp:GraspController.command")
    later = time.time() + 5
    os.utime(work / "gripapp" / "grasp.py", (later, later))
    proc = cli(["run", "integration.py", "--out", "out"], work, timeout=60)
    assert proc.returncode == 2
    message = proc.stderr.strip().splitlines()
    assert len(message) == 1 and "gripapp/grasp.py changed after this module was generated" in message[0]
    assert "regenerate" in message[0] and not (work / "out").exists()


def test_the_lost_computation_reason_is_never_cut_mid_word():
    from leapp_codemod.runner.export import Attempt, lost_computation

    message = ("main_pipeline: Sample 0 (initial trace) passed validation, but one or more re-entry samples failed. "
               "This pattern often means a value that changes across iterations was captured as a constant "
               "during the initial trace, for example a Python number or a NumPy scalar read from the application"
               + " and kept by the trace as the number it saw on the first call" * 8)   # longer than any quote
    att = Attempt("onnx", Path("."), stage="validation",
                  signals=[{"signal": "frozen-constant", "location": "main.py:59", "message": message}])
    reason = lost_computation(att)
    assert reason.startswith("LEAPP frozen-constant signal at main.py:59: main_pipeline: Sample 0")
    assert reason.endswith("...")
    shown = reason.split(": ", 1)[1].removesuffix("...")
    assert message.startswith(shown) and message[len(shown)] in " ,;:.", "cut at a word boundary"


def test_a_model_its_runtime_cannot_load_is_failed_even_with_host_lines_that_ran(tmp_path):
    """A validation failure where ONNX Runtime refused the model (operands of different types) compared no
    values: the host-side line that ran cannot explain it, so the verdict is `failed` with that error."""
    info = _info(tmp_path, host_runtime=(HOST,))
    unloadable = dict(VALIDATION_FAILURE, reason="LEAPP validation on the traced calls failed: g: Fail: "
                      "[ONNXRuntimeError] : 1 : FAIL : Load model from /tmp/g.onnx failed:Type Error: Type "
                      "parameter (T) of Optype (MatMul) bound to different types (tensor(double) and tensor(float)")
    report = _report(tmp_path, info, [unloadable], {str(tmp_path / "app" / "step.py"): [9]})
    assert report["status"] == "failed" and report["failed_stage"] == "validation"
    assert "bound to different types" in report["error"]
    compared = _report(tmp_path, info, [VALIDATION_FAILURE], {str(tmp_path / "app" / "step.py"): [9]})
    assert compared["status"] == "partial"


def test_a_computation_lost_away_from_the_host_lines_is_failed_not_partial(tmp_path):
    """The progress line says computation was lost at a `.item()` branch; a host-side draw that also ran
    cannot explain that away, so the verdict agrees with the progress line: failed, naming the lost line."""
    info = _info(tmp_path, host_runtime=(HOST,))
    executed = {str(tmp_path / "app" / "step.py"): [9, 14]}
    lost_elsewhere = dict(VALIDATION_FAILURE, lost_computation="LEAPP scalar-extraction signal at app/step.py:14: "
                                                               "detected item but failed to find a torch function")
    report = _report(tmp_path, info, [lost_elsewhere], executed)
    assert report["status"] == "failed" and report["failed_stage"] == "validation"
    assert report["error"].startswith("computation was lost while tracing: LEAPP scalar-extraction signal at "
                                      "app/step.py:14")
    assert report["host_runtime"] == [HOST] and "proposed_split" not in report
    lost_on_host = dict(lost_elsewhere, lost_computation=lost_elsewhere["lost_computation"].replace(":14:", ":9:"))
    assert _report(tmp_path, info, [lost_on_host], executed)["status"] == "partial"
    assert _report(tmp_path, info, [VALIDATION_FAILURE], executed)["status"] == "partial"
