"""Tests of a Python container's emptiness held on self (fixtures/scan_container_tests): a window the step fills
is state that changes between calls, reported with that cause (not as a branch on tensor values); a list of class
names from the settings tests no value."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


ENTRY = "gesture:GestureRecogniser.classify"


def test_only_the_filled_window_is_reported(tmp_path, monkeypatch):
    found = check_marked("scan_container_tests", tmp_path, monkeypatch, "gesture_app", ENTRY)
    assert {line for _, line, category in found if category == "tensor-branch"} == {17}


def test_the_window_test_names_state_that_changes_between_calls(tmp_path, monkeypatch):
    result = scan_copy("scan_container_tests", tmp_path, "gesture_app", ENTRY, monkeypatch)
    [branch] = [f for f in result.findings if f.code == "LCM201"]
    assert "changes between calls" in branch.message and "decides Python control flow" not in branch.message


def test_a_shape_checked_against_loaded_statistics_is_the_layout_they_fix(tmp_path, monkeypatch):
    found = check_marked("scan_container_tests", tmp_path, monkeypatch, "scale_app", "scale:ForceScale.read")
    assert found == {("scale.py", 14, "shape-specialization")}
