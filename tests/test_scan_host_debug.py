"""Host-side code inside a step that the export loses nothing by dropping: fixed-text logs, a rate's sleep, a
sender's status bail-out (`return False` under a size check), recordings written to a named file, and an
existence test whose attribute only its own branch rebinds (fixtures/scan_host_debug)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_only_the_sends_and_the_file_writes_are_reported(tmp_path, monkeypatch):
    found = check_marked("scan_host_debug", tmp_path, monkeypatch, "glove_relay", "glove_relay:GloveRelay.tick")
    assert {category for *_, category in found} == {"io-in-pipeline"}


def test_a_rate_sleep_is_not_listed_as_unfollowed(tmp_path, monkeypatch):
    result = scan_copy("scan_host_debug", tmp_path, "glove_relay", "glove_relay:GloveRelay.tick", monkeypatch)
    assert result.not_followed and not any("sleep" in item.text for item in result.not_followed)
