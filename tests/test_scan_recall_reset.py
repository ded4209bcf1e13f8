"""Inline ranges after a branch that resets and leaves the iteration (fixtures/scan_recall_reset): the reset does
not make the previous action a fresh input nor the command buffer a value rebound every iteration, so the range
still carries the one and writes into the other; a counter reset to 0 stays a Python number of the loop."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_reset_branch_that_continues_keeps_carried_state_and_buffers(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall_reset", tmp_path, "link_app", "driver.py:16-22", monkeypatch))
    assert ("driver.py", 18, "LCM702") in hits   # `prev = act`: read by the next iteration's observation
    assert ("driver.py", 20, "LCM703") in hits   # `cmd[j] = ...`: the buffer allocated before the loop
    assert not {code for _, line, code in hits if line == 22}   # `step += 1`: the counter the reset sets to 0
