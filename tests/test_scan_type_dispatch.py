"""Type dispatches the pipeline's own calls decide: a helper written for both array kinds tests what it was handed
(`isinstance(q, torch.Tensor)` / `isinstance(q, np.ndarray)`, `torch.is_tensor(v)`, `isinstance(bound, float)`
on a `None` default). When every reached call hands the parameter the same kind, the other arm is not pipeline
code; a call handing the other kind, or a rebinding before the test, keeps both arms."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_type_dispatch"
STEP = "gripper.step:GraspStep.step"
# the data branches inside the arm each dispatch rules out
NUMPY_ARM, TORCH_ARM, FLOAT_ARM, RETURNED_ARM = 19, 31, 40, 47


def _found(entry: str, root: Path = ROOT) -> set[tuple[str, str, int]]:
    result = scan_project([str(root)], entry=entry)
    assert result.errors == [], result.errors
    return {(f.code, Path(f.path).name, f.line) for f in result.findings}


def _copy(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> Path:
    root = tmp_path / "copy"
    (root / "gripper").mkdir(parents=True)
    for path in (ROOT / "gripper").glob("*.py"):
        text = path.read_text()
        if path.name in edits:
            old, new = edits[path.name]
            assert old in text
            text = text.replace(old, new)
        (root / "gripper" / path.name).write_text(text)
    return root


def test_arms_no_reached_call_takes_are_not_pipeline_code():
    before = tree_hash(ROOT)
    found = _found(STEP)
    assert not {line for code, name, line in found if name == "units.py"} & {NUMPY_ARM, TORCH_ARM, FLOAT_ARM,
                                                                            RETURNED_ARM}, found
    assert tree_hash(ROOT) == before


def test_a_loop_body_handing_a_model_output_rules_out_the_numpy_arm():
    found = _found(f"{ROOT / 'gripper' / 'rollout.py'}:11-13")
    assert ("LCM201", "units.py", NUMPY_ARM) not in found, found


def test_a_call_handing_the_other_kind_keeps_both_arms(tmp_path):
    root = _copy(tmp_path, {"step.py": ("        return target, scaled, limited, feat\n",
                                        "        back = units.to_radians(wrist + 0.0)\n"
                                        "        return target, scaled, limited, feat, back\n")})
    assert ("LCM201", "units.py", NUMPY_ARM) in _found(STEP, root)


def test_a_parameter_rebound_before_the_test_keeps_both_arms(tmp_path):
    root = _copy(tmp_path, {"units.py": ("def as_array(values):\n",
                                         "def as_array(values):\n    values = values if values is not None else 0\n")})
    assert ("LCM201", "units.py", TORCH_ARM + 1) in _found(STEP, root)


def test_a_call_passing_the_optional_bound_keeps_its_arm(tmp_path):
    root = _copy(tmp_path, {"step.py": ("units.clipped(wrist)", "units.clipped(wrist, np.ones(3))")})
    assert ("LCM201", "units.py", FLOAT_ARM) in _found(STEP, root)


def test_a_helper_that_may_return_an_array_keeps_the_arm(tmp_path):
    root = _copy(tmp_path, {"step.py": ("        return torch.cat([obs, obs * 2.0])\n",
                                        "        if self.gain > 1.0:\n            return obs.numpy()\n"
                                        "        return torch.cat([obs, obs * 2.0])\n")})
    assert ("LCM201", "units.py", RETURNED_ARM) in _found(STEP, root)
