"""Findings that are not hazards (fixtures/scan_precision): one hazard reported once, checks that only raise,
values scaled by a count, blocks a counter's own start value rules out, buffers nothing reads."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("scan_precision", tmp_path, app, entry, monkeypatch)


def test_sizes_are_reported_once_and_not_in_guards_or_scaled_values(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "sizes_app", "smooth:Smoother.step", monkeypatch))
    assert ("smooth.py", 6, "LCM001") in hits          # a size handed over as a value, branched on
    assert ("smooth.py", 6, "LCM201") not in hits      # ... reported once, as a shape branch
    assert not {code for _, line, code in hits if line == 17}   # `if x.shape[0] % groups: raise`
    assert ("smooth.py", 19, "LCM002") in hits         # the count mixed into a value: the baked size
    assert ("smooth.py", 20, "LCM102") in hits         # float() of the data
    assert ("smooth.py", 20, "LCM001") not in hits     # the scaled value is data, not a shape
