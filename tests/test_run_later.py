"""Checks across the whole run: a branch on tensor data that flips only after call 20 is caught on
the calls sampled after the export, and one that never flips during the run gives `validated on a
restricted domain` naming the branch, never a plain `validated`."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

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
def test_a_driver_that_waits_forever_after_the_export_is_stopped(tmp_path):
    import time as clock

    work = project(tmp_path, "run_later")
    generate(work, "battapp", "battapp.drive:WheelController.wheels", driver="main_serve.py")
    started = clock.monotonic()
    proc, report = run_json(work, "integration.py", "--require-format", "onnx", "--timeout", "400", timeout=450)
    assert report["status"] == "restricted" and clock.monotonic() - started < 300    # not the run timeout (400 s)
    assert report["attempts"][0]["validation"]["across_run"]["ok"] is True
