"""Calls from followed library code back into the project (fixtures/lib_callbacks, six small apps of different
shapes, each its own scan root, scanned with the installed skrl and Stable-Baselines3).

The library object is built by the project; the library's code later calls what the project handed it. The
receiver inside the library is bound from how the project built the library object: constructor arguments that
reach a base class through the subclass's `super().__init__(...)` (skrl `PPO(models=...)`, SB3 `PPO(Policy, env)`),
a `*_kwargs` dict whose `*_class` names the class the library builds (SB3 `policy_kwargs`), an attribute the project
stores on the library object afterwards. A receiver that may hold project code and stays unknown is listed as not
followed, naming the project's construction site.
"""
from __future__ import annotations

import functools
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod.cli import main
from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash
from test_scan_fixtures import markers

pytest.importorskip("skrl")
pytest.importorskip("stable_baselines3")

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "lib_callbacks"


@functools.lru_cache(maxsize=None)
def _scan(app: str, entry: str):
    """One scan per app and entry for the whole module (the results are only read)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT / app)   # paths (and an inline entry's file) read from the app's root
        result = scan_project(["."], entry=entry)
    assert result.errors == [], result.errors
    return result


def _found(result) -> set[tuple[str, int, str]]:
    return {(f.path, f.line, f.code) for f in result.findings}


APPS = {
    "skrl_gym": "gymloop/evaluate.py:18-20",                  # a Gym loop, a models dict held in a local
    "sb3_node": "lidar_node.node:LidarPolicyNode.on_scan",    # a node class, SAC with a `policy_kwargs` local
    "sb3_script": "depthnav.run_nav:act",                     # a module global, PPO with a `policy_kwargs` literal
    "sb3_class": "balance.play:rollout",                      # a policy class by position, the model a parameter
    "skrl_server": "grasp_server.policy:handle_request",      # a policy stored on the agent after construction
    "skrl_loader": "planner.agent:Planner.plan",              # models from a loader the scan cannot read
}


@pytest.mark.parametrize("app", sorted(set(APPS) - {"skrl_loader"}))   # the loader's model is never read
def test_every_marked_hazard_in_project_code_behind_the_library_is_found(app):
    result = _scan(app, APPS[app])
    expected, clean = markers(ROOT / app)
    assert expected
    found = {(f.path, f.line, f.category) for f in result.findings}
    assert expected <= found, expected - found
    assert not {(p, n) for p, n, _ in found} & clean


def test_skrl_models_dict_reaches_the_project_model_through_the_agent_base():
    result = _scan("skrl_gym", "gymloop/evaluate.py:18-20")
    assert "gymloop.models:ReachActor.compute" in result.reachable      # PPO.act -> DeterministicMixin.act -> compute
    assert "gymloop.models:ReachCritic.compute" not in result.reachable  # the value model is not on the act path
    assert ("gymloop/models.py", 14, "LCM201") in _found(result)
    bound = [b for b in result.bound_calls if b.text == "self.policy.act(...)"]
    assert bound and bound[0].targets == ("gymloop.models:ReachActor",)
    assert "`models`" in bound[0].how and "gymloop/evaluate.py:14" in bound[0].how
    assert result.not_followed == ()


def test_sb3_features_extractor_named_in_policy_kwargs_is_followed():
    result = _scan("sb3_node", "lidar_node.node:LidarPolicyNode.on_scan")
    assert "lidar_node.extractor:RangeExtractor.forward" in result.reachable
    assert ("lidar_node/extractor.py", 15, "LCM101") in _found(result)


def test_sb3_extractor_shared_under_another_attribute_is_bound_where_the_library_calls_it():
    result = _scan("sb3_script", "depthnav.run_nav:act")
    assert "depthnav.encoder:DepthEncoder.forward" in result.reachable
    bound = [b for b in result.bound_calls if b.text == "features_extractor(...)"]
    assert bound and bound[0].path == "stable_baselines3/common/policies.py"
    assert bound[0].targets == ("depthnav.encoder:DepthEncoder",) and "`features_extractor_class`" in bound[0].how


def test_sb3_policy_class_passed_by_position_runs_the_project_override():
    result = _scan("sb3_class", "balance.play:rollout")
    assert "balance.policy:GatedPolicy._predict" in result.reachable
    assert ("balance/policy.py", 8, "LCM201") in _found(result)


def test_a_policy_stored_on_the_library_object_after_construction_is_followed():
    result = _scan("skrl_server", "grasp_server.policy:handle_request")
    assert "grasp_server.policy:GraspHead.compute" in result.reachable
    assert ("grasp_server/policy.py", 14, "LCM101") in _found(result)
    bound = [b for b in result.bound_calls if b.text == "self.policy.act(...)"]
    assert bound and "AGENT.policy = GraspHead()" in bound[0].how


def test_an_unknown_receiver_inside_library_code_is_listed_with_its_origin():
    result = _scan("skrl_loader", "planner.agent:Planner.plan")
    listed = [n for n in result.not_followed if n.text == "self.policy.act(...)"]
    assert len(listed) == 1
    call = listed[0]
    assert call.path == "skrl/agents/torch/ppo/ppo.py" and call.receiver == "self.policy"
    assert "planner/agent.py:15" in call.reason and "load_models(spec)" in call.reason
    # the library's own receivers (its preprocessors, its distributions) are not listed
    assert all(n.text == "self.policy.act(...)" for n in result.not_followed)


def test_the_summary_counts_the_library_callback_and_offers_the_bind():
    app = ROOT / "skrl_loader"
    before = tree_hash(app)
    result = CliRunner().invoke(main, ["scan", str(app), "--entry", "planner.agent:Planner.plan", "--no-cache"])
    assert "1 call not followed" in result.output and "No hazards found." not in result.output
    assert "--bind self.policy=MODULE:CLASS" in result.output
    assert tree_hash(app) == before
