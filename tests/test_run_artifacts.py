"""`run` writes each artifact once and prints paths relative to the working directory."""
from __future__ import annotations

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
def ran(tmp_path_factory):
    work = tmp_path_factory.mktemp("artifacts") / "run_mlp_numpy"
    shutil.copytree(ROOT / "fixtures" / "run_mlp_numpy", work, ignore=shutil.ignore_patterns("__pycache__"))
    made = subprocess.run(TOOL + ["generate", "mlpapp", "--entry", "mlpapp.pipeline:step", "-o", "integration.py"],
                          cwd=work, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    proc = subprocess.run(TOOL + ["run", "integration.py", "--out", str(work / "out")], cwd=work,
                          capture_output=True, text=True, timeout=300)
    return work, proc, json.loads((work / "out" / "report.json").read_text())


def test_the_validated_model_is_written_once_and_named_in_the_report(ran):
    work, proc, report = ran
    assert proc.returncode == 0, proc.stdout + proc.stderr
    models = sorted(p.relative_to(work).as_posix() for p in (work / "out").rglob("*.onnx"))
    assert models == report["models"] == ["out/step/step.onnx"]
    yamls = sorted(p.relative_to(work).as_posix() for p in (work / "out").rglob("*.yaml"))
    assert yamls == [report["graph_yaml"]]
    assert not (work / "out" / "attempts").exists()          # the only attempt held nothing else
    (attempt,) = report["attempts"]
    assert attempt["outcome"] == "validated" and attempt["directory"] == "step"


def test_paths_are_printed_relative_to_the_working_directory(ran):
    work, proc, report = ran
    lines = proc.stdout.splitlines()
    assert lines[-1] == "report: out/report.json"                 # --out was given as an absolute path
    assert str(work) not in proc.stdout
