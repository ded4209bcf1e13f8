"""Precision fixes of round s24, each on a fixture of its own shape (fixtures/scan_precision24)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_variant


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_what_only_a_reporter_and_a_ruled_out_block_read_is_not_reported(tmp_path, monkeypatch):
    """A console dashboard (fields no other code reads, methods that print) is a report; a gait clock read only
    by a block the module's flag rules out is no state (analysis/infer/reporters, relevance._describe)."""
    found = check_marked("scan_precision24", tmp_path, monkeypatch, "walker", "walk.py:32-44")
    assert found == {("dashboard.py", 12, "io-in-pipeline")}


def test_the_clock_is_state_again_when_the_flag_lets_the_block_run(tmp_path, monkeypatch):
    result = scan_variant("scan_precision24", tmp_path, monkeypatch, "walker", "walk.py:32-44", "walk.py",
                          "USE_CLOCK = False", "USE_CLOCK = True")
    assert ("inplace-state", 37) in {(f.category, f.line) for f in result.findings}


def test_a_field_read_outside_the_class_makes_it_no_reporter(tmp_path, monkeypatch):
    """The step reading the dashboard's smoothed speed back makes what it is handed pipeline data again."""
    result = scan_variant("scan_precision24", tmp_path, monkeypatch, "walker", "walk.py:32-45", "walk.py",
                          "        with torch.no_grad():\n",
                          "        obs = obs * board().speed\n        with torch.no_grad():\n")
    assert ("unmapped-numpy", 34) in {(f.category, f.line) for f in result.findings}


def test_drawing_on_an_image_after_the_model_read_it_is_not_reported(tmp_path, monkeypatch):
    """`cv2.rectangle(rgb, ...)` fills `rgb` after the detector read it; only `cv2.imshow` reads it afterwards
    (a window for a person): the labels' `int()`/`float()` and the drawing calls are no findings
    (analysis/infer/slice_order, knowledge/vocab.DRAWING_FUNCTIONS)."""
    found = check_marked("scan_precision24", tmp_path, monkeypatch, "tracker", "follow.py:Follower.step")
    assert not {line for _, line, _ in found} & {20, 21, 22}


def test_drawing_before_a_read_that_matters_is_reported(tmp_path, monkeypatch):
    result = scan_variant("scan_precision24", tmp_path, monkeypatch, "tracker", "follow.py:Follower.step",
                          "follow.py", "        return command\n",
                          "        return command + torch.from_numpy(rgb).float().mean()\n")
    assert ("foreign-library", 21) in {(f.category, f.line) for f in result.findings}


def test_a_parameter_used_as_text_is_not_pipeline_data(tmp_path, monkeypatch):
    """`goal.strip().lower()` in an f-string: `goal` is text, so the prompt formats no pipeline number
    (analysis/model/text_params.TEXT_ONLY_METHODS)."""
    found = check_marked("scan_precision24", tmp_path, monkeypatch, "instructed", "policy.py:grasp_step")
    assert found == {("policy.py", 8, "tensor-branch")}
