"""A lowering failure of the traced graph itself (real LEAPP, torch on CPU): joint limits that a
YAML config gives as plain lists reach `np.clip`, which LEAPP records as `torch.clamp(x, list, list)`.
Torch itself rejects that graph, so every exporter would: `run` classifies the failure once, tries no
other exporter, and the verdict names the first failure with the graph's own error."""
from __future__ import annotations

import pytest
from test_run import generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_graph_that_torch_rejects_is_not_retried_on_other_exporters(tmp_path):
    work = project(tmp_path, "run_graph_lowering")
    before = tree_hash(work / "reachctl")
    generate(work, "reachctl", "reachctl.reach:Reacher.target")
    proc, report = run_json(work)
    assert proc.returncode == 1 and report["status"] == "failed" and report["failed_stage"] == "lowering"
    assert [a["backend"] for a in report["attempts"]] == ["onnx"]
    first = report["attempts"][0]
    assert first["exporter_specific"] is False
    assert first["graph_error"].startswith("TypeError: clamp() received an invalid combination of arguments")
    assert report["error"].startswith("onnx failed at lowering: ")
    assert "the traced graph itself fails when torch runs it" in report["not_retried"]
    assert tree_hash(work / "reachctl") == before
