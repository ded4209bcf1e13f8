"""The LEAPP fact behind LCM703's torch exception (installed leapp 0.7.2, CPU): writes of traced values into a torch
buffer allocated before tracing are recorded, so an export validates when every call writes the same places (all
of them, or only some); a buffer the step reads before writing (a history) fails on the next sample."""
from __future__ import annotations

import pytest
import torch
from leapp_trace import trace

leapp = pytest.importorskip("leapp")
pytestmark = pytest.mark.e2e

SAMPLES = [[0.1, 0.9, 0.2, 0.3], [0.5, 0.4, 0.3, 0.7], [0.9, 0.1, 0.8, 0.2]]


class Columns:
    def __init__(self, filled):
        self.buf = torch.ones(1, 4)
        self.filled = filled

    def __call__(self, x):
        for i in range(self.filled):
            self.buf[:, i] = torch.sin(x[i])
        return self.buf[0] * 2.0


class History:
    def __init__(self):
        self.buf = torch.zeros(4)

    def __call__(self, x):
        out = self.buf * 1.0 + x
        self.buf[:] = x
        return out


def test_fixed_writes_into_a_kept_torch_buffer_trace_and_a_history_does_not(tmp_path):
    assert trace(tmp_path / "a", "full", Columns(4), SAMPLES) == {"full": True}
    assert trace(tmp_path / "b", "part", Columns(2), SAMPLES) == {"part": True}
    assert trace(tmp_path / "c", "hist", History(), SAMPLES) == {"hist": False}
