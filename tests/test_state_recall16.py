"""State and buffer findings the surrounding code used to silence (fixtures/state_recall16): a buffer on self
whose constructor only sets a `None` placeholder, allocated by the step (once, under `if self.x is None:`, or
on every call) and filled element-wise; a history rebound in the steady-state arm of a first-call branch."""
from __future__ import annotations

import pytest
from scanfixture import scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("state_recall16", tmp_path, app, entry, monkeypatch)


def by_line(result) -> dict[int, list]:
    out: dict[int, list] = {}
    for f in result.findings:
        out.setdefault(f.line, []).append(f)
    return out


def test_a_buffer_with_a_none_placeholder_is_still_a_filled_buffer(tmp_path, monkeypatch):
    lines = by_line(scan(tmp_path, "lazy_buffer_app", "gimbal:GimbalTracker.step", monkeypatch))
    # allocated once under `if self.features is None:` (the test reads it: kept from call to call) and filled
    # every call: in-place state, declared around the call
    assert [f.code for f in lines.get(16, [])] == ["LCM701"]
    assert [f.code for f in lines.get(17, [])] == ["LCM701"]
    assert "state_tensors" in lines[16][0].fix
    # allocated again by every call: a buffer whose fix is to build the value from its parts, not state
    assert [f.code for f in lines.get(19, [])] == ["LCM703"]
    assert [f.code for f in lines.get(20, [])] == ["LCM703"]
    assert "new array on every call" in lines[19][0].fix and "state_tensors" not in lines[19][0].fix
    assert not {code for line in (14, 15, 18) for code in (f.code for f in lines.get(line, []))}


def test_a_buffer_allocated_every_call_is_not_declared_as_state(tmp_path, monkeypatch):
    result = scan(tmp_path, "lazy_buffer_app", "gimbal:GimbalTracker.step", monkeypatch)
    declared = {s.attr for s in result.state}
    assert "features" in declared
    assert "frame" not in declared


def test_a_history_rebound_in_the_steady_state_arm_is_state(tmp_path, monkeypatch):
    lines = by_line(scan(tmp_path, "primed_window_app", "altitude:AltitudeHold.step", monkeypatch))
    assert "LCM702" in [f.code for f in lines.get(18, [])]       # the else arm reads what the last call left
    assert "LCM702" in [f.code for f in lines.get(15, [])]       # the seed writes the same state
    assert "LCM702" in [f.code for f in lines.get(20, [])]       # steady state in the if arm, seed in the else
    assert "LCM701" in [f.code for f in lines.get(22, [])]


def test_one_element_of_an_index_reduction_is_a_scalar_even_when_only_handed_on(tmp_path, monkeypatch):
    lines = by_line(scan(tmp_path, "gear_choice_app", "gearbox:choose_gear", monkeypatch))
    assert [f.code for f in lines.get(8, [])] == ["LCM104"]      # argmax(dim=-1) of a batch of one, then [0]
    assert "argmax(dim=-1)" in lines[8][0].message
    assert not lines.get(11)        # keepdim=True: [0] is a one-element row, still traced
    assert not lines.get(13)        # softmax keeps the axis: [0] is the first row


def test_elements_of_a_converted_action_written_field_by_field_into_a_bus_frame(tmp_path, monkeypatch):
    """`self.angles = net(x).detach().numpy().squeeze()` keeps a NumPy array on self (the constructor's
    `np.zeros` too): its elements written servo by servo into a frame's fields leave the trace (LCM104)."""
    lines = by_line(scan(tmp_path, "servo_frame_app", "hexapod:Hexapod.step", monkeypatch))
    assert [f.code for f in lines.get(29, [])] == ["LCM104"]
    assert "goal[k]" in lines[29][0].message
    assert not lines.get(26)        # the arithmetic on the whole array stays traced


def test_a_state_finding_names_where_the_step_reads_the_carried_value(tmp_path, monkeypatch):
    """The write stays the finding (the state output); the first read of the value the previous call left
    (the state input, here in the step before the helper that writes it) rides along as a related location
    in JSON, SARIF and text, without a second finding on the read."""
    import json

    from leapp_codemod.report.json_format import to_document
    from leapp_codemod.report.sarif import render_sarif
    from leapp_codemod.report.text import render_text
    from leapp_codemod.rules import ALL_RULES

    result = scan(tmp_path, "odometry_filter_app", "odom:OdomFilter.step", monkeypatch)
    lines = by_line(result)
    assert [f.code for f in lines.get(13, [])] == ["LCM702"]
    assert [(line, column) for _, line, column, _ in lines[13][0].related] == [(18, 23)]   # `self.memory` read
    assert {(line) for f in lines[14] + lines[15] for _, line, _, _ in f.related} == {19}   # `self.ring.mean`
    assert not lines.get(18) and not lines.get(19)          # the reads are no findings of their own
    doc = to_document(result)
    memory = next(f for f in doc["findings"] if f["line"] == 13)
    assert memory["related"][0]["line"] == 18 and "state input" in memory["related"][0]["message"]
    sarif = json.loads(render_sarif(result, ALL_RULES))
    located = next(r for r in sarif["runs"][0]["results"] if r["locations"][0]["physicalLocation"]["region"]
                   ["startLine"] == 13)
    assert located["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 18
    assert "odom.py:18:23: state input" in render_text(result)
