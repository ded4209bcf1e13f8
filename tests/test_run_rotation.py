"""A helper composing two SciPy rotations (orientation error, with a mounting offset built at module
level outside the helper and a gain imported from another module) through `generate` + `run`."""
from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = [sys.executable, "-m", "leapp_codemod"]

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    work = tmp_path_factory.mktemp("rot") / "run_rotation"
    shutil.copytree(ROOT / "fixtures" / "run_rotation", work, ignore=shutil.ignore_patterns("__pycache__"))
    gen = subprocess.run(TOOL + ["generate", "attitude", "--entry", "attitude.policy:AttitudePolicy.act",
                                 "--driver", "main.py", "-o", "integration.py"], cwd=work, capture_output=True,
                         text=True, timeout=300)
    assert gen.returncode == 0, gen.stderr
    run = subprocess.run(TOOL + ["run", "integration.py", "--out", "out", "--format", "json"], cwd=work,
                         capture_output=True, text=True, timeout=600)
    return work, (work / "integration.py").read_text(), run, json.loads(run.stdout)


def test_the_twin_uses_adapters_and_the_constants_of_another_module(exported):
    _, text, _, _ = exported
    imported = {alias.name for node in ast.parse(text).body
                if isinstance(node, ast.ImportFrom) and node.module == "attitude.frames" for alias in node.names}
    assert {"ERROR_GAIN", "IMU_MOUNT"} <= imported
    flat = "".join(text.split())   # the module is formatted by ruff: compare without layout
    assert 'IMU_MOUNT*ADAPTERS["scipy.spatial.transform.Rotation"].function.from_quat(q_imu)' in flat
    assert "raise NotImplementedError(STUB)" not in text.split("STUB = ", 1)[1]


def test_the_orientation_error_validates_end_to_end(exported):
    work, _, run, report = exported
    assert run.returncode == 0, report.get("error")
    assert report["status"] == "validated" and "Traceback" not in run.stderr
    assert {p["patch"] for p in report["patch_parity"]} == {"attitude.policy.orientation_error",
                                                            "attitude.policy.gravity_in_base"}
    assert all(p["ok"] for p in report["patch_parity"])
    assert all(c["ok"] and c["samples"] > 0 for c in report["twin_check"])
    assert report["validation"]["ok"] and all(r["max_abs_error"] < 1e-4
                                              for r in report["validation"]["outputs"].values())
