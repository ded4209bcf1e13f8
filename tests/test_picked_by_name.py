"""Run-time-picked classes and models handed around (fixtures/scan_picked_by_name): a class looked up by a
non-constant name in a project namespace (`globals()[params["grip"]]`, `getattr(sorters, kind)`, a decorator
registry's `.get(cfg...)`, a module table filled one statement at a time, `getattr(sys.modules[__name__], ...)` returned by a helper, `eval(name)` in a
helper) is followed to the candidates that define the method called, all of them when there are at most four
("picked by name (N candidates)"), only the one the project's configs name when they name exactly one (said
so), and none above four (listed as not followed with the count); a network a checkpoint method returns (one
of two classes, through `.to()`/`.eval()` and a state-dict load) and hands on by position types the
parameter that receives it, before any guess by method name."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from scanfixture import check_marked, scan_copy

from leapp_codemod.analysis.model.picked_by_name import argparse_defaults, name_pick
from leapp_codemod.report.json_format import render_json

GROUP = "scan_picked_by_name"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def _how(result) -> dict[tuple[str, int], str]:
    return {(Path(r.path).name, r.line): r.how for r in result.bound_calls}


def test_the_config_named_class_is_the_only_one_followed(tmp_path, monkeypatch):
    check_marked(GROUP, tmp_path, monkeypatch, "kiosk_node", "kiosk.node:ArmNode.on_force")
    result = scan_copy(GROUP, tmp_path / "again", "kiosk_node", "kiosk.node:ArmNode.on_force", monkeypatch)
    how = sorted(r.how for r in result.bound_calls if (Path(r.path).name, r.line) == ("node.py", 21))
    assert how[0].startswith("picked by name: `RollWrist`, named by `roll`")   # a table filled line by line
    assert how[1].startswith("picked by name: `SoftGrip`") and "project's configs (`grip`)" in how[1]
    assert not result.not_followed


def test_every_implementer_is_followed_when_nothing_names_one(tmp_path, monkeypatch):
    check_marked(GROUP, tmp_path, monkeypatch, "sort_line", "line.run:decide")
    result = scan_copy(GROUP, tmp_path / "again", "sort_line", "line.run:decide", monkeypatch)
    how = _how(result)
    assert how[("run.py", 12)].startswith("picked by name (3 candidates)")   # the counter defines no `classify`
    assert how[("run.py", 11)].startswith("picked by name (4 candidates)")   # its constructor may run
    assert not result.not_followed


def test_registry_helper_and_too_many(tmp_path, monkeypatch):
    check_marked(GROUP, tmp_path, monkeypatch, "survey_drone", "drone.fly:Survey.step")
    result = scan_copy(GROUP, tmp_path / "again", "survey_drone", "drone.fly:Survey.step", monkeypatch)
    how = _how(result)
    assert "`cautious` in the project's configs" in how[("fly.py", 16)]
    assert how[("fly.py", 17)].startswith("picked by name (2 candidates)")
    listed = {(Path(n["path"]).name, n["line"]): n["reason"] for n in json.loads(render_json(result))["not_followed"]}
    assert set(listed) == {("fly.py", 18)}
    assert "one of 5 classes" in listed[("fly.py", 18)] and "--bind" in listed[("fly.py", 18)]


def test_a_model_returned_by_a_method_and_handed_by_position(tmp_path, monkeypatch):
    check_marked(GROUP, tmp_path, monkeypatch, "orchard_picker", "orchard.picker:Picker.act")
    result = scan_copy(GROUP, tmp_path / "again", "orchard_picker", "orchard.picker:Picker.act", monkeypatch)
    assert not result.not_followed
    assert not any("duck typing" in r.how for r in result.bound_calls)


class _Project:
    """The few project questions `name_pick` asks, over one module and one other."""

    def __init__(self, modules, classes):
        self.modules, self._classes, self.memo = modules, classes, {}

    def is_library(self, name):
        return False

    def qualify(self, expr, module):
        return expr.id if isinstance(expr, ast.Name) and expr.id in self.modules else None

    def class_of(self, name):
        return self._classes.get(name)


class _Module:
    def __init__(self, name, classes, imports=None, source=""):
        self.name, self.classes, self.imports = name, classes, imports or {}
        self.functions, self.globals, self.star_imports = {}, {}, []
        self.nodes = tuple(ast.walk(ast.parse(source)))


class _Class:
    def __init__(self, module, name):
        self.module, self.name, self.id = module, name, f"{module}:{name}"


@pytest.mark.parametrize(("text", "expected"), [
    ("getattr(arms, cfg.arm)", {"Wide", "Narrow"}),
    ("getattr(sys.modules[__name__], kind)", {"Local", "Wide"}),
    ("globals()[kind]", {"Local", "Wide"}),
    ("globals().get(kind)", {"Local", "Wide"}),
    ("eval(kind)", {"Local", "Wide"}),
    ("getattr(arms, 'Wide')", None),      # a constant name is no pick
    ("eval('Wide')", None),
    ("getattr(self, kind)", None),        # an object's attribute is not a namespace
])
def test_lookups_by_name(text, expected):
    wide, narrow, local = _Class("arms", "Wide"), _Class("arms", "Narrow"), _Class("app", "Local")
    arms = _Module("arms", {"Wide": wide, "Narrow": narrow})
    app = _Module("app", {"Local": local}, {"Wide": "arms.Wide", "np": "numpy"})
    project = _Project({"arms": arms, "app": app}, {"arms.Wide": wide, "arms.Narrow": narrow})
    pick = name_pick(project, ast.parse(text, mode="eval").body, app, None)
    assert (None if pick is None else {c.name for c in pick.classes}) == expected


def test_argparse_defaults_agree_or_are_left_out():
    one = _Module("one", {}, source='p.add_argument("--arm", default="Wide")\np.add_argument("--seed", default="1")')
    two = _Module("two", {}, source='q.add_argument("--seed", default="2")\nq.add_argument("-d", dest="dev", default="cpu")')
    project = _Project({"one": one, "two": two}, {})
    assert argparse_defaults(project) == {"arm": "Wide", "dev": "cpu"}


def test_argument_types_of_a_parameter_handed_a_restored_network(tmp_path, monkeypatch):
    """The function the entry code can ask: what `net` of `Picker.__init__` holds (both classes the checkpoint
    method may restore, read at the construction site `Picker(net, opts)`); `opts` holds no project class."""
    import shutil

    from leapp_codemod.analysis.flow.dataflow import compute_env
    from leapp_codemod.analysis.infer.context import FunctionContext
    from leapp_codemod.analysis.infer.lattice import Facts
    from leapp_codemod.analysis.model.argument_types import argument_types_of
    from leapp_codemod.analysis.model.leapp_support import load_support
    from leapp_codemod.scan import load_project

    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / GROUP / "orchard_picker", tmp_path / "app")
    monkeypatch.chdir(tmp_path / "app")
    project = load_project(["."], []).project
    init = project.modules["orchard.picker"].functions["Picker.__init__"]
    ctx = FunctionContext(init, project.modules["orchard.picker"], project, Facts(), load_support())
    compute_env(ctx)
    assert argument_types_of(ctx, init, "net") == {"orchard.nets:ShortReach", "orchard.nets:LongReach"}
    assert argument_types_of(ctx, init, "opts") == set()


def test_a_policy_handed_by_position_to_a_method_of_a_built_object(tmp_path, monkeypatch):
    """`Season(90).run(policy, Climate())`: the inline range cut from `Season.run` calls the VentPolicy the
    launcher built (it was listed as "no call of Season.run passes it")."""
    result = scan_copy(GROUP, tmp_path, "vent_runner", "vent/season.py:12-13", monkeypatch)
    found = {(Path(f.path).name, f.line) for f in result.findings}
    assert ("nets.py", 12) in found and ("nets.py", 17) not in found
    assert not [n for n in result.not_followed if n.text.startswith("policy")]


def test_an_object_picked_from_a_star_imported_package_runs_the_classes_the_configs_name(tmp_path, monkeypatch):
    """`net_cls = getattr(nets, self.config.net)` over a package of six networks gathered by star imports, two
    YAML configs naming one each: `self.tracker(x)` runs those two networks' forward, not the other four."""
    check_marked(GROUP, tmp_path, monkeypatch, "seam_welder", "welder.torch_cell:WeldCell.track")
    result = scan_copy(GROUP, tmp_path / "again", "seam_welder", "welder.torch_cell:WeldCell.track", monkeypatch)
    how = _how(result)[("torch_cell.py", 11)]
    assert how.startswith("picked by name: `seam_cnn`, `seam_mlp`") and "(`net`)" in how
    assert not result.not_followed
