"""A lambda handed to a call next to a nested handler (fixtures/scan_outside_globals/winch_app): its body is one
expression, not a statement list; `scan` and `entrypoints` read it without failing."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_copy

from leapp_codemod.analysis.entry.entrypoints import rank_entrypoints
from leapp_codemod.analysis.model.leapp_support import load_support
from leapp_codemod.scan.load import load_project


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_scan_reads_handed_lambdas(tmp_path, monkeypatch):
    found = check_marked("scan_outside_globals", tmp_path, monkeypatch, "winch_app", "winch:Winch.step")
    assert {(line, category) for _, line, category in found} == {(14, "scalar-extraction")}


def test_no_file_fails_on_a_handed_lambda(tmp_path, monkeypatch):
    result = scan_copy("scan_outside_globals", tmp_path, "winch_app", "winch:Winch.step", monkeypatch)
    assert result.errors == []


def test_entrypoints_rank_past_handed_lambdas(tmp_path, monkeypatch):
    check_marked("scan_outside_globals", tmp_path, monkeypatch, "winch_app", "winch:Winch.step")
    ranked = rank_entrypoints(load_project(["."], ()).project, load_support())
    assert "winch:Winch.step" in [f"{e.module}:{e.qualname}" for e in ranked]
