"""A lowering error that names an op but no line (`cumsum(): argument 'dim' must be int`): the verdict
names the executed application lines that call that function; a LEAPP record about another op is
never presented as the cause."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.test_run import generate, project, run_json, tree_hash


def test_failing_op_is_read_from_torch_and_python_wordings():
    from leapp_codemod.runner.errors import failing_op

    assert failing_op('TypeError: cumsum() missing 1 required positional arguments: "dim"') == "cumsum"
    assert failing_op("TypeError: cumsum(): argument 'dim' must be int, not NoneType") == "cumsum"
    assert failing_op("RuntimeError: shapes cannot be multiplied") == ""


def test_op_lines_names_only_executed_lines_calling_the_op(tmp_path):
    from leapp_codemod.runner.graph_check import op_lines

    src = tmp_path / "app" / "k.py"
    src.parent.mkdir()
    src.write_text("import numpy as np\n\ndef f(q):\n    a = np.cumsum(q)\n    b = q.cumsum()\n"
                   "    # q.cumsum() in a comment\n    return a + b\n")
    executed = {str(src): [4, 6, 7]}
    assert op_lines("cumsum() missing 1 required positional arguments", executed, str(tmp_path)) == ["app/k.py:4"]
    executed = {str(src): [4, 5]}
    assert op_lines("cumsum(): argument 'dim' must be int", executed, str(tmp_path)) == ["app/k.py:4", "app/k.py:5"]


def test_a_leapp_record_about_another_op_is_not_the_cause():
    from leapp_codemod.runner import verdict

    attempt = {"backend": "onnx", "failed_stage": "lowering", "exporter_specific": False, "reason": "export failed",
               "graph_error": "TypeError: cumsum() missing 1 required positional arguments: \"dim\"; the lines "
                              "the step ran that call cumsum: arm/fk.py:9",
               "leapp_causes": ["No torch equivalent for numpy function norm (arm/fk.py:18)"]}
    info = SimpleNamespace(host_runtime=(), left_out=(), unresolved=(), stubs=[])
    report: dict = {}
    verdict._failed(report, info, {"attempts": [attempt]}, [], None)
    assert "arm/fk.py:9" in report["error"] and "cause, as LEAPP logged it" not in report["error"]
    assert "LEAPP also logged (about another op than the failing cumsum)" in report["error"]
    attempt["leapp_causes"] = ["No torch equivalent for numpy function cumsum (arm/fk.py:9)"]
    report = {}
    verdict._failed(report, info, {"attempts": [attempt]}, [], None)
    assert "cause, as LEAPP logged it: No torch equivalent for numpy function cumsum" in report["error"]


@pytest.mark.e2e
def test_an_axisless_cumsum_method_is_named_by_its_line(tmp_path):
    work = project(tmp_path, "run_unnamed_op")
    generate(work, "conveyor", "conveyor.policy:SpeedPolicy.belt_speed")
    before = tree_hash(work / "conveyor")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert proc.returncode == 1 and report["status"] == "failed"
    assert report["failed_stage"] == "lowering"
    assert "the lines the step ran that call cumsum: conveyor/spacing.py:6" in report["error"], report["error"]
    assert tree_hash(work / "conveyor") == before
