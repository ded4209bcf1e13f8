"""Benchmark scripts refuse a bad argument with one line and exit 2, before any timing starts."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCAN_SPEED = Path(__file__).resolve().parents[1] / "benchmarks" / "scan_speed.py"


def test_scan_speed_before_must_be_an_executable(tmp_path):
    # A build's folder instead of its leapp-codemod used to end in a PermissionError traceback mid-run.
    proc = subprocess.run([sys.executable, str(SCAN_SPEED), "--before", str(tmp_path)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"--before {tmp_path}: not an executable file" in proc.stderr
