"""Loop-carried values of inline ranges (fixtures/scan_recall15): a first-pass initialiser under a test on the
namespace (`if "x" not in globals():`) runs once, so the rebinding after it still reads the previous
iteration's value."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_filter_initialised_under_a_namespace_test_is_carried_state(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall15", tmp_path, "winch_app", "winch.py:8-13", monkeypatch))
    assert ("winch.py", 12, "LCM702") in hits          # pull_avg = pull_avg * 0.9 + pull * 0.1
    assert not any(line in (8, 9, 13) for _, line, _ in hits)
