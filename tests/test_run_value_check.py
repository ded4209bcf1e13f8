"""A value check whose other side only raises (`if torch.isnan(x).any(): raise ...`) in a helper: the
scan flags the branch, `generate` writes no replacement for it (one rule with `run`: source/guards.py),
and `run` validates with a note naming the check."""
from __future__ import annotations

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_a_raise_only_check_needs_no_stub_and_validates(tmp_path):
    work = project(tmp_path, "run_value_check")
    before = tree_hash(work / "gapp")
    module = generate(work, "gapp", "gapp.ctl:act").read_text()
    assert "NotImplementedError(STUB)" not in module and "PATCHES: tuple[Patch, ...] = ()" in module
    assert "gapp/ctl.py:12: `if torch.isnan(x).any(): raise ValueError(...)` only raises" in module
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert tree_hash(work / "gapp") == before
