"""Items a method puts into a local container that it then stores on `self` are the attribute's items: a call
of one runs its class (fixtures/scan_filled_container)."""
from __future__ import annotations

from pathlib import Path

import pytest
from scanfixture import FIXTURES, marked_lines, scan_copy

APP = FIXTURES / "scan_filled_container" / "fusion_app"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_an_item_of_a_container_filled_in_a_local_is_followed(tmp_path, monkeypatch):
    result = scan_copy("scan_filled_container", tmp_path, "fusion_app", "fusion.head:FusionHead.forward", monkeypatch)
    assert marked_lines(APP, "hazard")["filled_local"] in {(Path(f.path).name, f.line) for f in result.findings}
    assert marked_lines(APP, "shape")["filled_local"] not in {(Path(n.path).name, n.line) for n in result.not_followed}
