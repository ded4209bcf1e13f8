"""Telemetry is not output (fixtures/scan_telemetry): a list or dict attribute the step only grows, which
the project reads only to save, plot, print or count, carries nothing onward, so what goes into it (a
conversion, the append itself) is no finding; the same records read back as model input by another method
stay findings."""
from __future__ import annotations

import pytest
from scanfixture import check_marked

GROUP = "scan_telemetry"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_records_read_only_to_report_are_not_output(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "rover_app", "steering:Steering.step")
    assert ("steering.py", 21, "inplace-state") in found   # the window it reads back stays state


def test_records_read_back_as_data_stay_output(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "tracker_app", "tracker:Tracker.observe")
    assert {line for _, line, _ in found} == {16, 17}
