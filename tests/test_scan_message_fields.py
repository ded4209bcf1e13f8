"""LCM903 per part of a stored message: each field path the step reads off a value filled outside it is its own
input (`odom.pose.pose`, `odom.twist.twist.angular`, `odom.twist.twist.linear`; the `.x`/`.y` components of one
part are one), at most one report per statement, and a store into an attribute nothing reads is no input.
Shapes: a ROS 1 subscriber method storing a whole Odometry message, a module-global record a thread fills."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.scan import scan_project

BOAT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_message_fields"


def _outside(entry: str) -> list[int]:
    result = scan_project([str(BOAT)], entry=entry)
    assert result.errors == [], result.errors
    return sorted(f.line for f in result.findings if f.code == "LCM903")


def test_each_part_of_a_stored_message_is_its_own_input_and_an_unread_copy_is_none():
    # 21 position (x and y in one statement: one report), 22 angular and 23 linear velocity of the same twist;
    # 24 stores the header stamp on an attribute nothing reads
    assert _outside("boat.helm:Helm.steer") == [21, 22, 23]


def test_two_parts_of_a_module_global_record_a_thread_fills():
    assert _outside("boat.sonar:keel_step") == [32, 33]


def test_the_related_location_of_each_report_is_the_write():
    result = scan_project([str(BOAT)], entry="boat.helm:Helm.steer")
    for finding in (f for f in result.findings if f.code == "LCM903"):
        assert [(Path(r[0]).name, r[1]) for r in finding.related] == [("helm.py", 16)]


def test_a_value_a_thread_stores_is_pipeline_data_for_the_rules_downstream_and_reported_once():
    """The stored sample is the step's input: a TorchScript helper called on what is built from it is LCM111
    (25); the tensor built from its fields is reported once, as the read of an outside-filled value (LCM903 at
    24), not a second time as a list of Python numbers."""
    result = scan_project([str(BOAT)], entry="boat.vane:Vane.hold_course")
    assert result.errors == [], result.errors
    assert sorted((f.code, f.line) for f in result.findings) == [("LCM111", 25), ("LCM903", 24)]


def test_a_value_another_objects_timer_hands_over_is_pipeline_data_downstream():
    """The winch's reading is stored by `take`, which a bridge's timer calls: the TorchScript helper called on
    the tensor built from it (21) is LCM111, the read (20) LCM903 and nothing else."""
    result = scan_project([str(BOAT)], entry="boat.mast:Winch.step")
    assert result.errors == [], result.errors
    assert sorted((f.code, f.line) for f in result.findings) == [("LCM111", 21), ("LCM903", 20)]
