"""`generate` + `run` on a helper computing with `math` (`atan2`, `sin`, `cos`, `sqrt`, `math.pi`) on a float
attribute the step advances by dt on every call (real LEAPP, torch and onnxruntime on CPU): the helper gets
a twin whose `math` calls dispatch on their arguments (`twin_math`), the clock is declared as state by
`generate` and kept by `run` because the outputs read it, and the export validates."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from test_run import assert_validated, generate, project, run_json, tree_hash

from leapp_codemod.generate.derive import helper_sources


def test_twin_math_is_math_on_numbers_torch_on_tensors_numpy_on_arrays():
    ns: dict = {"np": np, "torch": torch, "math": math}
    exec(helper_sources({"twin_math"}), ns)  # noqa: S102 - the helper's own source, as modules carry it
    twin_math = ns["twin_math"]
    assert twin_math(torch.atan2, np.arctan2, math.atan2, 0.3, -0.2) == math.atan2(0.3, -0.2)
    assert type(twin_math(torch.sqrt, np.sqrt, math.sqrt, 2.0)) is float      # a host number stays a number
    t = twin_math(torch.atan2, np.arctan2, math.atan2, torch.tensor(0.3, dtype=torch.float64), -0.2)
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float64 and t.item() == math.atan2(0.3, -0.2)
    a = twin_math(torch.sin, np.sin, math.sin, np.full(1, 0.7))
    assert isinstance(a, np.ndarray) and a.shape == (1,) and a[0] == math.sin(0.7)


@pytest.mark.e2e
def test_a_math_clock_helper_gets_a_twin_its_clock_is_state_and_the_export_validates(tmp_path):
    work = project(tmp_path, "run_math_clock")
    before = tree_hash(work / "panner")
    module = generate(work, "panner", "panner.controller:PanTilt.command").read_text()
    assert "raise NotImplementedError(STUB)" not in module       # a twin, not a stub
    compact = "".join(module.split())
    assert "twin_math(torch.atan2,np.arctan2,atan2," in compact and "twin_math(torch.sqrt,np.sqrt,math.sqrt," in compact
    assert '"elapsed": ("panner.controller:PanTilt", "elapsed"),' in module       # declared by generate
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["state"] == {"elapsed": "self.elapsed"}
    (row,) = report["state_observed"]
    assert row["explained_by"].startswith("STATE['elapsed']") and row["kind"] == "counter"
    assert [r["ok"] for r in report["twin_check"]] == [True]
    assert report["validation"]["across_run"]["ok"]
    assert tree_hash(work / "panner") == before
