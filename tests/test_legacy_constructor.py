"""LCM105: the legacy typed constructors (`torch.FloatTensor(arr)`, `torch.Tensor(vals)`, `torch.LongTensor(idx)`)
of pipeline data are flagged with the constructor's dtype in the fix; sizes, constants and settings are not."""
from __future__ import annotations

import shutil
from pathlib import Path

from test_rule_examples import scan_snippet

from leapp_codemod.scan import scan_project

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "scan_legacy_tensors"


def legacy(result) -> dict[tuple[str, int], str]:
    return {(Path(f.path).name, f.line): f.fix for f in result.findings if f.code == "LCM105"}


def test_the_fixture_app_flags_each_constructor_of_data_with_its_dtype(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "app_copy"
    shutil.copytree(FIXTURE, root)
    monkeypatch.chdir(root)
    result = scan_project(["."], entry="app.actor:GraspActor.act")
    assert result.errors == []
    fixes = legacy(result)
    assert set(fixes) == {("features.py", 9), ("features.py", 14), ("features.py", 19)}
    assert "torch.as_tensor(arr, dtype=torch.float32)" in fixes[("features.py", 9)]
    assert "torch.as_tensor(bins, dtype=torch.int64)" in fixes[("features.py", 14)]
    assert "torch.stack" in fixes[("features.py", 19)] and "torch.stack" not in fixes[("features.py", 9)]


def test_a_cuda_constructor_keeps_its_device_in_the_fix(tmp_path):
    snippet = ("import numpy as np\nimport torch\ndef step(obs):\n    arr = np.asarray(obs) * 0.5\n"
               "    return torch.cuda.DoubleTensor(arr)\n")
    fixes = legacy(scan_snippet(tmp_path, snippet))
    assert list(fixes) == [("snippet.py", 5)]
    assert "torch.as_tensor(arr, dtype=torch.float64).cuda()" in fixes[("snippet.py", 5)]


def test_sizes_constants_and_settings_stay_silent(tmp_path):
    snippet = ("import torch\ndef step(obs, cfg):\n    a = torch.FloatTensor(obs.shape[0], 2)\n"
               "    b = torch.LongTensor([1, 2, 3])\n    c = torch.Tensor(cfg.offsets)\n"
               "    return obs * a.sum() + b.sum() + c.sum()\n")
    assert legacy(scan_snippet(tmp_path, snippet)) == {}
