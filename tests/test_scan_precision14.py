"""Findings that are not hazards of the export (fixtures/scan_precision14): the truth of Python text, a guard
that rejects an empty list."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_truth_of_python_text_and_an_empty_list_guard_are_no_branch_on_data(tmp_path, monkeypatch):
    hits = check_marked("scan_precision14", tmp_path, monkeypatch, "captioned_frames_app",
                        "narrator:Narrator.describe")
    assert ("narrator.py", 30, "shape-specialization") in hits   # the count of frames kept stays a shape branch
    assert ("narrator.py", 32, "tensor-branch") in hits          # a guard on pixel values stays reported


def test_the_data_field_of_a_pipeline_tensor_is_reported_and_other_data_fields_are_not(tmp_path, monkeypatch):
    hits = check_marked("scan_precision14", tmp_path, monkeypatch, "plain_tensor_app", "grip:Grip.close")
    assert ("grip.py", 14, "scalar-extraction") in hits   # a local bound to a torch function's answer
    assert ("grip.py", 16, "scalar-extraction") in hits   # a tensor method applied to the field


def test_a_flag_the_step_flips_and_state_it_creates_are_reported_as_first_call_branches(tmp_path, monkeypatch):
    result = scan_copy("scan_precision14", tmp_path, "warm_start_app", "smoother:Smoother.track", monkeypatch)
    check_marked("scan_precision14", tmp_path / "again", monkeypatch, "warm_start_app", "smoother:Smoother.track")
    varying = {f.line for f in result.findings if f.code == "LCM201" and "changes between calls" in f.message}
    assert varying == {12, 17}   # `hasattr(self, "_last_target")`, `not self.primed`; not `hasattr(self, "blend")`
