"""The LEAPP fact behind LCM703 on a buffer made by arithmetic on an allocator (installed leapp 0.7.2, CPU):
`np.zeros(n) * scale` with a Python number is a plain NumPy array, so writing traced values into it copies
numbers; the export keeps what the buffer held while tracing and validation fails on the next sample. The same
values joined with `np.concatenate` trace and validate."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from leapp_trace import trace

leapp = pytest.importorskip("leapp")
pytestmark = pytest.mark.e2e


def scaled_buffer(x):
    a = x.numpy()
    buf = np.zeros(3, dtype=np.float32) * 2.0
    buf[:2] = a[:2] * 3.0
    buf[2:] = a[2:]
    return torch.from_numpy(np.asarray(buf, dtype=np.float32)) + 0.0 * x


def plain_buffer(x):
    a = x.numpy()
    buf = np.zeros(3, dtype=np.float32)
    buf[:2] = a[:2] * 3.0
    buf[2] = a[2]
    return torch.from_numpy(buf) + 0.0 * x


def joined(x):
    a = x.numpy()
    out = np.concatenate([a[:2] * 3.0, a[2:]]).astype(np.float32)
    return torch.from_numpy(out) + 0.0 * x


SAMPLES = [[0.1, 0.9, 0.2], [0.5, 0.4, 0.3], [0.9, 0.1, 0.8]]


def test_a_scaled_allocation_is_an_untraced_buffer_and_a_join_is_not(tmp_path):
    assert trace(tmp_path / "a", "scaled_buffer", scaled_buffer, SAMPLES) == {"scaled_buffer": False}
    assert trace(tmp_path / "b", "joined", joined, SAMPLES) == {"joined": True}


def test_a_plain_allocation_filled_by_slice_and_element_writes_is_an_untraced_buffer(tmp_path):
    # NumPy's indexing and slice assignment are recorded on a traced array; a buffer `np.zeros` makes from a shape
    # is no traced array, so the writes into it copy numbers
    assert trace(tmp_path / "c", "plain_buffer", plain_buffer, SAMPLES) == {"plain_buffer": False}
