"""A deque that starts empty and fills up during the recorded calls is probed slot by slot at its full
length (not only the one slot it held after the first call that changed it)."""
from __future__ import annotations

import collections
from types import SimpleNamespace

from leapp_codemod.runner.state_reads import _longest, leaf_paths


def test_an_initially_empty_deque_is_probed_at_its_full_length():
    path = ("self", ("attr", "frames"))
    first = collections.deque([1.0], maxlen=3)
    calls = [SimpleNamespace(state_before={path: collections.deque([1.0, 2.0, 3.0], maxlen=3)}),
             SimpleNamespace(state_before={})]
    value = _longest(path, calls, first)
    assert [leaf[-1] for leaf in leaf_paths(path, value, [1, 2, 3, 3])] == [("key", 0), ("key", 1), ("key", 2)]
    assert _longest(path, [], first) is first
