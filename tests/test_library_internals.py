"""LCM112/LCM113: hazards inside library code the pipeline calls, known from the library (torchvision is not
installed here), reached through the shapes real code gives the call: a transform built by a helper in another
module and held on `self`, a module-global pipeline, a pipeline a helper returns, a Gym evaluation range; and the
distributions the rule leaves alone (a project subclass, one held from the constructor, one in a plain wrapper)."""
from __future__ import annotations

from pathlib import Path

import pytest

from leapp_codemod.scan import scan_project

ROOT = Path(__file__).resolve().parent.parent / "fixtures"
ROVER = ROOT / "scan_library_internals"


def _scan(folder: Path, entry: str):
    result = scan_project([str(folder)], entry=entry)
    assert result.errors == [], result.errors
    return result


def _found(result) -> set[tuple[str, str, int]]:
    return {(f.code, Path(f.path).name, f.line) for f in result.findings}


def test_a_transform_with_a_pil_conversion_built_by_a_helper_and_held_on_self():
    result = _scan(ROVER, "rover.camera_node:SteeringNode.tick")
    assert _found(result) == {("LCM113", "camera_node.py", 17)}
    (finding,) = result.findings
    assert "vision.py:8" in finding.message and "Resize" in finding.message


def test_a_library_object_not_installed_is_listed_as_not_followed_with_its_class():
    result = _scan(ROVER, "rover.camera_node:SteeringNode.tick")
    reasons = {call.line: call.reason for call in result.not_followed}
    assert "torchvision.transforms.v2.Compose" in reasons[18] and "nor installed" in reasons[18]
    assert "torchvision.transforms.Compose" in reasons[17]


@pytest.mark.parametrize(("entry", "expected"), [
    ("rover.heads:GaussianHead.forward", set()),
    ("rover.heads:skill_code", {("LCM112", "heads.py", 27)}),
    ("rover/gym_eval.py:13-17", {("LCM112", "heads.py", 27)}),
    ("rover.heads:clipped_mean", set()),
    ("rover.heads:belief_centre", set()),
])
def test_value_sized_results_but_no_distribution_argument_checks(entry, expected):
    """`one_hot` without a class count is a finding (27; not 28 with `num_classes=`); a distribution built from
    pipeline data (heads 20, 21, 48, gym_eval 15) is not: its argument check only raises on invalid parameters."""
    if entry.startswith("rover/"):
        entry = str(ROVER / entry)
    found = {f for f in _found(_scan(ROVER, entry)) if f[0] in ("LCM112", "LCM113")}
    assert found == expected


def test_a_pipeline_a_helper_returns_called_at_once_is_found_and_named_in_the_not_followed_list():
    result = _scan(ROVER, "rover.snapshot:snapshot")
    assert _found(result) == {("LCM113", "snapshot.py", 6)}
    (call,) = [c for c in result.not_followed if c.line == 6]
    assert "torchvision.transforms.Compose" in call.reason and "vision.py:9" in call.reason
    assert "nor installed" in call.reason

