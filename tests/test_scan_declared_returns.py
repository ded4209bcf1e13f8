"""What a step's objects are, read from where they are made (fixtures/scan_declared_returns).

* An item of a returned tuple takes the class its function's `-> tuple[A, B]` annotation declares, when the
  body builds it from something the scan cannot type (`torch.load` of a bundle): only that class's method is
  followed, not every project class that defines a method of the same name.
* A sensor object made from a library neither scanned nor modelled, that an inline range reads (bound before
  the range, or handed to the function the range is cut from) is a device: its reading, converted to an
  array, is the pipeline's data, in the range and in the helpers it calls.
"""
from __future__ import annotations

import ast

import pytest
from scanfixture import check_marked, scan_copy

from leapp_codemod.analysis.model.resolve_types import tuple_item_annotation

GROUP = "scan_declared_returns"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_range_reading_a_handed_port_through_a_helper_reaches_the_declared_pilot(tmp_path, monkeypatch):
    # `pilot, scaler = restore_bundle(path)` with `-> Tuple["SonarPilot", DepthScaler]`; the range reads
    # `read_pings(port)`, and `port` is a `serial.Serial` the main block hands to `main`
    found = check_marked(GROUP, tmp_path, monkeypatch, "trawler", "survey.py:21-23")
    assert found == {("pilots.py", 12, "scalar-extraction")}


def test_the_declared_classes_are_known_not_guessed(tmp_path, monkeypatch):
    # with the annotation read, `pilot.steer` and `scaler.scale` resolve by type: no duck-typing guess is listed
    result = scan_copy(GROUP, tmp_path, "trawler", "survey.py:21-23", monkeypatch)
    guessed = [r for r in result.bound_calls if r.line == 22]
    assert result.findings and not guessed


def test_a_script_loop_reading_a_sensor_made_above_it_computes_on_the_reading(tmp_path, monkeypatch):
    # `lidar = RPLidar(...)` at module level; the loop body converts `lidar.grab_sweep()` to an array
    found = check_marked(GROUP, tmp_path, monkeypatch, "lidar_cart", "cart.py:19-24")
    assert ("cart.py", 22, "tensor-branch") in found


@pytest.mark.parametrize(("annotation", "index", "item"), [
    ("tuple[Net, Stats]", 1, "Stats"),
    ("Tuple['Net', Stats]", 0, "'Net'"),
    ("'tuple[Net, Stats]'", 0, "Net"),
    ("tuple[Net, ...]", 0, None),      # a variable-length tuple names no position
    ("tuple[Net, Stats]", 2, None),
    ("list[Net]", 0, None),
    ("Net", 0, None),
])
def test_tuple_item_annotation(annotation, index, item):
    found = tuple_item_annotation(ast.parse(annotation, mode="eval").body, index)
    assert (ast.unparse(found) if found is not None else None) == item
