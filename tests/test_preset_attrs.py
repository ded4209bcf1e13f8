"""First-call initialisation the driver has already done (fixtures/scan_preset_attrs): an attribute the driver
sets, to something other than None, on the object it built, before the loop around the entry range, is never
None while the pipeline runs; the `is None` capture it guards is not the pipeline. Whenever something may
reset it to None, or the driver may not have set it, the capture stays recurrent state."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, found, scan_variant

GROUP, APP, RANGE = "scan_preset_attrs", "probe_arm", "main.py:23-24"
CAPTURE = ("drift.py", 14, "LCM702")
PRESET = "    drift.bias = calib.mean(axis=0)\n"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_marked_lines_and_only_those(tmp_path, monkeypatch):
    check_marked(GROUP, tmp_path, monkeypatch, APP, RANGE)


def variant(tmp_path, monkeypatch, module: str, old: str, new: str, entry: str = RANGE):
    return found(scan_variant(GROUP, tmp_path, monkeypatch, APP, entry, module, old, new))


def test_a_method_that_resets_it_keeps_the_capture(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "arm/drift.py", "        return (reading - self.bias) * self.gain\n",
                   "        return (reading - self.bias) * self.gain\n\n    def recalibrate(self):\n        self.bias = None\n")
    assert CAPTURE in hits


def test_a_preset_under_a_condition_keeps_the_capture(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "main.py", PRESET, "    if steps > 50:\n    " + PRESET, entry="main.py:24-25")
    assert CAPTURE in hits


def test_a_driver_that_clears_it_in_the_loop_keeps_the_capture(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "main.py", "        sensor.send(cmd.detach().numpy())\n",
                   "        sensor.send(cmd.detach().numpy())\n        if k % 50 == 0:\n            drift.bias = None\n")
    assert CAPTURE in hits


def test_a_preset_to_none_keeps_the_capture(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "main.py", PRESET, "    drift.bias = None\n")
    assert CAPTURE in hits
