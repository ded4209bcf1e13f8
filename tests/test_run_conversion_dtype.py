"""`torch.as_tensor(x, dtype=torch.float32)` of a float64 NumPy value inside the step: LEAPP 0.7.2
converts the value but records no cast, so the graph fed float64 into float32 weights and every
exporter failed on the matrix product (naming no application line). While tracing, `run` records the
requested dtype as a cast (runner/trace_shims.py), so the export validates (real LEAPP, torch,
onnxruntime)."""
from __future__ import annotations

import pytest
from test_run import generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_requested_conversion_dtype_is_kept_in_the_graph(tmp_path):
    work = project(tmp_path, "run_conversion_dtype")
    before = tree_hash(work / "mixer")
    generate(work, "mixer", "mixer.attitude:AttitudeMixer.mix")
    proc, report = run_json(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert report["attempts"][0]["backend"] == "onnx" and report["validation"]["across_run"]["perturbed"]["ok"]
    assert tree_hash(work / "mixer") == before
