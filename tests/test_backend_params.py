"""`generate --backend-param`: keys checked against the installed leapp's exporters, written into
output_tensors, passed per attempt of the fallback ladder only to exporters that read them."""
from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import inprocess
import pytest
from test_doc_examples import doc_group, find_session

from leapp_codemod.generate.backend_params import (
    BackendParamError,
    accepted_keys,
    check_keys,
    parse_assignments,
    split_for,
)

ROOT = Path(__file__).resolve().parents[1]
TOOL = [sys.executable, "-m", "leapp_codemod"]
ENTRY = "loco.policy:LocomotionPolicy.act"


def cli(args, cwd, env=None):
    if args[0] in inprocess.IN_PROCESS:       # what is printed and returned, not the process
        return inprocess.cli(args, cwd, env=env)
    return subprocess.run(TOOL + args, cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
                          env=dict(os.environ, **(env or {})))


def test_values_are_parsed_as_literals():
    assert parse_assignments(["opset_version=17", "optimize=false", "strict=True", "tag=fast", "rtol=1e-3"]) == {
        "opset_version": 17, "optimize": False, "strict": True, "tag": "fast", "rtol": 1e-3}
    for bad in (["opset_version"], ["=3"], ["a-b=1"], ["x=1", "x=2"]):
        with pytest.raises(BackendParamError):
            parse_assignments(bad)


def test_accepted_keys_are_read_from_the_installed_exporters():
    accepted = accepted_keys()
    assert {"opset_version", "optimize", "verify"} <= accepted.for_backend("onnx")
    assert "opset_version" in accepted.for_backend("onnx-torchscript")
    assert "optimize" not in accepted.for_backend("onnx-torchscript")
    assert accepted.for_backend("pt2") == frozenset({"strict"})
    assert "check_trace" in accepted.for_backend("jit-trace")      # forwarded to torch.jit.trace
    assert not any(k.startswith("_") for keys in accepted.by_backend.values() for k in keys)
    assert split_for({"opset_version": 17, "strict": True}, "pt2", accepted) == ({"strict": True}, ["opset_version"])
    with pytest.raises(BackendParamError, match="no LEAPP exporter accepts it"):
        check_keys({"opset": 17}, accepted)


def test_unknown_key_is_a_usage_error(tmp_path):
    work = tmp_path / "loco"
    shutil.copytree(ROOT / "fixtures" / "run_locomotion", work)
    proc = cli(["generate", "loco", "--entry", ENTRY, "--driver", "main.py", "-o", "i.py",
                "--backend-param", "opset=17"], work)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert "--backend-param opset: no LEAPP exporter accepts it" in proc.stderr
    assert not (work / "i.py").exists()


README_LOCO = find_session("fixtures/run_locomotion")   # its generate --backend-param ... + run


@pytest.fixture(scope="module")
def opset17(doc_session):
    """The README's `--backend-param` example (`doc_session`: one export, shared with the README example's
    test): (the application's folder, the module, the run, its report)."""
    ran = doc_session(README_LOCO)
    gen = ran.of("leapp-codemod generate loco --entry loco.policy:LocomotionPolicy.act --driver main.py -o "
                 "/tmp/loco/opset17.py --backend-param opset_version=17 --backend-param optimize=false "
                 "--backend-param strict=false")
    assert gen.returncode == 0, gen.stderr
    run = ran.of("LOCO_SIMULATOR=up leapp-codemod run /tmp/loco/opset17.py --out /tmp/loco/opset17")
    report = json.loads((ran.scratch / "loco" / "opset17" / "report.json").read_text())
    return ran.cwd, ran.scratch / "loco" / "opset17.py", run, report


@pytest.mark.e2e
@pytest.mark.xdist_group(doc_group(README_LOCO))
def test_opset_version_reaches_the_onnx_model(opset17):
    import onnx

    work, module, run, report = opset17
    assert run.returncode == 0, report.get("error")
    assert report["status"] == "validated"
    model = onnx.load(str(work / report["models"][0]))
    assert {o.domain: o.version for o in model.opset_import}[""] == 17
    first = report["attempts"][0]
    assert first["backend"] == "onnx"
    assert first["backend_params"] == {"passed": {"opset_version": 17, "optimize": False},
                                       "not_accepted": ["strict"]}
    text = module.read_text()
    (assigned,) = [node for node in ast.parse(text).body
                   if isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == "BACKEND_PARAMS"]
    assert ast.unparse(assigned.annotation) == "dict[str, Any]"
    assert ast.literal_eval(assigned.value) == {"opset_version": 17, "optimize": False, "strict": False}
    assert list(ast.literal_eval(assigned.value)) == ["opset_version", "optimize", "strict"]    # as given
    assert "backend_params=backend_params(EXPORT_WITH)" in text


@pytest.mark.e2e
@pytest.mark.xdist_group(doc_group(README_LOCO))
def test_each_ladder_attempt_gets_only_its_keys(opset17):
    work, module, _, _ = opset17
    run = cli(["run", str(module), "--out", str(module.parent / "out_pt2"), "--format", "json",
               "--require-format", "pt2"], work, {"LOCO_SIMULATOR": "up"})
    report = json.loads(run.stdout)
    assert report["status"] == "validated", report.get("error")
    assert report["attempts"][0]["backend"] == "pt2"
    assert report["attempts"][0]["backend_params"] == {"passed": {"strict": False},
                                                       "not_accepted": ["opset_version", "optimize"]}
