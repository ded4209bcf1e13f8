"""The LEAPP facts behind the set-15 recall fixes (installed leapp 0.7.2, CPU): a mapped NumPy function given
`dtype=` a type object on traced arrays raises while tracing (LCM301), and a string dtype traces; a torch tensor
multiplied by a NumPy array raises TypeError."""
from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("leapp")

pytestmark = pytest.mark.e2e


def _trace_once(tmp_path, step):
    """The exception LEAPP raised while tracing `step(x)` on one traced float32 array, or None."""
    import leapp

    leapp.start("g", save_path=str(tmp_path), max_cached_io=4)
    try:
        x = leapp.annotate.input_tensors("g", {"x": np.ones(3, dtype=np.float32)})
        try:
            leapp.annotate.output_tensors("g", {"y": step(x)}, export_with="onnx")
        except Exception as exc:   # LEAPP and torch raise several kinds
            return exc
        return None
    finally:
        leapp.stop()


@pytest.mark.parametrize("step", [
    lambda x: np.concatenate([x, x], dtype=np.float32),
    lambda x: np.stack([x, x], dtype=np.float64),
    lambda x: np.sum(x, dtype=np.float32),
    lambda x: np.add(x, x, dtype=float),
])
def test_a_type_object_as_dtype_of_a_mapped_numpy_function_raises(tmp_path, step):
    assert isinstance(_trace_once(tmp_path, step), NotImplementedError)


@pytest.mark.parametrize("step", [
    lambda x: np.concatenate([x, x], dtype="float32"),
    lambda x: np.asarray(x, dtype=np.float32) * 2,
    lambda x: np.concatenate([x, x]),
])
def test_a_string_dtype_and_asarray_trace(tmp_path, step):
    assert _trace_once(tmp_path, step) is None


def test_a_torch_tensor_times_a_numpy_array_raises(tmp_path):
    gain = np.full(3, 2.0, dtype=np.float32)
    raised = _trace_once(tmp_path, lambda x: torch.tanh(torch.as_tensor(x)) * gain)
    assert isinstance(raised, TypeError)
    assert _trace_once(tmp_path / "ok", lambda x: torch.tanh(torch.as_tensor(x)) * torch.as_tensor(gain)) is None
