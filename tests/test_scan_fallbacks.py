"""LCM203 by what can raise (fixtures/scan_fallbacks): `try` blocks that only read fail on structure and stay
clean, with a literal or a constant-array default alike; a numeric solve and a model call whose `except` gives a
constant (an early return of an array, a literal) are fallbacks the export never holds."""
from __future__ import annotations

import pytest
from scanfixture import check_marked


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_reads_are_clean_and_constant_defaults_of_computations_are_fallbacks(tmp_path, monkeypatch):
    found = check_marked("scan_fallbacks", tmp_path, monkeypatch, "kiln_app", "kiln:KilnController.heat")
    assert {line for _, line, code in found if code == "tensor-branch"} == {24, 28}
