"""A NumPy helper that fills a Jacobian it allocates element by element (`J = np.zeros((2, 3)); J[0, 2] = ...`)
and a controller that inverts it with `np.linalg.pinv`: `generate` twins the helper with the writes kept on a
traced allocation (`twin_put`, the parameter's items as `twin_item`) and patches `pinv` with its torch adapter;
ONNX has no lowering for `linalg_pinv`, so `run` goes down the exporter ladder and validates with pt2."""
from __future__ import annotations

import numpy as np
import pytest
from test_run import generate, project, run_json, tree_hash

from leapp_codemod.adapters.linalg import pinv


@pytest.mark.parametrize("shape", [(2, 3), (4, 2), (3, 5, 2)])
def test_the_pinv_adapter_agrees_with_numpy_including_the_cutoff(shape):
    rng = np.random.default_rng(0)
    a = rng.normal(size=shape)
    for rcond in (None, 1e-3):
        got = pinv(a) if rcond is None else pinv(a, rcond=rcond)
        want = np.linalg.pinv(a) if rcond is None else np.linalg.pinv(a, rcond=rcond)
        assert got.dtype == want.dtype and np.allclose(got, want, atol=1e-10)
    low_rank = np.diag([1.0, 1e-5, 0.0])
    assert np.allclose(pinv(low_rank, rcond=1e-3), np.linalg.pinv(low_rank, rcond=1e-3))
    with pytest.raises(ValueError, match="hermitian"):
        pinv(a[..., :2, :2], hermitian=True)


@pytest.mark.e2e
def test_element_writes_into_a_fresh_array_and_pinv_export_through_the_fallback_ladder(tmp_path):
    work = project(tmp_path, "run_fresh_writes")
    before = tree_hash(work / "planar")
    module = generate(work, "planar", "planar.control:ToolTracker.command").read_text()
    assert "raise NotImplementedError(STUB)" not in module
    assert "J = twin_put(J, (0, 2), " in module and "twin_item(pose, 2)" in module
    assert 'ADAPTERS["numpy.linalg.pinv"]' in module
    proc, report = run_json(work)
    assert proc.returncode == 0, report.get("error")
    assert report["status"] == "validated" and report["validation"]["ok"]
    assert report["validation"]["across_run"]["ok"]
    backends = [a["backend"] for a in report["attempts"]]
    assert backends[0] == "onnx" and report["attempts"][0]["failed_stage"] == "lowering"
    assert "linalg_pinv" in report["attempts"][0]["reason"] or "linalg_pinv" in " ".join(
        report["attempts"][0].get("leapp_messages", []))
    torchscript = next(a for a in report["attempts"] if a["backend"] == "onnx-torchscript")
    assert "'aten::linalg_pinv'" in torchscript["reason"] and "__init__()" not in torchscript["reason"]  # torch's own
    assert report["attempts"][-1]["outcome"] == "validated" and report["attempts"][-1]["backend"] != "onnx"
    assert tree_hash(work / "planar") == before
