"""The LEAPP fact behind LCM203's read exemption (installed leapp 0.7.2, CPU): a `try` that only reads a traced
array (indexing, `.astype`) with an `except` returning a constant array exports the read, and the exported
model gives what the Python step gives."""
from __future__ import annotations

import glob

import numpy as np
import pytest
import torch

pytest.importorskip("leapp")

pytestmark = pytest.mark.e2e


def _step(x):
    try:
        head = x[np.array([0, 1, 2])].astype(np.float32)
    except Exception:
        return np.zeros(3, dtype=np.float32)
    return head * 2.0


def test_a_read_with_a_constant_fallback_exports_the_read(tmp_path):
    import leapp

    samples = [np.arange(4, dtype=np.float32), np.array([3.0, -1.0, 0.5, 2.0], dtype=np.float32)]
    leapp.start("reader", save_path=str(tmp_path))
    for sample in samples:
        x = leapp.annotate.input_tensors("reader", {"x": sample})
        leapp.annotate.output_tensors("reader", {"y": _step(x)}, export_with="onnx-torchscript")
    leapp.stop()
    leapp.compile_graph(visualize=False, validate=True)
    manager = leapp.InferenceManager(glob.glob(f"{tmp_path}/**/*.yaml", recursive=True)[0])
    fresh = np.array([7.0, 8.0, 9.0, 1.0], dtype=np.float32)
    got = next(iter(manager.run_policy({manager.inputs[0]: torch.as_tensor(fresh)}).values()))
    assert np.allclose(np.asarray(got), _step(fresh))
