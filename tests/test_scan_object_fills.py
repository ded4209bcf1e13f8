"""Values registered code fills through an object it holds (`analysis/model/object_fills.py`, rule LCM903): a
holder's thread calls the held controller's method or writes its field, and the controller's step reads them; a
key binding hands the pointer to a tracker object whose field the holder's step reads. A method call on an
object that only reads it (`self.labels.argmax(dim=0)`, `self.sides.index(n)`) or a call of a method that stores
no data (`self.tracker.report(k)`) fills nothing (fixtures/scan_outside_inputs)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize(("app", "entry"), [
    ("serial_bridge_rover", "rover:Controller.act"),
    ("key_marker_gui", "marker:MarkerTool.step"),
])
def test_fields_filled_through_a_held_object_are_found_and_reads_are_no_writes(tmp_path, monkeypatch, app, entry):
    assert check_marked("scan_outside_inputs", tmp_path, monkeypatch, app, entry)


def test_the_related_location_is_the_store_in_the_held_objects_method(tmp_path, monkeypatch):
    result = scan_copy("scan_outside_inputs", tmp_path, "serial_bridge_rover", "rover:Controller.act", monkeypatch)
    found = {f.line: f for f in result.findings if f.code == "LCM903"}
    wheel, heading = found[23], found[24]
    assert [(r[0].rpartition("/")[2], r[1]) for r in wheel.related] == [("rover.py", 16)]    # `ingest` stores it
    assert [(r[0].rpartition("/")[2], r[1]) for r in heading.related] == [("bridge.py", 20)]  # the thread's write
    assert "_read_loop" in wheel.message
