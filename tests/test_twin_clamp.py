"""A clamp written with Python's `min`/`max` on a value another helper computes (the scan flags the
comparison, LCM202): the twin writes elementwise choices instead of a stub, and Python numbers
still get Python's own min/max."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.test_run import generate, project, run_json, tree_hash


def test_a_flagged_builtin_clamp_becomes_twin_min_and_twin_max():
    from leapp_codemod.generate.twin import run_example
    from leapp_codemod.generate.twin.base import Example, Twin

    text = "def f(v, lo, hi):\n    return max(lo, min(hi, 2.0 * g(v)))\n"
    result = run_example(Example(text, (("tensor-branch", "max(lo, min(hi, 2.0 * g(v)))"),)), {})
    assert isinstance(result, Twin), result
    assert "return twin_max(lo, twin_min(hi, 2.0 * g(v)))" in result.source


def test_twin_min_max_keep_python_numbers_and_choose_elementwise_on_tensors():
    from leapp_codemod.generate.twin_helpers import twin_max, twin_min

    assert twin_min(1.0, 2.0) == 1.0 and isinstance(twin_max(1.0, 2.0), float)
    got = twin_max(-0.5, twin_min(0.5, torch.tensor([0.9, -0.9, 0.1])))
    assert torch.equal(got, torch.tensor([0.5, -0.5, 0.1]))
    assert np.array_equal(twin_min(np.array([1.0, 3.0]), 2.0), [1.0, 2.0])


@pytest.mark.e2e
def test_a_clamp_on_another_helpers_value_is_twinned_and_validates(tmp_path):
    work = project(tmp_path, "run_clamp_twin")
    module = generate(work, "rover", "rover.policy:RoverPolicy.act")
    text = module.read_text()
    assert "raise NotImplementedError(STUB)" not in text.split("def steering_scale_traceable", 1)[1].split("\n\n\n")[0]
    before = tree_hash(work / "rover")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert tree_hash(work / "rover") == before
