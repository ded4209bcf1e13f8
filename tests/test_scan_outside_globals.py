"""LCM903 on module globals wherever the registered writer lives (fixtures/scan_outside_globals,
`filled_outside.global_fills`): a reader thread's method filling its module's global read through `from ... import`,
a DDS-style handler method writing a third module's globals through its import, a handler a method hands to a
keyboard listener declaring `global`. Constants a callback stores, `None` gates and the step's own globals stay
clean."""
from __future__ import annotations

from pathlib import Path

import pytest
from scanfixture import check_marked, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize(("app", "entry", "line"), [
    ("arm_app", "runner:policy_step", 8),
    ("boat_app", "pilot:Pilot.step", 14),
    ("kart_app", "kart:Driver.drive", 25),
])
def test_globals_filled_by_registered_code_are_found_where_the_step_reads_them(tmp_path, monkeypatch, app, entry,
                                                                               line):
    found = check_marked("scan_outside_globals", tmp_path, monkeypatch, app, entry)
    assert {(Path(path).name, number) for path, number, _ in found if number == line}


@pytest.mark.parametrize(("app", "entry", "written"), [
    ("arm_app", "runner:policy_step", ("telemetry.py", 19)),
    ("boat_app", "pilot:Pilot.step", ("link.py", 13)),
    ("kart_app", "kart:Driver.drive", ("kart.py", 17)),
])
def test_the_write_in_the_other_module_is_the_related_location(tmp_path, monkeypatch, app, entry, written):
    result = scan_copy("scan_outside_globals", tmp_path, app, entry, monkeypatch)
    outside = [f for f in result.findings if f.code == "LCM903"]
    assert len(outside) == 1
    assert [(Path(r[0]).name, r[1]) for r in outside[0].related] == [written]
