"""Checks across the whole run: a branch on tensor data that flips only after call 20 is caught on
the calls sampled after the export, and one that never flips during the run gives `validated on a
restricted domain` naming the branch, never a plain `validated`."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from leapp_codemod.runner import runon
from leapp_codemod.runner.perturb import is_quaternion, perturbed_inputs, varied
from tests.test_run import cli, generate, project, run_json, tree_hash


def test_perturbed_inputs_stay_in_range_move_constants_and_keep_quaternions_unit():
    rng = np.random.default_rng(1)
    calls = []
    for _ in range(6):
        q = rng.normal(size=4)
        calls.append({"obs": {"q": torch.tensor(q / np.linalg.norm(q), dtype=torch.float32),
                              "gravity": np.array([0.0, 0.0, -1.0], dtype=np.float32)},
                      "speed": np.array([rng.uniform(0.5, 1.5)], dtype=np.float64), "mode": np.array([2])})
    out = perturbed_inputs(calls, 10)
    speeds = np.array([c["speed"][0] for c in calls])
    assert len(out) == 10
    for o in out:
        assert speeds.min() <= o["speed"][0] <= speeds.max() and o["speed"].dtype == np.float64
        assert abs(float(torch.linalg.norm(o["obs"]["q"])) - 1.0) < 1e-5 and o["obs"]["q"].dtype == torch.float32
        assert not np.array_equal(o["obs"]["gravity"], calls[0]["obs"]["gravity"])     # a constant is moved
        assert o["mode"] is calls[0]["mode"] or np.array_equal(o["mode"], [2])             # integers kept
    assert is_quaternion([c["obs"]["q"].numpy() for c in calls])
    assert varied(calls) == {"obs_q": True, "obs_gravity": False, "speed": True, "mode": False}


@pytest.mark.e2e
def test_a_branch_that_flips_after_call_20_fails_on_the_later_calls(tmp_path):
    work = project(tmp_path, "run_later")
    generate(work, "battapp", "battapp.drive:WheelController.wheels")
    before = tree_hash(work / "battapp")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert proc.returncode == 1 and report["status"] == "failed"
    attempt = report["attempts"][0]
    assert attempt["leapp_validation"] == {"wheel_controller": True}   # the traced and fresh calls all agree
    assert all(c["ok"] for c in attempt["validation"]["calls"])
    later = attempt["validation"]["across_run"]["later_calls"]["calls"]
    bad = [c["call"] for c in later if not c["ok"]]
    assert bad and min(bad) > 20 and all(c["ok"] for c in later if c["call"] < 25)
    assert "battapp/drive.py:15" in report["error"]
    assert tree_hash(work / "battapp") == before


@pytest.mark.e2e
def test_a_branch_that_never_flips_is_validated_only_on_a_restricted_domain(tmp_path):
    work = project(tmp_path, "run_later")
    generate(work, "battapp", "battapp.drive:WheelController.wheels", driver="main_steady.py")
    text = cli(["run", "integration.py", "--out", "out", "--require-format", "onnx"], work)   # one run: text and report
    report = json.loads((work / "out" / "report.json").read_text())
    assert text.returncode == 1 and report["status"] == "restricted"
    limits = report["restricted_domain"]
    assert limits["because"][0].startswith("battapp/drive.py:15 tensor-branch")
    assert "calls sampled every" in limits["domain_checked"] and "varied within" in limits["domain_checked"]
    assert text.stdout.startswith("validated on a restricted domain: battapp.drive:WheelController.wheels")
    assert not text.stdout.startswith("validated:")


@pytest.mark.e2e
def test_a_driver_that_waits_forever_after_the_export_is_stopped(tmp_path, monkeypatch):
    import time as clock

    work = project(tmp_path, "run_later")
    generate(work, "battapp", "battapp.drive:WheelController.wheels", driver="main_serve.py")
    # The run-on budget and the watchdog's grace shortened from 20 + 10 s (runner/runon.py): the driver
    # sleeps forever after its last call, so only the watchdog ends it, 3 + 2 s after the export.
    monkeypatch.setenv(runon.ENV, "3:2")
    started = clock.monotonic()
    proc, report = run_json(work, "integration.py", "--require-format", "onnx", "--timeout", "400", timeout=450)
    assert report["status"] == "restricted" and clock.monotonic() - started < 300    # not the run timeout (400 s)
    assert "letting the driver run on (up to 3 s)" in proc.stderr
    across = report["attempts"][0]["validation"]["across_run"]
    assert across["ok"] is True
    assert [c["call"] for c in across["later_calls"]["calls"]] == [9, 10]   # the two calls after the export


def test_the_run_on_durations_come_from_one_variable():
    assert runon.from_environ({}) == runon.RunOn(runon.BUDGET, runon.GRACE)
    assert runon.from_environ({runon.ENV: "3:2"}).watchdog == 5.0
    assert runon.from_environ({runon.ENV: " 4 "}) == runon.RunOn(4.0, runon.GRACE)
    for bad in ("x", "0", "-1:2", "3:", "3:0", "nan", "inf:1", "1:2:3"):
        with pytest.raises(ValueError, match=rf"^{runon.ENV}='.*': expected BUDGET or BUDGET:GRACE"):
            runon.from_environ({runon.ENV: bad})


@pytest.mark.e2e
def test_a_bad_run_on_setting_fails_with_one_line(tmp_path, monkeypatch):
    work = project(tmp_path, "run_later")
    generate(work, "battapp", "battapp.drive:WheelController.wheels", driver="main_serve.py")
    monkeypatch.setenv(runon.ENV, "soon")
    proc, report = run_json(work, "integration.py")
    assert proc.returncode != 0 and report["status"] == "failed"
    assert report["error"].startswith(f"{runon.ENV}='soon': expected BUDGET or BUDGET:GRACE")
