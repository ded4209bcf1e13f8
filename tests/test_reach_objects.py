"""Receivers the scan names by looking one step further (fixtures/scan_reach_objects): a callable attribute of
a project object the pipeline holds, a project class whose call is its library base's, an object stored after
`.eval()`/`.float()`, and the real reason when such an object stays unknown."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from scanfixture import FIXTURES as ALL_FIXTURES
from scanfixture import found, scan_copy

from leapp_codemod.scan import scan_project

FIXTURES = ALL_FIXTURES / "scan_reach_objects"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def listed(result) -> dict[tuple[str, int], str]:
    return {(Path(n.path).name, n.line): n.reason for n in result.not_followed}


def test_a_module_held_by_a_project_object_is_followed(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "gripper_app", "controller:GripController.act", monkeypatch)
    assert ("blocks.py", 22, "LCM201") in found(result)      # GraspHead.forward, run by self.perception.head(x)
    assert ("controller.py", 15) not in listed(result)


def test_an_object_moved_by_eval_and_float_keeps_its_class(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "gripper_app", "controller:GripController.act", monkeypatch)
    assert ("blocks.py", 44, "LCM201") in found(result)      # Refiner.forward, stored as refiner.eval().float()
    assert ("controller.py", 16) not in listed(result)


def test_a_project_class_running_only_its_library_base_is_not_listed(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "gripper_app", "controller:GripController.act", monkeypatch)
    assert ("controller.py", 14) not in listed(result)       # Stack(nn.Sequential): nn.Sequential's forward
    assert ("blocks.py", 34) not in listed(result)
    assert result.not_followed == ()


def test_an_unknown_moved_object_is_listed_with_where_it_came_from(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "moved_app", "planner:Planner.plan", monkeypatch)
    reason = listed(result)[("planner.py", 11)]
    assert "hydra.utils.instantiate" in reason and "no _target_" in reason
    assert [n.receiver for n in result.not_followed] == ["self.net"]


def test_modules_stored_item_by_item_into_a_dict_are_followed(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "fusion_app", "fusion:Fusion.forward", monkeypatch)
    assert ("fusion.py", 17, "LCM003") in found(result)      # SensorBranch.forward via self.branches[name](v)
    assert ("fusion.py", 33) not in listed(result)


def test_library_layers_defaults_and_library_choices_are_not_listed(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "fusion_app", "fusion:Fusion.forward", monkeypatch)
    assert listed(result) == {}        # self.smooth[i], self.squash (default torch.sigmoid), self.mix


def test_a_passed_argument_keeps_the_default_from_deciding(tmp_path, monkeypatch):
    shutil.copytree(FIXTURES / "fusion_app", tmp_path / "passed_app")
    run = tmp_path / "passed_app" / "run.py"
    run.write_text(run.read_text().replace('Fusion(["left", "right"], 6)',
                                           'Fusion(["left", "right"], 6, squash=pick_squash())')
                   + "\n\ndef pick_squash():\n    return getattr(torch, 'tanh')\n")
    monkeypatch.chdir(tmp_path / "passed_app")
    result = scan_project(["."], entry="fusion:Fusion.forward")
    assert "squash" in listed(result).get(("fusion.py", 37), "")


def test_a_keyword_handed_to_instantiate_reaches_the_configured_class(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "keyword_app", "arm.policy:ArmPolicy.act", monkeypatch)
    assert ("codec.py", 13, "LCM201") in found(result)       # JointCodec.decode, via TorqueHead's self.codec
    assert listed(result) == {}                              # self.decoder: codec.make_decoder -> nn.Sequential
    assert not any("duck typing" in b.how for b in result.bound_calls if Path(b.path).name == "head.py"
                   and b.line == 13)


def test_a_builder_named_by_a_constructor_argument_in_the_configs_is_followed(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "named_app", "gait.encoder:TerrainEncoder.forward",
                       monkeypatch)
    assert ("blocks.py", 12, "LCM201") in found(result)      # Gate.forward: wide_builder(width) returns a Gate
    assert listed(result) == {}
    assert any("builder" in b.how for b in result.bound_calls)   # recorded: named by the configs' `builder`


def test_an_eval_of_an_argument_no_config_sets_stays_listed(tmp_path, monkeypatch):
    shutil.copytree(FIXTURES / "named_app", tmp_path / "unset_app")
    (tmp_path / "unset_app" / "conf" / "encoder" / "terrain.yaml").write_text(
        "_target_: gait.encoder.TerrainEncoder\nwidth: 12\n")
    monkeypatch.chdir(tmp_path / "unset_app")
    result = scan_project(["."], entry="gait.encoder:TerrainEncoder.forward")
    assert "eval" in listed(result)[("encoder.py", 13)]


def test_a_closure_over_library_parts_of_a_project_model_is_not_listed(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "closure_app", "pilot:make_pilot.<locals>.pilot", monkeypatch)
    reasons = listed(result)
    assert ("pilot.py", 20) not in reasons                   # trunk.forward: Pilot.trunk is an nn.Sequential
    assert set(reasons) == {("pilot.py", 21)}                # only tail(...): steer is an nn.Linear
    assert "torch.load" in reasons[("pilot.py", 21)]         # the reason names where Pilot.tail comes from


def test_blocks_unpacked_into_a_container_and_looped_over_are_followed(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "stack_app", "planner:Planner.plan", monkeypatch)
    assert ("layers.py", 13, "LCM201") in found(result)      # Residual.forward, via `for stage in self.stages`
    assert ("layers.py", 25) not in listed(result)


def test_a_loader_returning_model_eval_returns_the_model_class(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "stack_app", "planner:Planner.plan", monkeypatch)
    assert ("layers.py", 35, "LCM101") in found(result)      # Speller.spell: load_speller(w) -> Any, returns .eval()
    assert listed(result) == {}


def _scan_text(tmp_path, monkeypatch, *args: str) -> str:
    from click.testing import CliRunner

    from leapp_codemod.cli import main
    shutil.copytree(FIXTURES / "missing_app", tmp_path / "missing_app")
    monkeypatch.chdir(tmp_path / "missing_app")
    return CliRunner().invoke(main, ["scan", ".", "--entry", "hover:Hover.step", "--no-cache", *args],
                              catch_exceptions=False).stdout


def test_a_package_neither_scanned_nor_installed_is_named_with_the_fix(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "missing_app", "hover:Hover.step", monkeypatch)
    assert {(n.text, n.package) for n in result.not_followed} == {("smooth(...)", "rotorlib"), ("self.shaper(...)", "")}
    text = _scan_text(tmp_path / "t", monkeypatch)
    assert "rotorlib is neither scanned nor installed here: install" in text
    assert "--bind self.shaper=MODULE:FUNCTION" in text     # never `--bind smooth=...` for the missing package
    assert "--bind smooth" not in text


def test_the_suggested_bind_spelling_works(tmp_path, monkeypatch):
    text = _scan_text(tmp_path, monkeypatch, "--bind", "self.shaper=shapers:default")
    assert "shapers.py:2" in text and "LCM201" in text
    assert "1 call not followed" in text


def test_a_torch_inplace_method_on_an_untyped_copy_is_not_listed(tmp_path, monkeypatch):
    result = scan_copy("scan_reach_objects", tmp_path, "inplace_app", "joints:JointMixer.mix", monkeypatch)
    assert listed(result) == {}


def test_a_project_method_with_a_trailing_underscore_is_followed_or_listed(tmp_path, monkeypatch):
    shutil.copytree(FIXTURES / "inplace_app", tmp_path / "own_app")
    (tmp_path / "own_app" / "ledger.py").write_text(
        "class Ledger:\n    def index_add_(self, dim, index, deltas):\n        return deltas.sum()\n\n\n"
        "def open_ledger():\n    return Ledger()\n")
    monkeypatch.chdir(tmp_path / "own_app")
    result = scan_project(["."], entry="joints:JointMixer.mix")
    followed = {b.line: b.targets for b in result.bound_calls if Path(b.path).name == "joints.py"}
    assert ("joints.py", 11) in listed(result) or followed.get(11) == ("ledger:Ledger.index_add_",)
