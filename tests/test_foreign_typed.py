"""Calls and attribute reads on objects of a class from a package that is neither scanned nor installed are
listed as not followed, naming the class (fixtures/scan_foreign_typed): never dropped because the method
shares a list's or a dict's name, never duck-typed to a project class that defines a method of that name."""
from __future__ import annotations

from pathlib import Path

import pytest
from scanfixture import FIXTURES, marked_lines, scan_copy

APP = FIXTURES / "scan_foreign_typed" / "survey_boat"
CLASSES = {"field_method": "seabus.drivers.DopplerLog", "aliased_field": "seabus.drivers.CompassDriver",
           "container_named_method": "seabus.filters.RingWindow", "attribute_read": "seabus.filters.RingWindow",
           "annotated_parameter": "seabus.drivers.DopplerLog", "annotated_local": "seabus.filters.DriftTracker"}


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def result(tmp_path, monkeypatch):
    return scan_copy("scan_foreign_typed", tmp_path, "survey_boat", "helm.autopilot:HeadingPolicy.step", monkeypatch)


def _decoys() -> set[int]:
    lines = (APP / "helm" / "autopilot.py").read_text().splitlines()
    return {number for number, line in enumerate(lines, 1) if line.rstrip().endswith("# decoy")}


def test_the_fixture_marks_every_shape():
    assert set(marked_lines(APP, "shape")) == set(CLASSES)
    assert len(_decoys()) == 4


def test_every_call_and_read_is_listed_naming_the_class(result):
    listed = {(Path(n.path).name, n.line): n for n in result.not_followed}
    for shape, site in marked_lines(APP, "shape").items():
        assert site in listed, f"dropped silently: {shape}"
        assert CLASSES[shape] in listed[site].reason, shape
        assert listed[site].package == "seabus", shape


def test_a_settings_object_field_is_not_listed(result):
    """`self.limits.max_rudder`: a field of an object nothing hands pipeline data to is a setting read, not
    code or state the scan misses (the window, handed `speed`, is: its `.stacked` is listed)."""
    listed = {(Path(n.path).name, n.line) for n in result.not_followed}
    assert marked_lines(APP, "unlisted")["config_field"] not in listed


def test_no_project_class_is_picked_by_the_method_name(result):
    assert not {f.line for f in result.findings} & _decoys()
    duck = [b for b in result.bound_calls if "duck typing" in b.how]
    assert duck == []
