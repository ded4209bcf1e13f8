"""Host-side guards are not the trace's (fixtures/scan_host_guards): a clock the step keeps on self is the
host's time, not an input the step reads; a warm-up wait and a stale-input guard on it decide host behaviour
(no tensor branch, no clock finding, no state finding for the stamp they keep), while the device reading the
step does take stays pipeline data, and a clock that picks the step's computation stays a finding."""
from __future__ import annotations

import pytest
from scanfixture import check_marked

GROUP = "scan_host_guards"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_time_guards_of_a_kept_clock_are_host_work(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "gimbal_app", "gimbal:Stabilizer.tick")
    assert found == {("gimbal.py", 32, "tensor-branch")}   # the device's reading is still data


def test_a_clock_that_picks_the_computation_stays_a_finding(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "metronome_app", "swing:SwingLeg.act")
    assert found == {("swing.py", 17, "io-in-pipeline")}
