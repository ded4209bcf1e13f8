"""The LEAPP facts behind two rule gaps (installed leapp 0.7.2, torch and onnxruntime on CPU):
- LCM304: a NumPy join of scalars read out of a traced array by an integer index (`np.stack([np.arctan2(a[1],
  a[0]), a[2]])`) is an untraced array: the export keeps it as a constant and validation fails on the next
  sample; the same join of slices (`a[1:2]`) traces and validates.
- LCM202: `torch.equal` on traced tensors answers with a Python bool, so the branch it decides is fixed at the
  outcome seen while tracing; the tensor comparison `(a == b).all()` with `torch.where` validates."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from leapp_trace import trace

leapp = pytest.importorskip("leapp")
pytestmark = pytest.mark.e2e


def stack_elements(x):
    a = x.numpy()
    out = np.stack([np.arctan2(a[1], a[0]), a[2]])
    return torch.from_numpy(np.asarray(out, dtype=np.float32)) + x[:2]


def stack_slices(x):
    a = x.numpy()
    out = np.stack([np.arctan2(a[1:2], a[0:1]), a[2:3]]).reshape(-1)
    return torch.from_numpy(out) + x[:2]


def equal_branch(x):
    same = torch.equal(x[:2], x[2:])
    return x * 2.0 if same else x


def equal_where(x):
    same = (x[:2] == x[2:]).all()
    return torch.where(same, x * 2.0, x)


ANGLES = [[0.1, 0.9, 0.2], [0.5, 0.5, 0.4], [0.9, 0.1, 0.8]]
PAIRS = [[1.0, 2.0, 1.0, 2.0], [1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 0.5, 0.5]]


def test_a_traced_array_returns_plain_numpy_scalars_for_an_integer_index(tmp_path):
    seen = {}

    def probe(x):
        a = x.numpy()
        seen["array"], seen["element"] = type(a).__name__, type(a[1])
        return stack_elements(x)

    trace(tmp_path, "probe", probe, ANGLES[:1])
    assert seen["array"] == "TracedNpArray"
    assert issubclass(seen["element"], np.generic)


def test_a_join_of_element_scalars_fails_validation_and_a_join_of_slices_passes(tmp_path):
    assert trace(tmp_path / "a", "stack_elements", stack_elements, ANGLES) == {"stack_elements": False}
    assert trace(tmp_path / "b", "stack_slices", stack_slices, ANGLES) == {"stack_slices": True}


def test_torch_equal_fixes_the_branch_and_a_tensor_comparison_does_not(tmp_path):
    assert trace(tmp_path / "a", "equal_branch", equal_branch, PAIRS) == {"equal_branch": False}
    assert trace(tmp_path / "b", "equal_where", equal_where, PAIRS) == {"equal_where": True}
