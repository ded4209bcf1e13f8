"""Replacements checked under a real trace, end to end on two applications of their own shape:

* `twin_rover`: a rover whose helpers unpack a planar pose into Python numbers and build an array
  from them, chain two SciPy rotations, and index a constant table of speed limits with the class
  the network picks. Its twins validate; the same module with the unpacking put back is refused
  before tracing, naming the argument LEAPP would have dropped.
* `twin_filter`: a force controller that low-pass filters with `scipy.signal.lfilter` and carries
  the filter state `zi` between calls, then decouples axes with `np.linalg.inv`: it validates with the
  state exported; its `np.linalg.lstsq` variant (no adapter) stops with "stub not written: file:line".
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import inprocess
import pytest

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _cli(args, cwd):
    return subprocess.run([sys.executable, "-m", "leapp_codemod", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, check=False)


def _app(tmp_path, name, package, entry, driver="main.py"):
    work = tmp_path / name
    shutil.copytree(FIXTURES / name, work, ignore=shutil.ignore_patterns("__pycache__"))
    proc = inprocess.cli(["generate", package, "--entry", entry, "--driver", driver, "-o", "integration.py"], work)
    assert proc.returncode == 0, proc.stderr
    before = {p: p.read_bytes() for p in (work / package).rglob("*.py")}
    return work, before


def _run(work):
    proc = _cli(["run", "integration.py", "--out", "out", "--format", "json"], work)
    return proc, json.loads(proc.stdout)


def test_rover_twins_keep_every_argument_and_validate(tmp_path):
    work, before = _app(tmp_path, "twin_rover", "rover", "rover.policy:RoverPolicy.act")
    text = (work / "integration.py").read_text()
    assert "x, y, yaw = twin_unpack(pose, 3)" in text and "twin_take(SPEED_LIMITS, gear)" in text
    assert text.count('ADAPTERS["scipy.spatial.transform.Rotation"].function.from_rotvec') == 2
    proc, report = _run(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    rows = {r["patch"]: r for r in report["twin_check"]}
    assert set(rows) == {"rover.policy.goal_in_body", "rover.policy.level", "rover.policy.speed_limit"}
    assert all(r["ok"] and r["traced"] for r in rows.values())
    assert all(p.read_bytes() == data for p, data in before.items())

    # the twin as it was written before the unpacking rule: values agree, the trace drops the pose
    shutil.rmtree(work / "out")
    (work / "integration.py").write_text(text.replace("twin_unpack(pose, 3)", "pose"))
    proc, report = _run(work)
    assert proc.returncode == 1 and report["failed_stage"] == "twin-check"
    assert re.search(r"FunctionPatch rover\.policy\.goal_in_body .* argument `pose` changes the original's result "
                     r"but reaches no output of the traced replacement", report["error"]), report["error"]
    assert not (work / "out" / "attempts").exists()


def test_filter_state_carried_through_lfilter_validates(tmp_path):
    work, before = _app(tmp_path, "twin_filter", "smoothing", "smoothing.controller:ForceController.act")
    text = (work / "integration.py").read_text()
    assert 'ADAPTERS["scipy.signal.lfilter"]' in text and '"filter_state"' in text
    proc, report = _run(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert {r["patch"] for r in report["twin_check"]} >= {"scipy.signal.lfilter", "numpy.linalg.inv"}
    assert all(r["ok"] for r in report["twin_check"])
    assert all(p.read_bytes() == data for p, data in before.items())


def test_a_library_call_without_adapter_is_a_stub_that_stops_run_before_tracing(tmp_path):
    work, _ = _app(tmp_path, "twin_filter", "smoothing", "smoothing.controller:ForceController.act_robust")
    text = (work / "integration.py").read_text()
    stub = re.search(r"def lstsq_traceable\(\*args, \*\*kwargs\):\n(?:    .*\n)*?    raise NotImplementedError\(STUB\)",
                     text)
    assert stub and "smoothing/controller.py:29" in stub.group(0)
    proc = _cli(["run", "integration.py", "--out", "out"], work)
    assert proc.returncode == 1
    assert proc.stdout.startswith("failed: stub not written: smoothing/controller.py:29 (lstsq_traceable at "
                                  "integration.py:"), proc.stdout
    assert not (work / "out" / "attempts").exists()
