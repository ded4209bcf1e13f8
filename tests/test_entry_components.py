"""The step above its components, and the deployment above its replay (round s18, the right entry first).

Three fixtures, none shaped like the repositories that exposed the causes:
- `entry_gated_chunk_network`: a grasp planner queried every HORIZON frames inside a camera-to-arm loop; the
  range widened around the gated call is the step, the network's `act` a part of it;
- `entry_trainer_collects_step`: a rover pilot whose step wraps the steering network and whose only caller is
  the training loop collecting episodes; the step still ranks above the network method it wraps;
- `entry_replay_vs_robot`: two near-copy scripts running a gait network, one writing targets to the robot, one
  keeping predictions over a recorded log; tied on score, the one that sends goes first.
"""
from __future__ import annotations

import ast
import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod.analysis.entry.loops import InlinePipeline, inline_pipelines
from leapp_codemod.analysis.entry.unsent import sends_nothing
from leapp_codemod.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def ranked(tmp_path: Path, name: str, monkeypatch) -> tuple[list[dict], dict]:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)     # no README of this repository above it
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["entrypoints", ".", "--format", "json", "--limit", "0"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    expected = tomllib.loads((FIXTURES / name / "expected.toml").read_text(encoding="utf-8"))
    return json.loads(result.stdout)["entrypoints"], expected


def position(candidates: list[dict], entry: str) -> int:
    ids = [c["entry"] for c in candidates]
    assert entry in ids, ids
    return ids.index(entry)


def test_a_network_queried_every_few_frames_ranks_below_the_widened_range(tmp_path, monkeypatch):
    candidates, expected = ranked(tmp_path, "entry_gated_chunk_network", monkeypatch)
    assert candidates[0]["entry"] == expected["entry"]
    network = candidates[position(candidates, expected["network"])]
    assert network["score"] < candidates[0]["score"]
    assert any("the range around it is the policy step" in r for r in network["reasons"])


def test_the_widened_range_counts_its_own_statements_for_its_network_not_for_its_rank():
    loop = ast.parse((FIXTURES / "entry_gated_chunk_network" / "pick_place.py").read_text()).body[-2].body[-1]
    assert isinstance(loop, ast.While)
    [pipeline] = inline_pipelines(loop, {"net"}, lambda call: False)
    assert (pipeline.start, pipeline.end) == (20, 27)
    assert pipeline.statements == 1          # the gated block: the range's own rank is unchanged
    assert pipeline.size >= 6                # the widened range: input building and target scaling around it
    assert InlinePipeline(1, "m", 2, 3, 4).size == 4     # a range never widened keeps its count


def test_a_step_only_training_calls_still_ranks_above_the_network_it_wraps(tmp_path, monkeypatch):
    candidates, expected = ranked(tmp_path, "entry_trainer_collects_step", monkeypatch)
    assert candidates[0]["entry"] == expected["entry"]
    step, part = candidates[0], candidates[position(candidates, expected["part"])]
    assert step["score"] > part["score"]
    assert any(r.startswith("the policy step around") for r in step["reasons"])


def test_the_loop_that_sends_its_action_goes_before_its_replay_twin(tmp_path, monkeypatch):
    candidates, expected = ranked(tmp_path, "entry_replay_vs_robot", monkeypatch)
    first, replay = candidates[0], candidates[position(candidates, expected["replay"])]
    assert first["entry"] == expected["entry"]
    assert first["score"] == replay["score"]      # a tie: only the order changes
    assert any("sends nothing out" in r and expected["replay"] in r for r in first["reasons"])


@pytest.mark.parametrize(("body", "nothing"), [
    ("a = net(x)\npredicted.append(a)", True),
    ("a = net(x)\nerrors.append(abs(a - log[i]))\nprint(a)", True),
    ("a = net(x)\nbus.write_targets(a)", False),
    ("a = net(x)\nobs, r, done, info = env.step(a)", False),
    ("a = net(x)\nif ready:\n    pub.publish(a)", False),
    ("a = net(x)\nd.ctrl[:] = a", False),
])
def test_sends_nothing(body, nothing):
    loop = ast.parse("while True:\n" + "\n".join("    " + line for line in body.splitlines())).body[0]
    assert sends_nothing(loop) is nothing


def test_a_networks_own_method_reached_from_training_is_no_step_around_its_forward():
    from leapp_codemod.analysis.entry.collect import collect_call_sites
    from leapp_codemod.analysis.entry.wrapping_steps import wrapping_edges
    from leapp_codemod.analysis.model.leapp_support import load_support
    from leapp_codemod.scan import load_project

    project = load_project([str(FIXTURES / "entry_trainer_collects_step")], ()).project
    sites = collect_call_sites(project, load_support())
    functions = {fn.id: fn for fn in project.functions()} | sites.functions
    edges = wrapping_edges(functions, sites, project, set(functions), sites.model_reach())
    assert "nets:SteerNet.sample_action" in edges["pilot:Pilot.predict_actions"]
    assert "nets:SteerNet.predict" in functions and "nets:SteerNet.predict" not in edges
