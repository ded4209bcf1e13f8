"""Findings that are not hazards of the export (fixtures/scan_precision8): writes into a buffer LEAPP traces,
loops over a mapping, helpers called only for a report."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_writes_into_an_array_allocated_like_a_traced_one_are_traced(tmp_path, monkeypatch):
    hits = check_marked("scan_precision8", tmp_path, monkeypatch, "like_buffer_app", "gripper:Gripper.step")
    assert ("gripper.py", 16, "inplace-state") in hits   # `np.zeros(4)`: still an untraced buffer


def test_a_loop_over_a_mapping_takes_its_keys_not_array_items(tmp_path, monkeypatch):
    result = scan_copy("scan_precision8", tmp_path, "keyed_frames_app", "cameras:Cameras.encode", monkeypatch)
    assert "cameras:Cameras.encode" in result.reachable   # the entry was analysed
    assert not found(result)


def test_helpers_called_only_for_a_log_or_for_nothing_are_not_the_export(tmp_path, monkeypatch):
    hits = check_marked("scan_precision8", tmp_path, monkeypatch, "status_report_app", "station:Station.tick")
    assert ("station.py", 18, "scalar-extraction") in hits   # `clearance` scales the action: kept
    assert ("station.py", 44, "io-in-pipeline") not in hits  # a progress log: off the model's path


def test_settings_handed_on_through_args_and_kwargs_and_read_by_a_closure_decide_blocks(tmp_path, monkeypatch):
    hits = check_marked("scan_precision8", tmp_path, monkeypatch, "forwarded_settings_app", "planner:Planner.plan")
    assert ("planner.py", 30, "tensor-branch") in hits   # a real branch on the observation stays


def test_a_table_built_from_constants_and_only_read_by_helpers_is_no_pipeline_data(tmp_path, monkeypatch):
    hits = check_marked("scan_precision8", tmp_path, monkeypatch, "gain_table_app", "schedule:Smoother.step")
    assert ("schedule.py", 35, "tensor-branch") in hits


def test_shapes_built_from_the_rank_and_the_last_dimension_are_fixed(tmp_path, monkeypatch):
    hits = check_marked("scan_precision8", tmp_path, monkeypatch, "rank_view_app", "scaler:Scaler.apply")
    assert ("scaler.py", 27, "shape-specialization") in hits   # padding by a sequence length stays reported


def test_literal_settings_of_the_constructor_decide_the_blocks_they_guard(tmp_path, monkeypatch):
    hits = check_marked("scan_precision8", tmp_path, monkeypatch, "quiet_settings_app", "arm:Arm.act")
    assert ("arm.py", 23, "scalar-extraction") in hits   # `self.clamp`: another method sets it, the block stays
