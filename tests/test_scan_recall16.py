"""Rule gaps on reached code (fixtures/scan_recall16): numbers formatted into a prompt (LCM109), an exception
fallback path (LCM203), lists collected from a list parameter's entries made arrays (LCM301/LCM102), a table
read at a counter-derived index (LCM106, state-driven lookup)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def codes_at(result, name: str) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for f in result.findings:
        if f.path.endswith(name):
            out.setdefault(f.line, set()).add(f.code)
    return out


def test_numbers_formatted_into_a_prompt_are_reported_once_where_they_become_text(tmp_path, monkeypatch):
    check_marked("scan_recall16", tmp_path, monkeypatch, "prompt_arm_app", "arm:LanguageArm.act")
    codes = codes_at(scan_copy("scan_recall16", tmp_path / "again", "prompt_arm_app", "arm:LanguageArm.act",
                               monkeypatch), "arm.py")
    assert codes[14] == {"LCM109"} and codes[15] == {"LCM109"}   # the iterated items, the `%` of a parameter
    assert codes[23] == {"LCM102"}     # the cast inside `.format` is reported once, by the cast rule
    assert codes[20] == {"LCM901"}     # a print stays host I/O


def test_an_except_block_that_computes_the_result_another_way_is_reported(tmp_path, monkeypatch):
    hits = check_marked("scan_recall16", tmp_path, monkeypatch, "fallback_gait_app", "gait:Quadruped.act")
    assert hits == {("gait.py", 20, "tensor-branch")}


def test_lists_collected_from_a_list_parameters_entries_are_reported_when_made_arrays(tmp_path, monkeypatch):
    hits = check_marked("scan_recall16", tmp_path, monkeypatch, "swarm_batch_app", "swarm:fleet_command")
    assert ("swarm.py", 11, "unmapped-numpy") in hits and ("swarm.py", 12, "scalar-extraction") in hits


@pytest.mark.parametrize("app, entry, line", [
    ("reference_clip_app", "tracker:ClipTracker.act", 18),
    ("reference_replay_app", "replay.py:10-14", 12),
])
def test_a_table_read_at_a_counter_derived_index_is_a_state_driven_lookup(tmp_path, monkeypatch, app, entry, line):
    check_marked("scan_recall16", tmp_path, monkeypatch, app, entry)
    result = scan_copy("scan_recall16", tmp_path / "again", app, entry, monkeypatch)
    lookup = [f for f in result.findings if f.line == line and f.code == "LCM106"]
    assert len(lookup) == 1 and "state-driven lookup" in lookup[0].message


def test_a_flag_the_callers_loop_passes_a_test_on_its_counter_is_a_first_call_branch(tmp_path, monkeypatch):
    check_marked("scan_recall16", tmp_path, monkeypatch, "reset_flag_app", "walker:RecurrentWalker.act")
    result = scan_copy("scan_recall16", tmp_path / "again", "reset_flag_app", "walker:RecurrentWalker.act",
                       monkeypatch)
    varying = [f for f in result.findings if f.code == "LCM201" and "changes between calls" in f.message]
    assert [f.line for f in varying] == [13]   # `reset=t == 0`; not `deterministic=True`
