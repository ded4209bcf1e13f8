"""Objects a class-level loader builds (`PPO.load(path)`, `Planner.from_pretrained(d)`, `AGENTS[kind].load(p)`,
`getattr(lib, NAME).restore(p)`) have that class's type: the calls on them resolve into the class's methods, in
the followed library or the project. A receiver that stays unknown (`pickle.load(f)`) is listed as not followed,
never dropped. Fixture `scan_class_loaders`: six small apps of different shapes (a script's main block, a ROS 2
node's timer, a function's loop over a table of classes, a helper returning a restored network, an unpickled
controller, a class named by a module constant)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from leapp_codemod.analysis.entry.loops import class_loader, loaded_models
from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_class_loaders"


@pytest.fixture(scope="module", autouse=True)
def _unchanged():
    before = tree_hash(ROOT)
    yield
    assert tree_hash(ROOT) == before, "scan modified the application"


def _scan(entry: str, follow_libraries: bool = True):
    old = os.getcwd()
    os.chdir(ROOT)   # inline entries are file paths
    try:
        result = scan_project(["."], entry=entry, follow_libraries=follow_libraries)
    finally:
        os.chdir(old)
    assert result.errors == [], result.errors
    return result


def test_a_script_loop_runs_the_sb3_agent_its_main_block_loads():
    pytest.importorskip("stable_baselines3")
    result = _scan("glide/fly.py:27-28")
    assert "stable_baselines3.common.base_class:BaseAlgorithm.predict" in result.reachable
    assert "stable_baselines3.common.policies:ActorCriticPolicy._predict" in result.reachable   # PPO's policy
    assert result.not_followed == ()
    assert result.libraries_followed == ("stable_baselines3",)     # said, so "No hazards" is read with it
    from leapp_codemod.report.text import summary_line
    assert "(and the code of installed stable_baselines3 it runs)" in summary_line(result)
    assert _scan("glide/fly.py:27-28", follow_libraries=False).libraries_followed == ()


def test_a_node_timer_runs_the_agent_a_helper_loads_through_an_alias():
    pytest.importorskip("stable_baselines3")
    result = _scan("reach_node.node:ReachNode.on_tick")
    assert "stable_baselines3.sac.policies:SACPolicy._predict" in result.reachable
    assert result.not_followed == ()


def test_a_base_classmethod_builds_the_subclass_a_table_names():
    result = _scan("gaits/walk.py:13-13")
    assert {"gaits.agents:TrotAgent.act", "gaits.agents:PaceAgent.act"} <= set(result.reachable)
    assert not any(b.how.startswith("duck typing") for b in result.bound_calls)   # typed, not guessed by name
    assert ("gaits/agents.py", 24) in {(f.path, f.line) for f in result.findings}


def test_a_network_restored_by_from_pretrained_and_returned_by_a_helper_runs_its_forward():
    result = _scan("planner.drive:plan")
    assert "planner.model:Planner.forward" in result.reachable
    assert ("planner/model.py", 20, "LCM201") in {(f.path, f.line, f.code) for f in result.findings}
    assert result.not_followed == ()


def test_a_classmethod_handing_on_to_another_that_builds_cls_types_the_restored_skill():
    result = _scan("skills/use.py:14-14")
    assert "skills.library:Reach.run" in result.reachable
    assert ("skills/library.py", 23, "LCM201") in {(f.path, f.line, f.code) for f in result.findings}
    assert result.not_followed == ()


def test_an_unpickled_receiver_is_listed_with_the_binding_that_made_it():
    result = _scan("pickled/run.py:11-11")
    (call,) = result.not_followed
    assert call.line == 11 and "controller.compute" in call.text
    assert "pickle.load" in call.reason


def test_a_name_bound_by_a_class_loader_is_a_model_sign_for_entry_ranking():
    import ast
    tree = ast.parse("pilot = PPO.load(p)\nconf = json.load(f)\nagent = ALGOS[k].restore(p)\nx = np.load(f)\n")
    assert loaded_models(tree.body) == {"pilot", "agent"}
    assert class_loader(ast.parse("sb3.SAC.from_pretrained", mode="eval").body)


BUILDERS = '''
from typing import TypeVar
T = TypeVar("T")


class Agent:
    @classmethod
    def annotated(cls, path) -> "Agent":
        return make(path)

    @classmethod
    def typevar(cls: type[T], path) -> T:
        return make(path)

    @classmethod
    def moved(cls, path, device):
        return cls(**read(path)).to(device)

    @classmethod
    def local_moved(cls, path):
        agent = cls()
        agent.load_state_dict(read(path))
        return agent.eval()

    @classmethod
    def handed_on(cls, path):
        return cls.moved(path, "cpu")

    @classmethod
    def settings(cls, path):
        return read(path)

    @classmethod
    def loops(cls, path):
        return cls.loops(path)

    def plain(self, path):
        return Agent()
'''


def test_which_classmethods_build_the_class_they_are_called_on(tmp_path):
    from leapp_codemod.analysis.model.index import build_index
    from leapp_codemod.analysis.model.resolve_types import builds_own_class
    from leapp_codemod.source.files import SourceFile
    from leapp_codemod.source.parse import parse_source
    path = tmp_path / "agents.py"
    path.write_text(BUILDERS, encoding="utf-8")
    index = build_index(parse_source(SourceFile(path, "agents.py", "agents", False), BUILDERS))
    methods = index.classes["Agent"].methods
    built = {name for name, fn in methods.items() if builds_own_class(fn, index)}
    assert built == {"annotated", "typevar", "moved", "local_moved", "handed_on"}


def test_a_distribution_one_call_rebuilds_before_reading_it_is_no_state():
    """SAC's actor may hold either distribution class; each call of `actions_from_params` rebuilds its own
    distribution and then reads it (`get_actions` calls that object's `mode`, not every subclass's)."""
    pytest.importorskip("stable_baselines3")
    result = _scan("hover/hover.py:11-11")
    assert "stable_baselines3.sac.policies:Actor.forward" in result.reachable
    assert "stable_baselines3.common.distributions:StateDependentNoiseDistribution.mode" in result.reachable
    assert not [f for f in result.findings if f.code.startswith("LCM70")], result.findings


def test_a_world_step_inside_a_range_is_where_the_action_leaves_not_pipeline_code():
    pytest.importorskip("stable_baselines3")
    result = _scan("lander/land.py:26-28")
    assert "stable_baselines3.common.base_class:BaseAlgorithm.predict" in result.reachable
    assert "lander.land:LanderWorld.step" not in result.reachable
    assert not [f for f in result.findings if f.line < 20], result.findings   # the simulator's wind and casts
