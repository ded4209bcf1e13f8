"""A policy an ONNX Runtime session runs, the session bound before an inline range (inside a `try`): the run is a
native call on pipeline data (LCM401; the LEAPP fact: tests/test_leapp_onnxruntime_session.py)
(fixtures/scan_native_runtime)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_session_bound_before_the_range_runs_the_policy_natively(tmp_path, monkeypatch):
    marked = check_marked("scan_native_runtime", tmp_path, monkeypatch, "rover_app", "drive.py:17-18")
    assert {(path, category) for path, _, category in marked} == {("drive.py", "foreign-library")}
