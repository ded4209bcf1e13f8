"""Entry ranking when the driver's receiver is bound by the code around the loop.

`entry_bound_receivers`: a skill built by a factory and passed to a serving loop, a skill class handed to
a sweep, a skill fixed by an `isinstance` assertion, and a chunking model wrapper whose class has `reset`
and `step`. `entry_mode_switch`: a mode switcher reached through a star import that dispatches at run
time to modes (one runs its model through a private helper), a playback loop on a mode chosen by name,
a JAX comparison loop and a probe network sampled from a `train` package.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_entry_discovery import tree_hash

from leapp_codemod.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
APPS = ("entry_bound_receivers", "entry_mode_switch")


@pytest.fixture(scope="module")
def ranked(tmp_path_factory):
    """app -> (candidates best first, tree hash before, tree hash after)."""
    root = tmp_path_factory.mktemp("binding_apps")
    out = {}
    for app in APPS:
        shutil.copytree(FIXTURES / app, root / app)
        before = tree_hash(root / app)
        result = CliRunner().invoke(main, ["entrypoints", str(root / app), "--format", "json", "--limit", "0"],
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        out[app] = (json.loads(result.stdout)["entrypoints"], before, tree_hash(root / app))
    return out


def by_entry(candidates: list[dict]) -> dict[str, tuple[int, dict]]:
    return {c["entry"]: (i, c) for i, c in enumerate(candidates)}


def reasons(candidates, entry) -> str:
    return " | ".join(by_entry(candidates)[entry][1]["reasons"])


def test_the_scanned_apps_are_not_modified(ranked):
    for candidates, before, after in ranked.values():
        assert candidates and before == after


def test_a_factory_return_passed_to_the_loop_binds_the_receiver(ranked):
    candidates = ranked["entry_bound_receivers"][0]
    # `serve(make_skill(...))`: make_skill returns a local built as Reach(); serve's loop runs Reach.decide
    assert "called in a loop by serve" in reasons(candidates, "arm.skills:Reach.decide")
    assert "`.decide(...)` called" not in reasons(candidates, "arm.skills:Reach.decide")


def test_a_class_passed_in_binds_what_the_loop_builds_from_it(ranked):
    candidates = ranked["entry_bound_receivers"][0]
    # `sweep(skill_type=Wave)` then `skill = skill_type()`: the loop runs Wave.decide, not Reach.decide
    assert "called in a loop by sweep" in reasons(candidates, "arm.skills:Wave.decide")
    assert "sweep" not in reasons(candidates, "arm.skills:Reach.decide")


def test_an_isinstance_assertion_binds_and_no_model_ranks_last(ranked):
    candidates = ranked["entry_bound_receivers"][0]
    table = by_entry(candidates)
    assert "called in a loop by check" in reasons(candidates, "arm.skills:Hold.decide")
    assert "no sign of a model" in reasons(candidates, "arm.skills:Hold.decide")
    # a candidate without a model sign comes after every candidate with one, whatever its score
    signed = [i for i, c in enumerate(candidates) if not any("no sign of a model" in r for r in c["reasons"])]
    assert signed and max(signed) < table["arm.skills:Hold.decide"][0]
    # the abstract base method is never what the loop runs
    assert "arm.skills:Skill.decide" not in table or "called in a loop" not in reasons(
        candidates, "arm.skills:Skill.decide")


def test_a_model_wrappers_step_is_not_an_environment(ranked):
    candidates = ranked["entry_bound_receivers"][0]
    text = reasons(candidates, "arm.chunked:ChunkedReach.step")
    assert "environment" not in text and "calls an nn.Module" in text
    assert candidates[0]["entry"] == "arm.chunked:ChunkedReach.step"


def test_a_star_import_and_a_run_time_dispatch_reach_the_model(ranked):
    candidates = ranked["entry_mode_switch"][0]
    cycle = reasons(candidates, "switcher:Switcher.cycle")
    assert "bringup.py" in cycle and "called in a loop" in cycle     # `from switcher import *`
    assert "calls a model through" in cycle                           # Walk.act, chosen at run time
    assert "calls a model through Walk._infer" in reasons(candidates, "modes.walk:Walk.act")
    assert "calls a model" not in reasons(candidates, "modes.sit:Sit.act")


def test_an_inline_range_on_a_method_several_classes_define_is_a_candidate(ranked):
    candidates = ranked["entry_mode_switch"][0]
    inline = [c for c in candidates if c["kind"] == "inline" and c["path"].endswith("playback.py")]
    assert len(inline) == 1
    # Walk.act and Sit.act; the base's `act` only raises NotImplementedError and runs nothing
    assert any("2 project classes define `act`" in r for r in inline[0]["reasons"])


def test_a_jax_range_and_a_training_package_are_demoted(ranked):
    candidates = ranked["entry_mode_switch"][0]
    jax_range = next(c for c in candidates if c["kind"] == "inline" and c["path"].endswith("compare_jax.py"))
    playback = next(c for c in candidates if c["kind"] == "inline" and c["path"].endswith("playback.py"))
    assert any("JAX" in r for r in jax_range["reasons"]) and jax_range["score"] < playback["score"]
    # `train/sample.py` feeds the probe random draws in a loop and prints: no observation reaches it (the
    # `train` folder decides nothing by itself, see test_entry_by_behaviour.py)
    assert "feeds it only random draws" in reasons(candidates, "train.probe:Probe.forward")
    assert by_entry(candidates)["train.probe:Probe.forward"][0] > by_entry(candidates)["switcher:Switcher.cycle"][0]


def test_the_most_built_peer_gets_a_point_and_ties_get_none(ranked):
    switch = ranked["entry_mode_switch"][0]
    # Sit is built twice (the switcher's start and its fallback), Walk once: Sit.act is favoured
    assert "built at 2 places" in reasons(switch, "modes.sit:Sit.act")
    assert "built at" not in reasons(switch, "modes.walk:Walk.act")
    # Reach, Wave and Hold are each built once (Wave only handed over as a class): no point
    bound = ranked["entry_bound_receivers"][0]
    assert not any("built at" in r for c in bound for r in c["reasons"])


def test_a_factory_returning_a_local_returns_the_class_built_into_it(monkeypatch):
    """`skill = Reach(); skill.load(path); return skill`: the factory's return type is Reach (it was unknown)."""
    from leapp_codemod.analysis.flow.dataflow import compute_env
    from leapp_codemod.analysis.infer.context import FunctionContext
    from leapp_codemod.analysis.infer.lattice import Facts
    from leapp_codemod.analysis.model.leapp_support import load_support
    from leapp_codemod.scan import load_project

    monkeypatch.chdir(FIXTURES / "entry_bound_receivers")
    project = load_project(["."], []).project
    factory = project.modules["arm.skills"].functions["make_skill"]
    ctx = FunctionContext(factory, project.modules["arm.skills"], project, Facts(), load_support())
    compute_env(ctx)
    assert ctx.return_types(factory) == {"arm.skills:Reach"}
