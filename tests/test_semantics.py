"""`generate --semantics`: LEAPP kinds and joint order only where the application makes the meaning
unambiguous; normalized, latent and mixed tensors stay raw and are listed."""
from __future__ import annotations

import ast
import json

import pytest
from test_doc_examples import doc_group, find_session

from leapp_codemod.generate.semantics import (
    INPUT_KINDS,
    OUTPUT_KINDS,
    build_semantics,
    docstring_descriptions,
    installed_kinds,
    joint_name_lists,
    meaning_of,
)


def test_every_kind_used_exists_in_the_installed_leapp():
    inputs, outputs = installed_kinds()
    assert {"JOINT_POSITION", "BODY_ANGULAR_VELOCITY", "COMMAND_BODY_VELOCITY"} <= inputs
    assert {kind for kind, _ in INPUT_KINDS} <= inputs
    assert {kind for kind, _ in OUTPUT_KINDS} <= outputs


@pytest.mark.parametrize("name, annotation, doc, kind", [
    ("joint_pos", "", "", "JOINT_POSITION"),
    ("dof_vel", "", "", "JOINT_VELOCITY"),
    ("baseAngVel", "", "", "BODY_ANGULAR_VELOCITY"),
    ("q", "JointPositions", "", "JOINT_POSITION"),                       # a type alias says it
    ("x", "", "measured joint positions of the arm, in rad", "JOINT_POSITION"),   # the docstring says it
    ("cmd", "", "commanded base velocity command (vx, vy, yaw rate)", "COMMAND_BODY_VELOCITY"),
    ("q", "", "", None),                                                 # a bare letter means nothing
    ("joint_pos", "", "normalized joint positions", None),                # normalized: never guessed
    ("latent", "", "", None),
    ("obs", "", "", None),
    ("z", "", "terrain embedding", None),
    ("state", "", "joint positions and joint velocities", None),          # two meanings: ambiguous
])
def test_meaning_is_taken_only_when_unambiguous(name, annotation, doc, kind):
    got, why = meaning_of(name, annotation, doc, INPUT_KINDS)
    assert got == kind, why
    if kind is None:
        assert why


def test_outputs_use_output_kinds():
    assert meaning_of("joint_pos_target", "", "", OUTPUT_KINDS)[0] == "JOINT_POSITION"
    assert meaning_of("torques", "", "", OUTPUT_KINDS)[0] == "JOINT_TORQUES"
    assert meaning_of("action", "", "", OUTPUT_KINDS)[0] is None


def test_docstring_forms():
    fn = ast.parse('def f(a, b, c):\n    """Step.\n\n    Args:\n        a (Tensor): joint angles\n'
                   '        b: body linear velocity\n    :param c: latent code\n    """\n').body[0]
    assert docstring_descriptions(fn) == {"a": "joint angles", "b": "body linear velocity", "c": "latent code"}


def test_joint_order_only_from_one_unambiguous_list(tmp_path):
    app = tmp_path / "arm"
    app.mkdir()
    (app / "robot.py").write_text('JOINT_NAMES = ("j1", "j2")\nclass Arm:\n    def __init__(self):\n'
                                  '        self.dof_names = ["a", "b", "c"]\n')
    fn = ast.parse("def act(joint_pos):\n    return joint_pos\n").body[0]
    assert [names for _, names in joint_name_lists(app, tmp_path)] == [("j1", "j2"), ("a", "b", "c")]
    spec = build_semantics(tmp_path, fn, ("joint_pos",), ("joint_pos_target",), app)
    assert spec.inputs[0].kind == "JOINT_POSITION" and spec.inputs[0].element_names == ()
    assert any("2 different joint name lists" in why for _, why in spec.raw)
    (app / "robot.py").write_text('JOINT_NAMES = ("j1", "j2")\n')
    spec = build_semantics(tmp_path, fn, ("joint_pos",), ("joint_pos_target",), app)
    assert spec.inputs[0].element_names == ("j1", "j2") and spec.outputs[0].element_names == ("j1", "j2")
    assert spec.joint_names_at == "arm/robot.py:1 JOINT_NAMES"


README_LOCO = find_session("fixtures/run_locomotion")   # its generate --semantics + run, and a plain generate


@pytest.fixture(scope="module")
def exported(doc_session):
    """The README's `--semantics` example (`doc_session`: one export, shared with the README example's
    test): (the application's folder, the generate, the run, its report, the plain module)."""
    ran = doc_session(README_LOCO)
    gen = ran.of("leapp-codemod generate loco --entry loco.policy:LocomotionPolicy.act --driver main.py -o "
                 "/tmp/loco/sem.py --semantics")
    run = ran.of("LOCO_SIMULATOR=up leapp-codemod run /tmp/loco/sem.py --out /tmp/loco/sem")
    plain = ran.of("leapp-codemod generate loco --entry loco.policy:LocomotionPolicy.act --driver main.py -o "
                   "/tmp/loco/integration.py")      # the same generate without --semantics
    assert gen.returncode == 0 and plain.returncode == 0, gen.stderr + plain.stderr
    report = json.loads((ran.scratch / "loco" / "sem" / "report.json").read_text())
    return ran.cwd, gen, run, report, ran.scratch / "loco" / "integration.py"


@pytest.mark.e2e
@pytest.mark.xdist_group(doc_group(README_LOCO))
def test_exported_yaml_carries_kinds_and_joint_order(exported):
    import yaml
    from leapp import InferenceManager

    work, gen, run, report, _ = exported
    assert run.returncode == 0, report.get("error")
    assert report["status"] == "validated" and report["validation"]["ok"]
    model = yaml.safe_load((work / report["graph_yaml"]).read_text())["models"]["locomotion_policy"]
    inputs = {t["name"]: t for t in model["inputs"]}
    joints = ["hip_left", "knee_left", "hip_right", "knee_right"]
    assert inputs["joint_pos"]["kind"] == "state/joint/position"
    assert inputs["joint_pos"]["element_names"] == [joints]
    assert inputs["joint_vel"]["kind"] == "state/joint/velocity"
    assert inputs["base_ang_vel"]["kind"] == "state/body/angular_velocity"
    assert inputs["velocity_command"]["kind"] == "command/body/velocity"
    assert "kind" not in inputs["latent"]                       # normalized latent features: raw
    out = next(t for t in model["outputs"] if t["name"] == "joint_pos_target")
    assert out["kind"] == "target/joint/position" and out["element_names"] == [joints]
    assert report["semantics"]["raw"] == {"latent": "name says a latent vector: never guessed"}
    assert report["semantics"]["problems"] == []
    assert "left raw: latent: name says a latent vector" in gen.stderr
    im = InferenceManager(str(work / report["graph_yaml"]))
    result = im.run_policy(im.get_mock_input())
    assert set(result) == {"locomotion_policy/joint_pos_target"}


@pytest.mark.e2e
@pytest.mark.xdist_group(doc_group(README_LOCO))
def test_without_semantics_nothing_changes(exported):
    text = exported[4].read_text()
    assert "TensorSemantics" not in text and "described(" not in text and "InputKindEnum" not in text
    assert "boundary.input_tensors(" in text
