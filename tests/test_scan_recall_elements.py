"""Elements of NumPy vectors of pipeline data read into Python (fixtures/scan_recall_elements, rule LCM104): a loop
row unpacked into names a foreign numeric function takes, one position passed straight to a helper that computes
with it, one position used only inside a nested list display; the slices of the same rows stay unflagged."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_single_elements_of_rows_and_vectors_are_flagged(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall_elements", tmp_path, "chunk_app", "adapter:Adapter.step", monkeypatch))
    assert ("adapter.py", 12, "LCM104") in hits   # `rx, ry, rz = row[3:6]`, the angles go to euler2quat
    assert ("adapter.py", 14, "LCM104") in hits   # `self.gate(row[6])`: the helper compares it
    assert ("adapter.py", 20, "LCM104") in hits   # `width = pose[7]`, used in `[width]` next to `pose[:3]`
    assert not {line for _, line, code in hits if code == "LCM104"} & {11, 15, 21}   # rows and slices stay arrays


def test_items_a_helper_hands_on_to_one_that_computes_are_used_as_numbers(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall_elements", tmp_path, "chunk_app", "rows:step", monkeypatch))
    assert ("rows.py", 16, "LCM104") in hits   # `x, y = row[0:2]`, computed with in halve() via convert()
