"""Data from libraries the scan does not model (fixtures/scan_recall_devices): a read from an object of an
unmodelled SDK used as an array is pipeline data, an empty point cloud filled by attribute assignment holds
that data, and a kinematics model a simulator makes through a chain of factory methods is foreign."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_reads_from_unmodelled_devices_are_data_and_simulator_models_are_foreign(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall_devices", tmp_path, "lidar_app", "policy:SweepPolicy.forward", monkeypatch))
    assert ("policy.py", 16, "LCM401") in hits   # forward kinematics of the model sapien.Engine() led to
    assert ("policy.py", 34, "LCM401") in hits   # the sweep's points handed to open3d
    assert ("policy.py", 35, "LCM401") in hits   # a method of the cloud filled with them by attribute assignment
    assert ("policy.py", 41, "LCM102") in hits   # a count of the sweep's close ranges made a Python float
    assert not {code for name, line, code in hits if line in (28, 31, 32, 33)}   # the serial, the plain slices
