"""Counts the data decides, used as sizes (fixtures/scan_recall_counts, rule LCM004): the length of the
positions `argwhere` found, a loop repeated as many times as a count of the data, a 0-d tensor bounding a slice
of a constant tensor; positions used only as an index and a 0-d bound on a traced tensor stay unflagged (LEAPP
0.7.2 exports both faithfully, see the rule's docs)."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_counts_used_as_sizes_are_flagged_and_faithful_forms_are_not(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall_counts", tmp_path, "contact_app", "contacts:ContactController.forward",
                           monkeypatch))
    count_lines = {line for name, line, code in hits if code == "LCM004" and name == "contacts.py"}
    assert 12 in count_lines      # argwhere whose number of rows is used
    assert 20 in count_lines      # a 0-d length bounding a slice of a constant allocation
    assert 26 in count_lines      # range() of a count of the data
    assert not count_lines & {30, 31, 32, 33, 34}   # an index only, a 0-d bound on a traced tensor
