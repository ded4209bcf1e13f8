"""The LEAPP facts behind LCM111 (installed leapp 0.7.2, CPU; see `knowledge/leapp.py`): a `@torch.jit.script`
function called on traced tensors answers a plain tensor outside the trace, with or without a branch; a scripted
module with no branch exports as a module; one whose `forward` branches on values raises while tracing."""
from __future__ import annotations

import itertools

import pytest
import torch

pytest.importorskip("leapp")

pytestmark = pytest.mark.e2e

_GRAPHS = itertools.count()


@torch.jit.script
def _plain(x):
    return torch.tanh(x) * 2.0


@torch.jit.script
def _branching(x):
    if bool(x.sum() > 0):
        return x * 2.0
    return x * -1.0


class _Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x):
        return torch.tanh(self.lin(x))


class _Branching(torch.nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):
            return x * 2.0
        return x * -1.0


def _trace(tmp_path, fn):
    import leapp

    graph = f"s{next(_GRAPHS)}"
    leapp.start(graph, save_path=str(tmp_path / graph))
    try:
        for sample in (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2.0, 1.0, 0.5])):
            x = leapp.annotate.input_tensors(graph, {"x": sample})
            leapp.annotate.output_tensors(graph, {"y": fn(x)}, export_with="onnx-torchscript")
    except Exception as exc:   # LEAPP and torch raise several kinds
        return exc
    finally:
        leapp.stop()
    return None


@pytest.mark.parametrize("fn", [_plain, _branching])
def test_a_script_function_answers_outside_the_trace(tmp_path, fn):
    raised = _trace(tmp_path, fn)
    assert raised is not None and "non-traced" in str(raised)


def test_a_scripted_module_without_a_branch_traces(tmp_path):
    assert _trace(tmp_path, torch.jit.script(_Linear())) is None


def test_a_scripted_module_branching_on_values_raises(tmp_path):
    assert isinstance(_trace(tmp_path, torch.jit.script(_Branching())), NotImplementedError)
