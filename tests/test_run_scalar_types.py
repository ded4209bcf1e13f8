"""NumPy scalar types called on pipeline data (`np.float32(x)`) are no stubs (real LEAPP, torch and onnxruntime
on CPU): in a module-level helper the twin converts the traced value to the dtype (`twin_numpy_scalar`), and in a
method (no twin) the type is never patched, since a patch would replace a type the pipeline also uses as a dtype;
a host counter or switch keeps the constructor as written."""
from __future__ import annotations

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_numpy_scalar_types_get_a_twin_and_no_stub_and_the_export_validates(tmp_path):
    work = project(tmp_path, "run_scalar_types")
    before = tree_hash(work / "trimapp")
    generate(work, "trimapp", "trimapp.controller:RateController.command")
    module = (work / "integration.py").read_text()
    assert "NotImplementedError(STUB)" not in module.split("STUB = ")[1].split("@dataclass")[0]
    assert "twin_numpy_scalar(np.float32, rates.mean())" in module
    assert '"numpy",\n        "float32"' not in module and "float32_traceable" not in module
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert "stubs" not in report and report["validation"]["across_run"]["ok"]
    assert tree_hash(work / "trimapp") == before
