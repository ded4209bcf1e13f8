"""The LEAPP fact behind LCM706 (installed leapp 0.7.2, torch and onnxruntime on CPU): a model traced in training
mode exports wrong. With BatchNorm and with a normaliser that updates its statistics under `if self.training:`,
validation fails; with Dropout validation fails and the exported model stays random. The same models put in
evaluation mode before tracing validate and match the model on a fresh input."""
from __future__ import annotations

import pytest
import torch
from torch import nn

leapp = pytest.importorskip("leapp")
annotate = leapp.annotate
pytestmark = pytest.mark.e2e


class RunningNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mean", torch.zeros(n))
        self.register_buffer("var", torch.ones(n))

    def forward(self, x):
        if self.training:
            self.mean = 0.5 * self.mean + 0.5 * x.mean(0)
            self.var = 0.5 * self.var + 0.5 * x.var(0)
        return (x - self.mean) / torch.sqrt(self.var + 1e-5)


def build(kind):
    torch.manual_seed(0)
    if kind == "batchnorm":
        return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    if kind == "dropout":
        return nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5))
    return nn.Sequential(RunningNorm(3), nn.Linear(3, 4))


def batches():
    return [torch.randn(5, 3, generator=torch.Generator().manual_seed(i)) * (i + 1) + i for i in range(3)]


def export(tmp_path, graph, model):
    leapp.start(graph, save_path=str(tmp_path), max_cached_io=4)
    try:
        for x in batches():
            y = model(annotate.input_tensors(graph, {"x": x}))
            annotate.output_tensors(graph, {"y": y}, export_with="onnx")
    finally:
        leapp.stop()
    return leapp.compile_graph(validate=True, strict=False, visualize=False)


def run(tmp_path, graph, x):
    manager = leapp.InferenceManager(str(tmp_path / graph / f"{graph}.yaml"))
    return torch.as_tensor(manager.run_policy({f"{graph}/x": x})[f"{graph}/y"])


@pytest.mark.parametrize("kind", ["batchnorm", "dropout", "running_norm"])
def test_a_model_traced_in_training_mode_fails_validation(tmp_path, kind):
    graph = f"{kind}_train"
    assert export(tmp_path, graph, build(kind).train()) == {graph: False}


def test_dropout_stays_random_in_the_export(tmp_path):
    export(tmp_path, "dropout_train", build("dropout").train())
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(99))
    assert not torch.allclose(run(tmp_path, "dropout_train", x), run(tmp_path, "dropout_train", x))


@pytest.mark.parametrize("kind", ["batchnorm", "dropout", "running_norm"])
def test_the_same_model_in_evaluation_mode_exports_and_matches(tmp_path, kind):
    graph = f"{kind}_eval"
    model = build(kind).eval()
    assert export(tmp_path, graph, model) == {graph: True}
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(99)) * 3 + 1
    assert torch.allclose(run(tmp_path, graph, x), model(x).detach(), atol=1e-5)
