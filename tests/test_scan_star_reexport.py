"""A name a package re-exports with `from .solver import *` resolves to the module that defines it (the last
star import that defines the name wins, as in Python), so the pipeline's helper behind it is scanned
(fixtures/scan_star_reexport); before, the call was neither followed nor listed as not followed, and the scan
said "No hazards found"."""
from __future__ import annotations

import pytest
from scanfixture import check_marked

GROUP = "scan_star_reexport"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_star_reexported_helper_is_followed_to_its_defining_module(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "cell_app", "cell:Cell.act")
    assert ("tools/kinematics/solver.py", 7, "tensor-branch") in found
