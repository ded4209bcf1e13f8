"""Which class the project builds decides which of a base method and its override is the step
(analysis/entry/built_overrides.py), and the script the project's texts run decides between tied peers through
the class it builds (analysis/entry/ties.py).

Fixtures: a ROS 2 walker node whose policy comes from `getattr(policies, spec.arch)` with the architecture set by
a keyword over a dataclass default; a driving script whose loader builds the stacked-frame subclass while the loop
sees the base type; two socket servers of near-copy agents, a Dockerfile running one of them."""
from __future__ import annotations

import pytest
from test_entry_ranking import app, by_id, ranked


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def _order(candidates: list[dict], *ids: str) -> list[int]:
    entries = [c["entry"] for c in candidates]
    return [entries.index(i) for i in ids]


@pytest.mark.parametrize("name, override, base", [
    ("entry_built_override_node", "walker.policies.gru:GruPolicy.infer", "walker.policies.mlp:MlpPolicy.infer"),
    ("entry_built_override_script", "pilots:StackedPilot.act", "pilots:Pilot.act"),
])
def test_the_override_of_the_built_class_goes_before_the_base_method(name, override, base, tmp_path, monkeypatch):
    candidates = ranked(app(tmp_path, name), monkeypatch)
    assert candidates[0]["entry"] == override
    found = by_id(candidates)
    assert found[override]["score"] > found[base]["score"]
    assert any("runs in place of" in r and "never builds" in r for r in found[override]["reasons"])
    assert any(r.startswith(f"`{override.rpartition(':')[2].split('.')[0]}` overrides it") for r in found[base]["reasons"])


def test_a_base_class_the_project_also_builds_keeps_its_place(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_built_override_script")
    (root / "bench.py").write_text("from pilots import Pilot\n\nPLAIN = Pilot(width=32)\n", encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == "pilots:Pilot.act"
    assert not any("runs in place of" in r for c in candidates for r in c["reasons"])


def test_a_field_default_counts_when_nothing_overrides_it(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_built_override_node")
    specs = root / "walker" / "specs.py"
    specs.write_text(specs.read_text(encoding="utf-8").replace('arch="GruPolicy", ', ""), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    first, second = _order(candidates, "walker.policies.mlp:MlpPolicy.infer", "walker.policies.gru:GruPolicy.infer")
    assert first < second
    assert not any("runs in place of" in r for c in candidates for r in c["reasons"])


def test_tied_peers_follow_the_script_the_project_runs_that_builds_one(tmp_path, monkeypatch):
    candidates = ranked(app(tmp_path, "entry_run_builder_script"), monkeypatch)
    assert candidates[0]["entry"] == "agents.iql:IQLAgent.act"
    assert candidates[0]["score"] == by_id(candidates)["agents.bc:BCAgent.act"]["score"]   # a tie, broken
    assert any("`serve_iql.py`, which builds `IQLAgent`" in r and "Dockerfile" in r for r in candidates[0]["reasons"])


def test_without_a_text_naming_a_builder_the_peers_stay_tied(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_run_builder_script")
    (root / "Dockerfile").unlink()
    candidates = ranked(root, monkeypatch)
    assert any("nothing in the project separates them" in r for r in candidates[0]["reasons"])


def test_a_default_still_used_beside_a_subclass_that_overrides_it_counts(tmp_path, monkeypatch):
    # another robot's spec class sets the recurrent architecture; the walker's spec still builds the default one
    root = app(tmp_path, "entry_built_override_node")
    specs = root / "walker" / "specs.py"
    specs.write_text(specs.read_text(encoding="utf-8").replace(
        'WALKER = PolicySpec(arch="GruPolicy", checkpoint="walker_gru.pt")',
        'class HopperSpec(PolicySpec):\n    arch: str = "GruPolicy"\n\n\nWALKER = PolicySpec(checkpoint="walker.pt")\n'
        'HOPPER = HopperSpec()'), encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert not any("runs in place of" in r for c in candidates for r in c["reasons"])


def test_a_built_subclass_that_inherits_the_base_method_keeps_the_base_in_place(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_built_override_script")
    pilots = root / "pilots.py"
    pilots.write_text(pilots.read_text(encoding="utf-8") + "\n\nclass WidePilot(Pilot):\n    pass\n", encoding="utf-8")
    (root / "bench.py").write_text("from pilots import WidePilot\n\nWIDE = WidePilot(width=256)\n", encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert not any("runs in place of" in r for c in candidates for r in c["reasons"])


def test_a_script_the_texts_name_itself_goes_before_one_named_only_through_a_builder(tmp_path, monkeypatch):
    root = app(tmp_path, "entry_run_builder_script")
    (root / "README.md").write_text("The baseline lives in `agents/bc.py`.\n", encoding="utf-8")
    candidates = ranked(root, monkeypatch)
    assert candidates[0]["entry"] == "agents.bc:BCAgent.act"
