"""Parts of one TorchScript export called on their own (`encoder = policy.terrain.encoder` after `policy =
torch.jit.load(p).eval()`): submodules of a scripted module, networks LEAPP traces, not calls the scan could
not follow (fixtures/scan_script_submodules)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_submodules_of_a_loaded_script_module_are_networks_not_unfollowed_calls(tmp_path, monkeypatch):
    check_marked("scan_script_submodules", tmp_path, monkeypatch, "crawler", "crawl.py:13-16")
    result = scan_copy("scan_script_submodules", tmp_path / "again", "crawler", "crawl.py:13-16", monkeypatch)
    assert result.not_followed == ()
