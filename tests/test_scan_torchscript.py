"""LCM111 (fixtures/scan_torchscript): a `@jit.script` helper imported from the project and called on pipeline
data is reported at the call; a plain helper and a scripted one called on a setting stay clean."""
from __future__ import annotations

import pytest
from scanfixture import check_marked


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_script_function_called_on_pipeline_data(tmp_path, monkeypatch):
    found = check_marked("scan_torchscript", tmp_path, monkeypatch, "rover_app", "steer:SteeringNode.on_pose")
    assert found == {("steer.py", 12, "scalar-extraction")}
