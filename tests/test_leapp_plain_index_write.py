"""The LEAPP fact behind LCM114 (installed leapp 0.7.2): a write into a traced NumPy array or torch tensor through
an index that is a plain NumPy array (a mask from `np.isin`, which LEAPP does not map; a constant integer index
array; alone or in a tuple key; `=` or `+=`) raises NotImplementedError while tracing. The same read, a list key
and a mask computed with mapped operations trace and validate."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from leapp_trace import trace_payload

leapp = pytest.importorskip("leapp")
pytestmark = pytest.mark.e2e

ORDER = np.array([3, 0, 2, 1])
ROWS = [np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32), np.array([4.0, 2.0, 9.0, 3.0], dtype=np.float32)]


def isin_mask_write(x):
    y = x * 1.0
    y[np.isin(y, [2.0, 3.0])] = 5.0
    return y


def order_add(x):
    y = x * 1.0
    y[ORDER] += 1.0
    return y


def tuple_key_into_torch(x):
    y = torch.as_tensor(x).reshape(2, 2) * 1.0
    y[:, np.array([1, 0])] = 0.0
    return y


def read_and_list_write(x):
    y = x[ORDER] * 2.0
    y[[0, 2]] = 0.0
    y[~np.isfinite(y)] = 0.0
    y[y > 7.0] = 7.0
    return y


@pytest.mark.parametrize("step", [isin_mask_write, order_add, tuple_key_into_torch])
def test_a_write_through_a_plain_array_index_raises_while_tracing(tmp_path, step):
    outcome = trace_payload(tmp_path, step.__name__, step, [row.copy() for row in ROWS])
    assert isinstance(outcome, NotImplementedError)
    assert "ndarray" in str(outcome)


def test_the_read_a_list_key_and_a_mapped_mask_trace_and_validate(tmp_path):
    outcome = trace_payload(tmp_path, "read_and_list_write", read_and_list_write, [row.copy() for row in ROWS])
    assert outcome == {"read_and_list_write": True}
