"""A type test picks the branch (fixtures/scan_type_branch): where an enclosing test requires a value to be of
types none of which is a NumPy array (`isinstance(u, torch.Tensor)`), or not to be an `ndarray`, the value is
no NumPy array, so `u.view(-1)` is the tensor method; the NumPy branch keeps its finding."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_variant

GROUP = "scan_type_branch"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_branch_that_excludes_ndarray(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "gimbal_app", "gimbal:track")
    assert found == {("gimbal.py", 12, "unmapped-numpy")}


@pytest.mark.parametrize("test", ["isinstance(rates, torch.Tensor)", "isinstance(rates, (torch.Tensor, list))"])
def test_the_branch_that_requires_a_tensor(tmp_path, monkeypatch, test):
    result = scan_variant(GROUP, tmp_path, monkeypatch, "gimbal_app", "gimbal:track", "gimbal.py",
                          "not isinstance(rates, np.ndarray)", test)
    assert {(f.line, f.code) for f in result.findings} == {(12, "LCM302")}


def test_a_test_that_allows_an_array_narrows_nothing(tmp_path, monkeypatch):
    result = scan_variant(GROUP, tmp_path, monkeypatch, "gimbal_app", "gimbal:track", "gimbal.py",
                          "not isinstance(rates, np.ndarray)", "isinstance(rates, (torch.Tensor, np.ndarray))")
    assert (10, "LCM302") in {(f.line, f.code) for f in result.findings}
