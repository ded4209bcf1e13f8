"""Rule reach on code shaped like real deploy scripts (fixtures/scan_recall): element extraction into
attributes and element read-modify-writes, arrays built from a copied message's field, draws from a
distribution a network of unknown class returns, and what is no hazard (cached reads, shape queries)."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("scan_recall", tmp_path, app, entry, monkeypatch)


def test_numpy_elements_into_fields_and_written_back_are_extractions(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "boat_app", "boat.helm:Helm.steer", monkeypatch))
    assert {("helm.py", line, "LCM104") for line in (12, 13, 27, 28)} <= hits


def test_torch_elements_into_fields_stay_traced(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "boat_app", "boat.helm:TorchHelm.steer", monkeypatch))
    assert not any(code == "LCM104" for _, _, code in hits)


def test_copied_message_distribution_and_cached_reads(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "arm_app", "arm.node:ArmNode.act", monkeypatch))
    assert ("node.py", 26, "LCM301") not in hits  # np.asarray of a deep-copied message's field: the input boundary
    assert ("node.py", 30, "LCM801") in hits      # pi.rsample()
    assert ("node.py", 27, "LCM301") not in hits  # np.size: a shape query
    assert not any(line in (21, 22) for _, line, _ in hits)   # the cached_property reads its file once


def test_module_global_filter_in_a_callee_is_state(tmp_path, monkeypatch):
    result = scan(tmp_path, "kart_app", "kart:drive", monkeypatch)
    hits = found(result)
    assert ("kart.py", 11, "LCM702") in hits                  # smoothed = 0.8 * smoothed + 0.2 * speed
    assert not any(line in (17, 23) for _, line, _ in hits)   # scratch written before read; laps unread


def test_module_global_rebound_in_an_inline_loop_is_carried_state(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "kart_app", "pit.py:9-11", monkeypatch))
    assert ("pit.py", 10, "LCM702") in hits                   # yaw_prev = yaw


def test_items_of_a_reading_from_before_an_inline_range_are_extractions(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "buoy_app", "loop.py:9-14", monkeypatch))
    assert ("loop.py", 9, "LCM104") in hits and ("loop.py", 10, "LCM104") in hits
    assert not any(line in (12, 13) for _, line, _ in hits)    # items of a tensor stay traced


def test_send_through_a_client_of_an_unread_library_is_io(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "gripper_app", "gripper:Gripper.close_on", monkeypatch))
    assert ("gripper.py", 29, "LCM901") in hits       # self.bus.send(...), servo_bus not installed
    assert ("gripper.py", 28, "LCM901") not in hits   # the project's own Outbox.send is followed


def test_a_cache_of_module_buffers_is_no_state_but_one_of_inputs_is(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "lens_app", "lens:Lens.rays", monkeypatch))
    assert ("lens.py", 19, "LCM702") not in hits     # self._scale from the Whitener's own buffer
    assert ("lens.py", 39, "LCM702") in hits         # self.first = pixels
    assert ("lens.py", 37, "LCM702") in hits         # self._k_inv from callback-written intrinsics


def test_a_flag_the_callers_set_to_literals_is_no_second_branch(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "buoy_app", "dock.py:13-19", monkeypatch))
    assert ("dock.py", 15, "LCM201") in hits       # the caller's branch on the distance
    assert ("dock.py", 5, "LCM201") not in hits    # `if slow:` in limit()


def test_tensordict_internals_are_quiet_and_the_wrapped_module_is_followed(tmp_path, monkeypatch):
    pytest.importorskip("tensordict")
    result = scan(tmp_path, "td_app", "agent:Agent.act", monkeypatch)
    assert found(result) == {("agent.py", 13, "LCM801")}    # Head.forward's draw, nothing from tensordict


def test_a_closure_bound_before_an_inline_range_is_followed(tmp_path, monkeypatch):
    result = scan(tmp_path, "closure_app", "rollout.py:15-16", monkeypatch)
    assert ("rollout.py", 7, "LCM801") in found(result)
    listed = {n.line: n.reason for n in result.not_followed}
    assert 15 not in listed                                   # act(...) is the closure, followed
    assert "enclosing make_actor" in listed[6]                # net(obs): make_actor's parameter
