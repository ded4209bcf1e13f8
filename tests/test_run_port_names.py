"""Port names an exported graph cannot also give one of its own values. torch.export names a graph's
values after the operators that compute them (`sigmoid`, `mean_1`) and the ONNX exporter keeps those
names; an output port of the same name that is not that value itself (a slice of it) is a second
definition, and onnxruntime refuses the model ("Duplicate definition of name"). Every chosen port name
goes through boundary.fresh_port, which avoids such names."""
from __future__ import annotations

import ast

import pytest

from tests.test_run import generate, project, run_json, tree_hash


def test_operator_names_and_their_numbered_uses_are_reserved():
    from leapp_codemod.boundary import graph_reserved

    for name in ("mean", "sigmoid", "mul_3", "getitem_2", "val_17"):
        assert graph_reserved(name), name
    for name in ("action", "cmd", "magnitude", "mean_out", "hidden_state", "output0"):
        assert not graph_reserved(name), name


def test_fresh_port_avoids_used_and_reserved_names():
    from leapp_codemod.boundary import fresh_port

    assert fresh_port("action", set()) == "action"
    assert fresh_port("action", {"action"}) == "action_out"
    assert fresh_port("mean", set()) == "mean_out"
    assert fresh_port("mean", {"mean_out"}) == "mean_out2"
    assert fresh_port("var", {"obs"}, "_state") == "var_state"


def test_output_leaves_named_after_an_operator_get_a_port_name_of_their_own():
    from leapp_codemod.generate.source_info import output_structure

    fn = ast.parse("def f(x, mean):\n    std = x.std(0)\n    return std[0], std[1:], x\n").body[0]
    leaves, _, _ = output_structure(fn, {"x", "mean"})
    names = [leaf.name for leaf in leaves]
    assert names == ["std_out", "std_out2", "x_out"]


def test_state_named_after_an_operator_is_renamed_by_the_same_function():
    from leapp_codemod.runner.state_observe import state_name

    assert state_name(("self", ("attr", "mean")), {"obs"}) == "mean_state"
    assert state_name(("self", ("attr", "filtered")), {"obs"}) == "filtered"


@pytest.mark.e2e
def test_outputs_sliced_from_an_operator_named_value_export_with_onnx(tmp_path):
    work = project(tmp_path, "run_op_named_outputs")
    path = generate(work, ".", "contacts.estimator:contact_state")
    assert '"sigmoid"' not in path.read_text()
    before = tree_hash(work / "contacts")
    proc, report = run_json(work, "integration.py")
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert report["backend"] == "onnx"
    assert [a.get("failed_stage") for a in report["attempts"]] == [None], report["attempts"]
    assert tree_hash(work / "contacts") == before


_INVALID = ("LEAPP validation on the traced calls failed: planner: Fail: [ONNXRuntimeError] : 1 : FAIL : Load model "
            "from /tmp/x/planner.onnx failed:This is an invalid model. Error: Duplicate definition of name (mean).")


def test_an_invalid_model_is_not_computation_lost_in_the_trace(tmp_path):
    from leapp_codemod.runner.export import Attempt, lost_computation

    signal = {"signal": "scalar-extraction", "location": "planner/cem.py:41", "message": "detected item"}
    att = Attempt("onnx", tmp_path, stage="validation", reason=_INVALID, signals=[signal])
    assert lost_computation(att) == ""
    att.reason = "LEAPP validation on the traced calls failed: planner: sample 0: Mismatch detected"
    assert "planner/cem.py:41" in lost_computation(att)     # a compared mismatch with the signal: lost


def test_the_verdict_quotes_the_invalid_model_as_the_cause():
    from types import SimpleNamespace

    from leapp_codemod.runner import verdict

    attempt = {"backend": "onnx", "failed_stage": "validation", "reason": _INVALID, "lost_computation": "",
               "leapp_causes": ["No torch equivalent for numpy function ndarray.item (planner/cem.py:41)"],
               "signals": [{"signal": "scalar-extraction", "location": "planner/cem.py:41", "message": "item"}]}
    info = SimpleNamespace(host_runtime=("planner/cem.py:30 random-in-pipeline: draws",), left_out=(),
                           unresolved=(), stubs=[], findings=(), entry="planner.cem:Planner.plan")
    report: dict = {}
    verdict._failed(report, info, {"attempts": [attempt]}, [], None)
    assert report["status"] == "failed" and report["failed_stage"] == "validation"
    assert report["error"].startswith("onnx failed at validation: the model it wrote is invalid")
    assert "Duplicate definition of name (mean)" in report["error"]
    assert "cause, as LEAPP logged it" not in report["error"] and "computation was lost" not in report["error"]
