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


def test_a_name_star_imported_through_a_chain_is_followed_and_one_from_an_unread_module_is_listed(tmp_path,
                                                                                                 monkeypatch):
    # `drive` imports `*` from `terrain`, which imports `*` from `geometry`, which defines `heading_error`; the
    # `calibrate` the step returns through comes from `from wheelbase_sdk import *`, a module the scan cannot read
    from scanfixture import scan_copy
    found = check_marked(GROUP, tmp_path, monkeypatch, "rover_chain_app", "nav.drive:drive_step")
    assert ("nav/geometry.py", 5, "scalar-extraction") in found
    result = scan_copy(GROUP, tmp_path / "again", "rover_chain_app", "nav.drive:drive_step", monkeypatch)
    listed = {(n.text, n.line) for n in result.not_followed}
    assert listed == {("calibrate(...)", 15)}
    assert all("wheelbase_sdk" in n.reason for n in result.not_followed)


def test_a_module_alias_taken_by_a_star_import_is_that_library(tmp_path, monkeypatch):
    # `from common import *` binds `np`, which `common` imports as numpy: `np.linalg.norm` is numpy's, flagged as
    # unmapped and not listed as a call of unknown code
    from scanfixture import scan_copy
    found = check_marked(GROUP, tmp_path, monkeypatch, "glider_numpy", "fly:Autopilot.act")
    assert found == {("fly.py", 10, "unmapped-numpy")}
    result = scan_copy(GROUP, tmp_path / "again", "glider_numpy", "fly:Autopilot.act", monkeypatch)
    assert [n.line for n in result.not_followed] == [12]   # only `self.net(...)`, handed in by no scanned caller
