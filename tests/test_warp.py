"""Warp kernels in the pipeline: the scan category, the generated setup (checked on CPU with
warp-lang), and `run` refusing in one line where LEAPP's Warp backend cannot work."""
from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import inprocess

from leapp_codemod.runner.warp_check import WarpFacts, problem

ROOT = Path(__file__).resolve().parents[1]
TOOL = [sys.executable, "-m", "leapp_codemod"]
ENTRY = "app.controller:JointController.torques"


def cli(args, cwd):
    if args[0] in inprocess.IN_PROCESS:       # what is printed and returned, not the process
        return inprocess.cli(args, cwd)
    return subprocess.run(TOOL + args, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


@functools.cache
def cuda_devices() -> int:
    """Asked when a test that depends on it is set up (a `skipif` string), not at collection: importing
    warp costs seconds of CPU in every worker, `make test-fast` too."""
    try:
        import warp as wp
        return len(wp.get_cuda_devices())
    except Exception:  # noqa: BLE001
        return 0


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    work = tmp_path_factory.mktemp("warp") / "ctl"
    shutil.copytree(ROOT / "fixtures" / "scan_warp_controller", work)
    proc = cli(["generate", ".", "--entry", ENTRY, "--driver", "main.py", "-o", "../integration.py"], work)
    assert proc.returncode == 0, proc.stderr
    return work


def test_scan_reports_warp_use_as_warnings(app):
    proc = cli(["scan", ".", "--entry", ENTRY, "--format", "json"], app)
    findings = json.loads(proc.stdout)["findings"]
    assert {(f["line"], f["code"], f["category"], f["severity"]) for f in findings} == {
        (line, "LCM402", "warp-kernel", "warning") for line in (21, 22, 23, 24)}
    launch = next(f for f in findings if f["line"] == 23)
    assert "launches a Warp kernel `pd_torque`" in launch["message"]
    assert "before `leapp.start(..., global_patching=True)`" in launch["fix"]


def test_generated_module_sets_warp_up(app):
    text = (app.parent / "integration.py").read_text()
    assert "WARP = True" in text
    assert 'EXPORTERS: tuple[str, ...] = ("onnx", "pt2")' in text
    assert "WARP_MIN_TRACES = 2" in text
    assert "def init_warp() -> None:" in text and "wp.init()" in text


@pytest.mark.slow
def test_generated_setup_runs_on_cpu_warp(app):
    """The generated module imports, initializes Warp and steps the real controller (no LEAPP session:
    annotations pass values through) with the same result as the application."""
    script = (
        "import sys, torch\n"
        f"sys.path[:0] = [{str(app.parent)!r}, {str(app)!r}]\n"
        "import integration as m\n"
        "m.init_warp()\n"
        "from app.controller import JointController\n"
        "c = JointController()\n"
        "q, qd = torch.randn(1, 6), torch.randn(1, 6)\n"
        "out = m.step(c.torques, q, qd)\n"
        "assert torch.equal(out, JointController().torques(q, qd)) and out.abs().sum() > 0\n"
        "print('ok', tuple(out.shape))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=app,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().endswith("ok (1, 6)")


def test_an_exporter_without_warp_support_is_refused(app):
    proc = cli(["generate", ".", "--entry", ENTRY, "--driver", "main.py", "-o", "../jit.py",
                "--export-with", "jit-script"], app)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("leapp-codemod: error: --export-with jit-script: the pipeline launches Warp kernels "
                                   "(app/controller.py:21); only onnx and pt2 can export them")


@pytest.mark.parametrize("facts, expected", [
    (WarpFacts(False, 0, False, ""), "warp-lang is not installed"),
    (WarpFacts(True, 0, True, ""), "no CUDA device is available on this machine"),
    (WarpFacts(True, 1, False, ""), "leapp's Warp extra (cupti-python) is not installed"),
    (WarpFacts(True, 1, True, "LEAPP Warp onnx runtime was not found at /x. Run leapp-build-warp-runtime"),
     "Run leapp-build-warp-runtime"),
    (WarpFacts(True, 1, True, ""), None),
])
def test_what_is_missing_is_named(facts, expected):
    reason = problem(facts)
    assert (reason is None) if expected is None else (expected in reason and "\n" not in reason)


@pytest.mark.e2e
@pytest.mark.skipif("cuda_devices() > 0", reason="this machine has CUDA")
def test_run_without_cuda_says_so_in_one_line(app):
    text = cli(["run", "../integration.py", "--out", "out"], app)      # one run: the text line and the report
    assert text.returncode == 1
    assert "Traceback" not in text.stderr + text.stdout
    report = json.loads((app / "out" / "report.json").read_text())
    assert report["error"] == ("the pipeline launches Warp kernels and LEAPP exports them only with CUDA: no CUDA "
                               "device is available on this machine; run on a machine with an NVIDIA GPU")
    assert report["failed_stage"] == "missing dependency"
    assert report["attempts"] == []
    assert text.stdout.splitlines()[0] == f"failed: {report['error']}"


@pytest.mark.e2e
@pytest.mark.skipif("cuda_devices() == 0", reason="a Warp export needs CUDA")
def test_run_exports_warp_kernels_with_cuda(app):
    proc = cli(["run", "../integration.py", "--out", "out_gpu", "--format", "json"], app)
    report = json.loads(proc.stdout)
    assert report["status"] == "validated", report.get("error")
    assert {a["backend"] for a in report["attempts"]} <= {"onnx", "pt2"}
