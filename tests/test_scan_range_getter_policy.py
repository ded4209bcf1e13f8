"""A range calls a policy that a getter of the project's runner returned before the range
(`act_fn = runner.policy_fn()` returning `self.learner.actor.forward_actor`, the runner unpacked from a builder's
tuple): the range's own view resolves the getter, and the method it returns is followed
(fixtures/scan_range_getter_policy)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_method_a_getter_returned_before_the_range_is_followed(tmp_path, monkeypatch):
    marked = check_marked("scan_range_getter_policy", tmp_path, monkeypatch, "walker_app", "evaluate.py:11-12")
    assert {(path, category) for path, _, category in marked} == {("walker/nets.py", "scalar-extraction")}


def test_the_getters_policy_call_is_not_listed_as_not_followed(tmp_path, monkeypatch):
    result = scan_copy("scan_range_getter_policy", tmp_path, "walker_app", "evaluate.py:11-12", monkeypatch)
    assert not result.not_followed


def test_a_getter_on_a_local_of_unknown_class_is_not_said_to_come_from_a_missing_module(tmp_path, monkeypatch):
    # `runner` is a local built by `cfg.make_runner()`: the reason names that binding, not a module
    result = scan_copy("scan_range_getter_policy", tmp_path, "unknown_app", "rollout.py:9-10", monkeypatch)
    (entry,) = result.not_followed
    assert "is built by `runner.inference_fn(...)`, whose result's class is unknown" in entry.reason
    assert "from a module" not in entry.reason
