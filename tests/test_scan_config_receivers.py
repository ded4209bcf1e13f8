"""Dataflow beats annotations for receivers (fixtures/scan_config_receivers): an attribute set from a
constructor parameter annotated with two classes holds what the project constructs for it, and when the
construction is picked by a config key the project's configs give one value (`if config_map["use_learned"]:`
with `"use_learned": false` in the only JSON config), only the class built is followed. With a second config
giving the other value, both are."""
from __future__ import annotations

import ast

import pytest
from scanfixture import check_marked

from leapp_codemod.analysis.model.config_values import config_key, decided_block

GROUP = "scan_config_receivers"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_only_the_configured_construction_is_followed(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "mower_app", "planner:Planner.plan")
    assert found == {("trackers.py", 26, "inplace-state")}


def test_configs_that_disagree_keep_both_classes(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "mower_both", "planner:Planner.plan")
    assert ("trackers.py", 14, "tensor-branch") in found


def test_an_arm_no_config_names_is_not_followed(tmp_path, monkeypatch):
    # the configs build a learned and a PID tracker; the `== "mpc"` arm of the selection chain never runs
    found = check_marked(GROUP, tmp_path, monkeypatch, "mower_modes", "planner:Planner.plan")
    assert not any(line >= 30 for path, line, _ in found if path == "trackers.py")


@pytest.mark.parametrize(("test", "values", "dead"), [
    ('cfg["sim"]', {"sim": frozenset({False})}, "body"),
    ('not cfg["sim"]', {"sim": frozenset({False})}, "orelse"),
    ('cfg_dict["mode"] == "pid"', {"mode": frozenset({"pid"})}, "orelse"),
    ('config_map.mode != "pid"', {"mode": frozenset({"pid"})}, "body"),
    ('cfg["sim"]', {"sim": frozenset({False, True})}, None),
    ('robot["sim"]', {"sim": frozenset({False})}, None),
    ('cfg["mode"] == "mpc"', {"mode": frozenset({"pid", "learned"})}, "body"),    # a literal no config gives
    ('cfg["mode"] != "mpc"', {"mode": frozenset({"pid", "learned"})}, "orelse"),
    ('cfg["mode"] == "pid"', {"mode": frozenset({"pid", "learned"})}, None),
    ('cfg["use"]', {"use": frozenset({1, True})}, "orelse"),                       # every value is true
])
def test_decided_block(test, values, dead):
    assert decided_block(ast.parse(test, mode="eval").body, values) == dead


def test_config_names_under_another_spelling():
    assert config_key(ast.parse('cfg_dict["use_rl"]', mode="eval").body) == "use_rl"
    assert config_key(ast.parse('confusion["x"]', mode="eval").body) is None


def test_command_line_defaults_passed_to_a_constructor_decide_the_blocks_they_guard(tmp_path, monkeypatch):
    # `SwingController(smoothing=opts.smoothing, clip=opts.clip, verbose=opts.verbose)` with `--smoothing` 0 by
    # default, `--no-clip` storing False into `clip` (True when not given) and `--verbose` a store_true switch
    found = check_marked(GROUP, tmp_path, monkeypatch, "crane_flags", "swing:SwingController.act")
    assert found == {("swing.py", 28, "tensor-branch")}


def test_argument_defaults_read_switches_destinations_and_constants():
    from leapp_codemod.analysis.model.config_values import argument_defaults
    tree = ast.parse("p.add_argument('--a-b', default=2)\np.add_argument('--on', action='store_true')\n"
                     "p.add_argument('--no-x', dest='x', action='store_false')\np.add_argument('--name', default='')\n"
                     "p.add_argument('--req', required=True)\np.add_argument('pos', default=1)\n")
    assert argument_defaults(tree) == {"a_b": 2, "on": False, "x": True}


def test_a_factory_arm_the_command_line_default_rules_out_builds_nothing(tmp_path, monkeypatch):
    # `make_head(options())` returns one of two heads by `--head` (default "suction"): the class of the arm the
    # default never takes is no type of `self.head`, so its code is not followed
    found = check_marked(GROUP, tmp_path, monkeypatch, "sorter_factory", "sort_cell:SortCell.grasp")
    assert found == {("grippers.py", 13, "scalar-extraction")}


def test_the_other_default_picks_the_other_arm(tmp_path, monkeypatch):
    from scanfixture import scan_variant
    result = scan_variant(GROUP, tmp_path, monkeypatch, "sorter_factory", "sort_cell:SortCell.grasp", "sort_cell.py",
                          'default="suction"', 'default="finger"')
    assert {(f.line, f.category) for f in result.findings} == {(22, "scalar-extraction")}


def test_an_optional_positional_has_a_default_too():
    from leapp_codemod.analysis.model.config_values import argument_defaults
    tree = ast.parse("p.add_argument('algorithm', nargs='?', type=str, default='ddpg')\n"
                     "p.add_argument('steps', type=int, default=3)\np.add_argument('names', nargs='*', default='a')\n")
    assert argument_defaults(tree) == {"algorithm": "ddpg"}
