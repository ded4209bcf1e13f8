"""Host work around the pipeline is not pipeline data (fixtures/scan_host_work): blocks a literal or a class
constant rules out (`if 0:`, `if self.trace_steps:`) and the helpers only they call; clock reads that feed only
logs, pacing loops or a timing message the step publishes; and a send through a client built before an inline
range, which is I/O. Each app marks its lines (`# expect: CATEGORY`, `# clean`); the scan reports exactly the
marked findings."""
from __future__ import annotations


import pytest
from scanfixture import check_marked

GROUP = "scan_host_work"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def check(tmp_path, monkeypatch, app: str, entry: str) -> set[tuple[str, int, str]]:
    return check_marked(GROUP, tmp_path, monkeypatch, app, entry)


def test_dead_blocks_and_host_timing_in_a_method(tmp_path, monkeypatch):
    found = check(tmp_path, monkeypatch, "sprayer_app", "sprayer:Sprayer.act")
    assert ("sprayer.py", 30, "io-in-pipeline") in found     # the clock read that reaches the action stays


def test_timing_message_and_send_in_an_inline_range(tmp_path, monkeypatch):
    found = check(tmp_path, monkeypatch, "relay_loop_app", "relay.py:20-25")
    assert found == {("relay.py", 24, "io-in-pipeline")}     # `bus` (an `lcm.LCM` built before the range)
