"""A buffer allocated before a driver loop that every pass of the range fills whole before reading (`cmd[...] =
target` on both arms of a branch) carries nothing between passes: no state, no in-place finding; a buffer the
range blends into itself (`smooth[:] = 0.8 * smooth + ...`) stays state (fixtures/scan_range_refilled_buffer)."""
from __future__ import annotations

import ast

import pytest
from scanfixture import check_marked

from leapp_codemod.analysis.inline.uses import first_reads, overwritten_before_read


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_buffer_each_pass_fills_whole_is_no_state_and_a_blended_one_is(tmp_path, monkeypatch):
    marked = check_marked("scan_range_refilled_buffer", tmp_path, monkeypatch, "arm_app", "teleop.py:11-18")
    assert ("teleop.py", 18, "inplace-state") in marked


@pytest.mark.parametrize("source, refilled", [
    ("buf[:] = x\ny = buf * 2", {"buf"}),
    ("buf[...] = x\ny = buf * 2", {"buf"}),
    ("if c:\n    buf[:] = x\nelse:\n    buf[:] = 0\ny = buf", {"buf"}),
    ("if c:\n    buf[:] = x\ny = buf", set()),            # one arm leaves last pass's values
    ("buf[:2] = x\ny = buf", set()),                      # part of it stays
    ("buf[:] = buf * 0.5 + x\ny = buf", set()),           # read while filling
    ("y = buf\nbuf[:] = x", set()),                       # read before the fill
])
def test_what_counts_as_filled_whole_before_reading(source, refilled):
    statements = ast.parse(source).body
    read: list[str] = []
    first_reads(statements, set(), read)
    assert overwritten_before_read(statements, read) == refilled
