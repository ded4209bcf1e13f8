"""Switches kept as literal class attributes of a module's config class (`class Settings: smooth_heading =
False`) rule out the blocks they guard, unless code of the module stores them (fixtures/scan_class_settings)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, found, scan_variant


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_blocks_a_config_class_switches_off_are_not_scanned(tmp_path, monkeypatch):
    marked = check_marked("scan_class_settings", tmp_path, monkeypatch, "boat_app", "boat:Helm.steer")
    assert {category for _, _, category in marked} == {"scalar-extraction", "unmapped-numpy"}


def test_a_switch_the_module_stores_stays_open(tmp_path, monkeypatch):
    result = scan_variant("scan_class_settings", tmp_path, monkeypatch, "boat_app", "boat:Helm.steer", "boat.py",
                          "    def replay(self):", "    def enable(self):\n        Settings.smooth_heading = True\n\n"
                          "    def replay(self):")
    assert ("boat.py", 28, "LCM401") in found(result)   # the lfilter block, three lines down after the insertion
