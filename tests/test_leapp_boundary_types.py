"""The LEAPP fact behind LCM108 (installed leapp 0.7.2, CPU), written once in `knowledge/leapp.py`
(BOUNDARY_RECURSES_INTO, BOUNDARY_PASSES_WHOLE): an input boundary declares arrays and tensors, also inside lists,
tuples and dicts of one fixed structure; a deque (even of arrays), a list or dict of Python numbers is passed
through as a constant, and a list whose length changes fails on the next call."""
from __future__ import annotations

import collections

import numpy as np
import pytest
from leapp_trace import trace_payload

from leapp_codemod.knowledge.leapp import BOUNDARY_PASSES_WHOLE, BOUNDARY_RECURSES_INTO

leapp = pytest.importorskip("leapp")
pytestmark = pytest.mark.e2e


def _arrays(n, k=3):
    rng = np.random.default_rng(n)
    return [rng.standard_normal(k).astype(np.float32) for _ in range(n)]


def stack_items(x):
    return np.tanh(np.stack([v["p"] if isinstance(v, dict) else v for v in x]))


def join_keys(x):
    return np.tanh(np.concatenate([np.asarray(x["a"], dtype=np.float32), np.asarray(x["b"], dtype=np.float32)]))


def payloads(make):
    return [make(i) for i in range(1, 5)]


def declared(result, graph):
    return isinstance(result, dict) and result.get(graph) is True


def test_lists_tuples_and_dicts_of_arrays_are_declared_item_by_item(tmp_path):
    assert declared(trace_payload(tmp_path / "l", "l", stack_items, payloads(lambda i: _arrays(i + 2)[:2])), "l")
    assert declared(trace_payload(tmp_path / "t", "t", stack_items, payloads(lambda i: tuple(_arrays(i + 2)[:2]))), "t")
    assert declared(trace_payload(tmp_path / "d", "d", join_keys,
                                  payloads(lambda i: dict(zip("ab", _arrays(i + 2)[:2])))), "d")
    assert declared(trace_payload(tmp_path / "ld", "ld", stack_items,
                                  payloads(lambda i: [{"p": a} for a in _arrays(i + 2)[:2]])), "ld")
    assert {"list", "tuple", "dict"} == set(BOUNDARY_RECURSES_INTO)


def test_a_deque_and_python_numbers_are_passed_through_as_constants(tmp_path):
    deque_of_arrays = trace_payload(tmp_path / "q", "q", stack_items,
                                    payloads(lambda i: collections.deque(_arrays(i + 2)[:2], maxlen=2)))
    deque_of_dicts = trace_payload(tmp_path / "qd", "qd", stack_items,
                                   payloads(lambda i: collections.deque([{"p": a} for a in _arrays(i + 2)[:2]])))
    dict_of_floats = trace_payload(tmp_path / "f", "f", join_keys,
                                   payloads(lambda i: {"a": _arrays(i + 2)[0].tolist(), "b": [float(i)]}))
    for result in (deque_of_arrays, deque_of_dicts, dict_of_floats):
        assert isinstance(result, Exception), result
        assert "non-traced" in str(result)      # the output is computed from constants only
    assert "deque" in BOUNDARY_PASSES_WHOLE


def test_a_list_whose_length_changes_fails_on_the_next_call(tmp_path):
    growing = payloads(lambda i: _arrays(i + 2)[:i])
    result = trace_payload(tmp_path / "g", "g", lambda x: np.tanh(np.stack(list(x))).sum(0), growing)
    assert isinstance(result, Exception) and "Reentering" in str(result)
