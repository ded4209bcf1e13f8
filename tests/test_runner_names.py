"""Names read from an integration module are checked before any path is built from them."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from leapp_codemod.runner.names import problems

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("values", [
    {"GRAPH": "policy", "NODE": "policy", "ENTRY": "app.policy:Policy.act", "EXPORT_WITH": "onnx",
     "INPUTS": ("obs", "command"), "STATE": {"memory_h": ("m:C", "h")}},
    {"GRAPH": "exports/policy-v2", "NODE": "policy.v2"},
])
def test_valid_names_pass(values):
    assert problems(values) == []


@pytest.mark.parametrize(("values", "message"), [
    ({"GRAPH": "../outside"}, "GRAPH '../outside'"),
    ({"GRAPH": "/etc"}, "GRAPH '/etc'"),
    ({"GRAPH": ""}, "GRAPH ''"),
    ({"GRAPH": "a/./b"}, "GRAPH 'a/./b'"),
    ({"NODE": "a/b"}, "NODE 'a/b'"),
    ({"NODE": ".."}, "NODE '..'"),
    ({"ENTRY": "app.policy"}, "ENTRY 'app.policy'"),
    ({"EXPORT_WITH": "tensorrt"}, "EXPORT_WITH 'tensorrt'"),
    ({"INPUTS": ("obs-x",)}, "INPUTS"),
    ({"STATE": {"class": ("m:C", "h")}}, "STATE names"),
])
def test_unusable_names_are_refused(values, message):
    (problem,) = problems(values)
    assert problem.startswith(message)


def test_run_refuses_a_graph_name_that_leaves_the_output_directory(tmp_path):
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "data.txt").write_text("precious")
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.py").write_text("")
    (work / "integration.py").write_text('ENTRY = "app:f"\nAPP_ROOT = "."\nDRIVER = "main.py"\n'
                                         'GRAPH = "../../keep"\nNODE = "n"\nEXPORT_WITH = "onnx"\n')
    proc = subprocess.run([sys.executable, "-m", "leapp_codemod", "run", "integration.py", "--out", "out/x",
                           "--format", "json"], cwd=work, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2
    assert "GRAPH '../../keep' must be a relative name" in json.loads(proc.stdout)["error"]
    assert (keep / "data.txt").read_text() == "precious"
