"""A scan is static: it must not import torch, numpy or leapp (seconds of start-up, side effects)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
HEAVY = ("torch", "numpy", "leapp")

SCRIPT = r'''
import json, sys
from click.testing import CliRunner
from leapp_codemod.scan import scan_project
from leapp_codemod.cli import main

fixtures = sys.argv[1:]
findings = sum(len(scan_project([f]).findings) for f in fixtures)
runner = CliRunner()
for f in fixtures:
    for args in (["scan", f, "--no-cache"], ["scan", f, "--no-cache", "--all", "--format", "sarif"],
                 ["lint", f + "/app/__init__.py", "--no-cache"], ["entrypoints", f], ["rules"], ["explain", "LCM301"]):
        result = runner.invoke(main, args)
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "numpy", "leapp"))
print(json.dumps({"findings": findings, "heavy": heavy}))
'''


def test_scan_imports_no_torch_numpy_or_leapp():
    apps = [str(p) for p in sorted(FIXTURES.glob("scan_*")) if p.is_dir()]
    assert apps
    proc = subprocess.run([sys.executable, "-c", SCRIPT, *apps], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["findings"] > 0  # the scans really ran
    assert report["heavy"] == []


def test_probe_detects_a_heavy_import():
    """The check itself works: importing numpy shows up in sys.modules."""
    proc = subprocess.run([sys.executable, "-c", "import sys, numpy; print('numpy' in sys.modules)"],
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "True"


def test_scan_and_lint_do_not_load_the_generator():
    """`scan` and `lint` read with `ast`: LibCST and Jinja (what `generate` writes with) cost half a CPU
    second of every scan's start-up when imported."""
    app = FIXTURES / "run_mlp_numpy"
    code = ("import json, sys; from click.testing import CliRunner; from leapp_codemod.cli import main; "
            f"r = CliRunner().invoke(main, ['scan', {str(app)!r}, '--no-cache']); "
            f"l = CliRunner().invoke(main, ['lint', {str(app / 'mlpapp' / 'pipeline.py')!r}, '--no-cache']); "
            "print(json.dumps({'codes': [r.exit_code, l.exit_code], 'out': r.output[:200], "
            "'loaded': sorted(m for m in sys.modules if m.split('.')[0] in ('libcst', 'jinja2'))}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(report["codes"]) <= {0, 1} and "entry: mlpapp.pipeline:step" in report["out"], report   # it ran
    assert report["loaded"] == []
