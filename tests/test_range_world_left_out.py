"""A step of the world in the middle of an inline range is cut on purpose (the action leaves the pipeline there),
and the scan says so when that step runs project code (fixtures/scan_range_world_left_out): the project's own
environment `step`, or a project environment whose `step` comes from a base the scan does not have and runs
the class's hooks. Code there that computes the next observation is pipeline work outside the range."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy

GROUP = "scan_range_world_left_out"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_projects_environment_step_inside_a_range_is_listed_not_scanned(tmp_path, monkeypatch):
    result = scan_copy(GROUP, tmp_path, "rail_app", "drive.py:11-15", monkeypatch)
    assert not any(path == "rail.py" for path, _, _ in found(result))     # the world is not pipeline code
    [left] = [n for n in result.not_followed if n.line == 13]
    assert left.text == "env.step(...)"
    assert "runs the project's `Rail.step` (rail.py:9)" in left.reason
    assert "check it with `--entry rail:Rail.step`" in left.reason


def test_a_library_environments_step_around_project_hooks_is_listed_with_the_hooks(tmp_path, monkeypatch):
    result = scan_copy(GROUP, tmp_path, "lab_app", "play.py:12-16", monkeypatch)
    [left] = [n for n in result.not_followed if n.line == 15]
    assert "a project `ReachEnv` whose `step` comes from a base the scan does not have (`DirectRLEnv`)" in left.reason
    assert "(`_apply_action`, `_get_observations`, `_pre_physics_step`)" in left.reason
    assert "_get_rewards" not in left.reason      # a hook that neither acts nor observes


def test_a_range_ending_in_the_step_lists_nothing(tmp_path, monkeypatch):
    # the step is the range's end: the action leaves, and what the step returns is the next input
    result = scan_copy(GROUP, tmp_path, "rail_app", "drive.py:11-13", monkeypatch)
    assert not result.not_followed
