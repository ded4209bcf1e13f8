"""The LEAPP facts behind LCM110 (installed leapp 0.7.2, CPU; see `knowledge/leapp.py`): a traced torch tensor
combined with a NumPy array raises while tracing, in either order; a traced NumPy array combined with a torch
tensor gives a plain tensor outside the trace; `np.float64` scalars trace like Python numbers."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from leapp_codemod.knowledge.leapp import MIXED_TORCH_NUMPY_RAISES

pytest.importorskip("leapp")

pytestmark = pytest.mark.e2e

_GRAPHS = itertools.count()
GAIN = np.full(3, 2.0, dtype=np.float32)
GAIN_T = torch.full((3,), 2.0)


def _trace(tmp_path, step, value):
    """(exception raised while tracing `step` on one traced input or exporting its answer, type of the answer)."""
    import leapp

    graph = f"g{next(_GRAPHS)}"
    leapp.start(graph, save_path=str(tmp_path / graph), max_cached_io=4)
    try:
        x = leapp.annotate.input_tensors(graph, {"x": value})
        try:
            y = step(x)
            leapp.annotate.output_tensors(graph, {"y": y}, export_with="onnx")
        except Exception as exc:   # LEAPP and torch raise several kinds
            return exc, None
        return None, type(y).__name__
    finally:
        leapp.stop()


def _augmented(x):
    x += GAIN
    return x


@pytest.mark.parametrize("step", [
    lambda x: x * GAIN, lambda x: GAIN * x, lambda x: x + GAIN, lambda x: (x > GAIN).float(),
    lambda x: GAIN @ x, lambda x: x @ GAIN, lambda x: x * np.array(2.0, dtype=np.float32),
    lambda x: x * np.float32(2.0), _augmented,
])
def test_a_traced_tensor_with_a_numpy_array_raises(tmp_path, step):
    raised, _ = _trace(tmp_path, step, torch.ones(3))
    assert type(raised).__name__ in MIXED_TORCH_NUMPY_RAISES


def test_from_numpy_of_a_traced_array_times_the_array_raises(tmp_path):
    raised, _ = _trace(tmp_path, lambda x: torch.from_numpy(x) * x, np.ones(3, dtype=np.float32))
    assert isinstance(raised, TypeError)


@pytest.mark.parametrize("step", [lambda x: x * GAIN_T, lambda x: GAIN_T + x, lambda x: x * torch.as_tensor(x)])
def test_a_traced_array_with_a_torch_tensor_leaves_the_trace(tmp_path, step):
    raised, _ = _trace(tmp_path, step, np.ones(3, dtype=np.float32))
    assert raised is not None and "non-traced" in str(raised)


def test_mixed_into_traced_values_the_untraced_part_passes_silently(tmp_path):
    raised, kind = _trace(tmp_path, lambda x: torch.as_tensor(x) + x * GAIN_T, np.ones(3, dtype=np.float32))
    assert raised is None and kind == "TracedTensor"


@pytest.mark.parametrize("step", [
    lambda x: x * torch.as_tensor(GAIN), lambda x: x * np.sqrt(2.0), lambda x: x * float(GAIN[0]),
])
def test_converted_operands_and_float64_scalars_trace(tmp_path, step):
    raised, kind = _trace(tmp_path, step, torch.ones(3))
    assert raised is None and kind == "TracedTensor"


def test_a_numpy_array_with_a_numpy_constant_traces(tmp_path):
    raised, kind = _trace(tmp_path, lambda x: x * GAIN, np.ones(3, dtype=np.float32))
    assert raised is None and kind == "TracedNpArray"
