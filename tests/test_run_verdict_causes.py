"""The verdict's top line names the application's construct, not the tool's or the exporter's wording:
a state update or output LEAPP finds untraced is lost computation naming the scan's first explaining line;
a traced graph that fails on operands of two dtypes names the matrix products the step ran."""
from __future__ import annotations

from leapp_codemod.runner.export import Attempt, lost_computation
from leapp_codemod.runner.graph_check import mixed_dtype_lines
from tests.test_run_verdict import VALIDATION_FAILURE, _info, _report

UNTRACED = ("Exception: update_state() for node 'ctl' received non-traced tensors: {'ndarray'} Possible causes: "
            "1. You did not use the traced tensors")
FINDING = "app/ctl.py:14 unmapped-numpy: `np.array([a, b])` builds an array from a list of pipeline values"


def test_an_untraced_state_update_is_lost_computation_naming_the_first_explaining_line(tmp_path):
    att = Attempt("onnx", tmp_path / "a")
    att.stage, att.reason = "tracing", UNTRACED
    lost = lost_computation(att)
    assert lost.startswith("the values passed to update_state() are no longer traced")
    tracing = dict(VALIDATION_FAILURE, failed_stage="tracing", reason=UNTRACED, lost_computation=lost)
    info = _info(tmp_path, findings=(FINDING,), unresolved=(FINDING,))
    report = _report(tmp_path, info, [tracing], {str(tmp_path / "app" / "ctl.py"): [14]})
    assert report["status"] == "failed" and report["error"].startswith("computation was lost while tracing")
    assert report["error"].endswith("first line that can explain it: app/ctl.py:14 unmapped-numpy")


def test_a_dtype_mix_in_the_graph_names_the_matrix_products_that_ran(tmp_path):
    src = tmp_path / "app" / "ctl.py"
    src.parent.mkdir()
    src.write_text("import numpy as np\n\n@staticmethod\ndef f(a, b, J):\n    x = a + b\n"
                   "    y = np.linalg.pinv(J) @ x  # float64 @ float32\n    return np.matmul(J, y), x @ x\n")
    error = "RuntimeError: addmv input tensors must have the same dtype, but got Float, Double, and Float"
    assert mixed_dtype_lines(error, {str(src): [3, 5, 6]}, str(tmp_path)) == ["app/ctl.py:6"]   # ran lines only
    assert mixed_dtype_lines(error, {str(src): [6, 7]}, str(tmp_path)) == ["app/ctl.py:6", "app/ctl.py:7"]
    assert mixed_dtype_lines("TypeError: clamp() received", {str(src): [6]}, str(tmp_path)) == []
    shared = dict(VALIDATION_FAILURE, failed_stage="lowering", reason="ConversionError: long exporter text",
                  exporter_specific=False, graph_error=f"{error}; the matrix products the step ran: app/ctl.py:6")
    report = _report(tmp_path, _info(tmp_path), [shared], {})
    assert report["error"].startswith("onnx failed at lowering: the traced graph itself fails when torch runs it: "
                                      "RuntimeError: addmv")
    assert "app/ctl.py:6" in report["error"] and "(the exporter said: ConversionError" in report["error"]


def test_a_dtype_mix_names_the_layer_calls_that_ran(tmp_path):
    src = tmp_path / "app" / "head.py"
    src.parent.mkdir()
    src.write_text("import torch.nn as nn\n\n\nclass Head(nn.Module):\n    def __init__(self):\n"
                   "        super().__init__()\n        self.fc = nn.Linear(3, 2)\n\n    def forward(self, x):\n"
                   "        return self.fc(x).tanh()\n")
    error = "RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float"
    assert mixed_dtype_lines(error, {str(src): [7, 10]}, str(tmp_path)) == ["app/head.py:10"]
    both = tmp_path / "app" / "mix.py"       # a matrix product that ran is named before any layer call
    both.write_text("import torch.nn as nn\nnet = nn.Linear(3, 2)\n\n\ndef f(a, b):\n    y = a @ b\n    return net(y)\n")
    assert mixed_dtype_lines(error, {str(both): [6, 7]}, str(tmp_path)) == ["app/mix.py:6"]
