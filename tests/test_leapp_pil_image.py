"""The LEAPP fact behind LCM401 on PIL images (installed leapp 0.7.2, Pillow, CPU): PIL copies a traced array's
numbers into its own native image, so `Image.fromarray(a).resize(...)` and `np.asarray(img)` give a plain array
the export keeps as a constant; validation fails on the next sample. The same resize as torch ops validates."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from leapp_trace import trace

leapp = pytest.importorskip("leapp")
Image = pytest.importorskip("PIL.Image")
pytestmark = pytest.mark.e2e


def pil_resize(x):
    img = Image.fromarray(x.numpy().reshape(2, 2).astype(np.float32), mode="F")
    out = np.asarray(img.resize((4, 4), resample=Image.NEAREST), dtype=np.float32).reshape(-1)
    return torch.from_numpy(out.copy()) + 0.0 * x.sum()


def torch_resize(x):
    out = torch.nn.functional.interpolate(x.reshape(1, 1, 2, 2), size=(4, 4), mode="nearest")
    return out.reshape(-1)


SAMPLES = [[0.1, 0.9, 0.2, 0.4], [0.5, 0.4, 0.3, 0.7], [0.9, 0.1, 0.8, 0.2]]


def test_pil_methods_give_an_untraced_image_and_torch_ops_do_not(tmp_path):
    assert trace(tmp_path / "a", "pil_resize", pil_resize, SAMPLES) == {"pil_resize": False}
    assert trace(tmp_path / "b", "torch_resize", torch_resize, SAMPLES) == {"torch_resize": True}
