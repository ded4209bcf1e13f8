"""State kept outside `self` (fixtures/scan_recall_kept): a dict, an array or an object the driver builds once
and passes to the step on every iteration of its loop, and a module-level container the step fills. What the
step writes there and reads back is recurrent state (LCM701); constants, slots nothing reads and a library
object's fields are not."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("scan_recall_kept", tmp_path, app, entry, monkeypatch)


def test_a_dict_the_driver_passes_on_every_iteration_is_state(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "memo_app", "ctrl:act_once", monkeypatch))
    assert ("ctrl.py", 24, "LCM701") in hits        # memo["last_act"] = out, read at line 21 on the next call
    assert ("ctrl.py", 15, "LCM701") in hits        # blend(memo["goal"], ...) writes into the kept array
    assert ("ctrl.py", 16, "LCM701") in hits
    assert ("ctrl.py", 25, "LCM701") not in hits    # a constant label
    assert ("ctrl.py", 26, "LCM701") not in hits    # trace["seen"]: nothing in the pipeline reads it
    assert ("ctrl.py", 22, "LCM701") not in hits    # memo["window"] grows, but only the driver's print reads it


def test_an_object_the_driver_keeps_is_state(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "obj_app", "agent:Agent.step", monkeypatch))
    assert ("agent.py", 16, "LCM701") in hits       # carry.hidden = h, read by the GRU cell on the next call
    assert ("agent.py", 17, "LCM701") not in hits   # a constant


def test_a_module_level_container_the_step_fills_and_reads_is_state(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "glob_app", "filt:smooth", monkeypatch))
    assert ("filt.py", 11, "LCM701") in hits        # PREV["y"] = y, read on line 10 on the next call
    assert ("filt.py", 12, "LCM701") not in hits    # STATS grows, nothing reads it back
