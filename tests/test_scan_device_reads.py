"""Reads of a device the scan can neither follow nor model (fixtures/scan_device_reads).

The vendor SDK's object is made in the step's class (`winchsdk.UdpLink(...)`) and is in no scanned or installed
module. Its calls spelled in CamelCase (`Recv`, `Send`) are the same socket I/O as `recv`/`send`; a reading through
a field or item of the device (`self.rig.drums["main"].read(...)`) made into an array is pipeline data; and a bare
`Recv()` that refreshes what a later `GetRecv(self.state)` copies out lies on the model's path, so its finding is
kept with the model's. A struct of the same SDK that a device call (not a send) is handed is filled with what the
device read: pipeline data wherever it goes."""
from __future__ import annotations

import pytest
from scanfixture import check_marked

GROUP = "scan_device_reads"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_vendor_link_and_a_drum_of_the_rig_are_the_steps_io_and_data(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "winch_app", "winch:Winch.tick")
    assert found == {("winch.py", 16, "io-in-pipeline"), ("winch.py", 20, "tensor-branch"),
                     ("winch.py", 23, "io-in-pipeline")}


def test_a_frame_the_vendor_link_fills_is_the_observations_data(tmp_path, monkeypatch):
    # `link.ReadInto(frame)` with `frame = armsdk.StateFrame()`: the SDK's own struct holds what the device read,
    # so the helper's copies of its fields into a fresh `np.zeros` buffer are found, as is the CamelCase `Recv`
    found = check_marked(GROUP, tmp_path, monkeypatch, "arm_script", "drive_arm.py:21-24")
    assert {line for path, line, _ in found} == {10, 11, 12, 21}


def test_two_names_bound_to_each_other_still_reach_the_port_the_sdk_opened(tmp_path, monkeypatch):
    # `spare = port` and `port = spare` in the driver's loop: following what the entry's `port` is handed goes
    # round that cycle once, then stops at the `relaysdk.Port(...)` the names started from
    found = check_marked(GROUP, tmp_path, monkeypatch, "relay_swap", "relay:relay_step")
    assert found == {("relay.py", 10, "tensor-branch")}
