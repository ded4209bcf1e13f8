"""Every input kept (issue 18, item 3), after the export: a declared input the application's outputs depend on
that the exported graph does not take (here a trim added as a Python float, so LEAPP finds the input unused)
fails the attempt naming it, although the driver never changes it during the run (no check on recorded calls
could see it). Declaring it in CONSTANT_INPUTS, as the refusal suggests, holds it at its traced value in every
check (before, the varied-input and element checks still varied it and the run failed anyway) and gives
`validated on a restricted domain` naming it, never a plain `validated` (real LEAPP, torch, onnxruntime)."""
from __future__ import annotations

import pytest
from test_run import cli, project, run_json, tree_hash

from leapp_codemod.runner.perturb import held, perturbed_inputs


def _generated(tmp_path):
    work = project(tmp_path, "run_dropped_input")
    gen = cli(["generate", "winch", "--entry", "winch.control:WinchControl.torque", "--driver", "main.py",
               "-o", "integration.py"], work)
    assert gen.returncode == 0, gen.stderr
    return work


@pytest.mark.e2e
def test_an_input_the_graph_dropped_fails_naming_it_and_a_declared_constant_is_a_restricted_domain(tmp_path):
    work = _generated(tmp_path)
    before = tree_hash(work / "winch")
    proc, report = run_json(work)
    assert proc.returncode != 0 and report["status"] == "failed"
    assert "the exported graph dropped input(s) 'trim'" in report["error"], report["error"]
    with (work / "integration.py").open("a") as module:
        module.write('\nCONSTANT_INPUTS = ("trim",)\n')
    proc, report = run_json(work)
    assert proc.returncode == 1 and report["status"] == "restricted", report.get("error")
    assert report["restricted_domain"]["because"][0].startswith("input trim held constant (CONSTANT_INPUTS)")
    assert report["validation"]["across_run"]["ok"] and report["validation"]["across_run"]["perturbed"]["ok"]
    assert tree_hash(work / "winch") == before


def test_varied_inputs_hold_the_declared_constants():
    import numpy as np

    calls = [{"tension": np.full(4, float(i)), "trim": np.array([0.25])} for i in range(3)]
    varied = perturbed_inputs(calls, 4, constant=("trim",))
    assert all(np.array_equal(v["trim"], [0.25]) for v in varied)
    assert any(not np.array_equal(v["tension"], c["tension"]) for v, c in zip(varied, calls))
    assert held("trim", ("trim",)) and held("cmd_0", ("cmd",)) and not held("tension", ("trim",))
