"""A state that starts in one floating dtype and is written in another (`last_action = np.zeros(n)` is
float64, the policy's float32 action is stored in it): LEAPP requires an update to keep the starting
dtype, so the starting value is carried in the dtype the step writes."""
from __future__ import annotations

import numpy as np
import torch

from leapp_codemod.runner.stateplan import written_dtype


def test_a_float64_start_is_carried_in_the_float32_the_step_writes():
    got = written_dtype(np.zeros(6), np.ones(6, np.float32))
    assert got.dtype == np.float32 and np.array_equal(got, np.zeros(6, np.float32))
    t = written_dtype(torch.full((2, 3), 0.5, dtype=torch.float64), torch.ones(2, 3))
    assert t.dtype == torch.float32 and torch.equal(t, torch.full((2, 3), 0.5))


def test_other_values_are_left_as_they_are():
    start = np.zeros(6)
    assert written_dtype(start, np.ones(5, np.float32)) is start          # another shape: not the same value
    ints = np.zeros(3, np.int64)
    assert written_dtype(ints, np.ones(3, np.float32)) is ints             # not floating: a different value
    assert written_dtype(start, np.ones(6)) is start                       # same dtype
    assert written_dtype(start, None) is start
    assert written_dtype(start, torch.ones(6)) is start                    # another kind
