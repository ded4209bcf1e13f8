"""Element types through iteration (fixtures/scan_recall_iter): objects of a project class kept in a dict or list
comprehension before an inline range and walked with `zip(d.items(), ...)` / `enumerate(xs)` are of that class,
so a method whose name lists also have (`append`) is followed into the class."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_methods_of_iterated_project_objects_are_followed(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall_iter", tmp_path, "ring_app", "deploy.py:24-31", monkeypatch))
    assert ("deploy.py", 11, "LCM702") in hits   # Ring.append rebinds its history from the pushed term
    assert ("deploy.py", 12, "LCM701") in hits   # ... and writes into it in place


def test_a_module_level_list_of_objects_walked_by_a_driver_loop_is_followed(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall_iter", tmp_path, "ring_app", "slots_script.py:23-27", monkeypatch))
    assert ("slots_script.py", 10, "LCM702") in hits   # Slot.append, reached through zip(slots, ...)
    assert ("slots_script.py", 11, "LCM701") in hits
