"""The LEAPP fact behind LCM107 (installed leapp 0.7.2, CPU): `.data` of a traced tensor is a plain
`torch.Tensor` outside the trace, so an output computed through it is refused by `output_tensors`, while the
same computation without `.data` exports and validates."""
from __future__ import annotations

import pytest
import torch

leapp = pytest.importorskip("leapp")
annotate = leapp.annotate
pytestmark = pytest.mark.e2e

SAMPLES = [[0.1, 0.9], [0.5, -0.4], [-0.9, 0.1]]


def through_data(x):
    return torch.tanh(x).data * 2.0


def kept(x):
    return torch.tanh(x) * 2.0


def trace(tmp_path, graph, step, kinds):
    leapp.start(graph, save_path=str(tmp_path), max_cached_io=4)
    try:
        for values in SAMPLES:
            x = annotate.input_tensors(graph, {"x": torch.tensor(values)})
            kinds.append(type(torch.tanh(x).data).__name__)
            annotate.output_tensors(graph, {"y": step(x)}, export_with="onnx")
    finally:
        leapp.stop()
    return leapp.compile_graph(validate=True, strict=False, visualize=False)


def test_data_leaves_the_trace_and_the_same_step_without_it_exports(tmp_path):
    assert trace(tmp_path / "kept", "kept", kept, []) == {"kept": True}
    kinds: list[str] = []
    with pytest.raises(Exception, match="non-traced"):
        trace(tmp_path / "data", "through_data", through_data, kinds)
    assert kinds == ["Tensor"]   # the first sample's `.data` is already a plain tensor
