"""A command-line switch the default run leaves off (`--smooth`, `action="store_true"`) decides which class the
constructor binds to `self.filter`: the step's `self.filter.apply(...)` runs the pass-through filter, not the
smoothing one and its state (fixtures/scan_cli_switch)."""
from __future__ import annotations

import ast

import pytest
from scanfixture import check_marked

from leapp_codemod.analysis.model.config_values import cli_decisions


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_filter_a_switch_left_off_would_bind_is_not_scanned(tmp_path, monkeypatch):
    found = check_marked("scan_cli_switch", tmp_path, monkeypatch, "glider_app", "glider:Glider.act")
    assert found == {("glider.py", 37, "tensor-branch")}


def test_switches_hold_their_value_when_not_given():
    tree = ast.parse(
        "import argparse\np = argparse.ArgumentParser()\n"
        "p.add_argument('--smooth', action='store_true')\n"
        "p.add_argument('--no-clip', dest='clip', action='store_false')\n"
        "p.add_argument('--mode', default='walk')\n"
        "p.add_argument('--gain', type=float, default=2.0)\n")
    assert cli_decisions(tree) == {"smooth": frozenset({False}), "clip": frozenset({True}),
                                   "mode": frozenset({"walk"})}
