"""The LEAPP facts behind LCM004's scope (installed leapp 0.7.2, torch and onnxruntime on CPU): positions from
`nonzero(as_tuple=True)` used only as an index into traced data export and match fresh inputs whatever the
count; a loop repeated `count` times (a 0-d tensor of the data) exports and silently keeps the traced count;
`len()` of the positions makes the next call with another count fail."""
from __future__ import annotations

import pytest
import torch

leapp = pytest.importorskip("leapp")
annotate = leapp.annotate
pytestmark = pytest.mark.e2e


def picked_sum(x):
    idx = (x > 0).nonzero(as_tuple=True)[0]
    return x[idx].sum().reshape(1) * 1.0


def repeated(x):
    out = x * 1.0
    for _ in range((x > 0).sum()):
        out = out + 1
    return out


def counted(x):
    idx = (x > 0).nonzero(as_tuple=True)[0]
    return x[:len(idx)] * 2.0


def trace(tmp_path, graph, step):
    leapp.start(graph, save_path=str(tmp_path), max_cached_io=4)
    try:
        for shift in (0.0, 0.3, 0.6):       # different counts of positive entries
            x = annotate.input_tensors(graph, {"x": torch.linspace(-1.0, 1.0, 8) + shift})
            annotate.output_tensors(graph, {"y": step(x)}, export_with="onnx")
    finally:
        leapp.stop()
    leapp.compile_graph(validate=True, strict=False, visualize=False)
    return leapp.InferenceManager(str(tmp_path / graph / f"{graph}.yaml"))


def fresh_matches(manager, graph, step) -> list[bool]:
    out = []
    for shift in (0.9, -0.5):
        x = torch.linspace(-1.0, 1.0, 8) + shift
        got = manager.run_policy({f"{graph}/x": x})[f"{graph}/y"]
        want = step(x.clone())
        out.append(got.shape == want.shape and torch.allclose(got, want))
    return out


def test_positions_used_as_an_index_match_fresh_inputs(tmp_path):
    assert fresh_matches(trace(tmp_path, "picked_sum", picked_sum), "picked_sum", picked_sum) == [True, True]


def test_a_loop_bounded_by_a_count_of_the_data_keeps_the_traced_count(tmp_path):
    assert fresh_matches(trace(tmp_path, "repeated", repeated), "repeated", repeated) == [False, False]


def test_the_length_of_positions_fails_with_another_count(tmp_path):
    with pytest.raises(Exception, match="Reentering"):
        trace(tmp_path, "counted", counted)
