"""The LEAPP fact behind LCM003's scope (installed leapp 0.7.2, torch and onnxruntime on CPU): a write through a
boolean mask of pipeline data keeps the shape, so `x[x > c] = v` with a constant value traces, exports to ONNX
and matches fresh inputs whatever the count of selected entries; the selection itself (`x[mask]` read, here as
the value written) has a data-dependent size, and the ONNX conversion fails."""
from __future__ import annotations

import pytest
import torch

leapp = pytest.importorskip("leapp")
annotate = leapp.annotate
pytestmark = pytest.mark.e2e


def clip_high(x):
    y = x * 2.0
    y[y > 1.0] = 1.0
    return y


def copy_selected(x):
    y = x * 2.0
    y[y > 1.0] = x[y > 1.0]
    return y


def trace(tmp_path, graph, step):
    leapp.start(graph, save_path=str(tmp_path), max_cached_io=4)
    try:
        for shift in (0.0, 0.4, 0.8):       # different counts of entries above the threshold
            x = annotate.input_tensors(graph, {"x": torch.linspace(-1.0, 1.0, 10).reshape(2, 5) + shift})
            annotate.output_tensors(graph, {"y": step(x)}, export_with="onnx")
    finally:
        leapp.stop()
    return leapp.compile_graph(validate=True, strict=False, visualize=False)


def test_a_masked_write_of_a_constant_exports_and_matches_fresh_inputs(tmp_path):
    assert trace(tmp_path, "clip_high", clip_high) == {"clip_high": True}
    manager = leapp.InferenceManager(str(tmp_path / "clip_high" / "clip_high.yaml"))
    counts = set()
    for seed in range(4):
        x = torch.randn(2, 5, generator=torch.Generator().manual_seed(seed)) * (seed + 1)
        counts.add(int((x * 2.0 > 1.0).sum()))
        got = manager.run_policy({"clip_high/x": x})["clip_high/y"]
        assert torch.equal(got, clip_high(x.clone()))
    assert len(counts) > 1


def test_a_masked_write_of_selected_data_does_not_export(tmp_path):
    try:
        result = trace(tmp_path, "copy_selected", copy_selected)
    except Exception:        # the ONNX conversion of the data-dependent selection raises
        return
    assert result != {"copy_selected": True}
