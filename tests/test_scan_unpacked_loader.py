"""A name bound by unpacking a project function's returned tuple holds the class the function builds at that
position (fixtures/scan_unpacked_loader): the policy call on it is followed, in a range and in a function."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from leapp_codemod.scan import scan_project

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "scan_unpacked_loader"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def _scan(tmp_path, monkeypatch, entry):
    root = tmp_path / "app"
    shutil.copytree(FIXTURE, root)
    monkeypatch.chdir(root)
    return scan_project(["."], entry=entry)


def test_a_range_reading_an_unpacked_agent_follows_its_class(tmp_path, monkeypatch):
    result = _scan(tmp_path, monkeypatch, "rover/drive.py:11-13")
    found = {(Path(f.path).name, f.line, f.code) for f in result.findings}
    assert {("agents.py", 13, "LCM702"), ("agents.py", 14, "LCM102")} <= found
    assert not [c for c in result.not_followed if "act" in c.text]


def test_a_function_unpacking_the_agent_follows_its_class(tmp_path, monkeypatch):
    result = _scan(tmp_path, monkeypatch, "rover.drive:evaluate")
    assert ("agents.py", 14, "LCM102") in {(Path(f.path).name, f.line, f.code) for f in result.findings}
    assert not [c for c in result.not_followed if "act" in c.text]
