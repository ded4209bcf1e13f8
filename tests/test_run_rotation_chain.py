"""A SciPy rotation chain written in a driver's loop (`R.from_quat(q).inv().apply(g)`,
`R.from_quat(q).apply(v, inverse=True)`), exported as an inline range (real LEAPP, SciPy, torch,
onnxruntime). LEAPP's FunctionPatch replaces module-level functions only; `run` diverts the range's
own `R` binding to the Rotation adapter while tracing, so the chain traces and validates instead of
ending at a stub (`generate` writes none for it)."""
from __future__ import annotations

import pytest
from test_run import cli, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_rotation_chain_in_a_range_uses_the_rotation_adapter_and_validates(tmp_path):
    work = project(tmp_path, "inline_rotation_chain")
    before = tree_hash(work)
    gen = cli(["generate", ".", "--entry", "hover.py:27-31", "-o", "integration.py"], work)
    assert gen.returncode == 0, gen.stderr
    module = (work / "integration.py").read_text()
    assert "raise NotImplementedError(STUB)" not in module and "from_quat_traceable" not in module
    assert "diverts scipy.spatial.transform.Rotation to its torch adapter while" in module
    proc, report = run_json(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert report["validation"]["across_run"]["ok"] and len(report["validation"]["across_run"]["later_calls"]["calls"]) >= 8
    after = tree_hash(work)
    assert {k: v for k, v in after.items() if k in before} == before


def test_a_rotation_chain_in_a_method_entry_validates(tmp_path):
    """The same chain in the entry method's own body (`Rotation.from_quat(q).inv().apply(g)`): the entry's
    module binding `Rotation` is diverted while tracing."""
    work = project(tmp_path, "run_rotation_entry")
    before = tree_hash(work / "imuapp")
    gen = cli(["generate", "imuapp", "--entry", "imuapp.est:Leveler.act", "--driver", "main.py", "-o",
               "integration.py"], work)
    assert gen.returncode == 0, gen.stderr
    assert "raise NotImplementedError(STUB)" not in (work / "integration.py").read_text()
    proc, report = run_json(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    perturbed = report["validation"]["across_run"]["perturbed"]       # calls on varied inputs
    assert perturbed["ok"] and perturbed["steps"] >= 8
    assert tree_hash(work / "imuapp") == before
