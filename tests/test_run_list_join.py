"""A Python list of traced values inside a NumPy join (`np.hstack((x, [d, d * 0.5]))`): `scan` flags
the line (LCM304) and `run`'s verdict names it, although the exporters' own error names no line."""
from __future__ import annotations

import pytest
from test_run import assert_validated, cli, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_scan_flags_the_join_and_run_names_its_line(tmp_path):
    work = project(tmp_path, "run_list_join")
    before = tree_hash(work / "joinapp")
    scan = cli(["scan", "joinapp", "--entry", "joinapp.arm:act"], work)
    assert "joinapp/arm.py:15:11: LCM304" in scan.stdout
    generate(work, "joinapp", "joinapp.arm:act")
    proc, report = run_json(work)
    assert proc.returncode == 1 and report["status"] == "failed" and report["failed_stage"] == "lowering"
    assert "a NumPy join holds a Python list of traced values at joinapp/arm.py:15;" in report["error"]
    assert report["explained_by"][0].startswith("joinapp/arm.py:15 scalar-extraction")
    assert tree_hash(work / "joinapp") == before


def test_a_join_in_a_helper_is_twinned_into_one_array_and_validates(tmp_path):
    work = project(tmp_path, "run_list_join")
    module = generate(work, "joinapp", "joinapp.balance:Balancer.step", driver="main_balance.py")
    assert "return np.concatenate([dq * 0.1, twin_array([peak, mean])])" in module.read_text()
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["validation"]["across_run"]["ok"] is True
