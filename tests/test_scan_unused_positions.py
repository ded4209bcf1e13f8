"""Hazards that only feed positions of a returned tuple no pipeline call uses are no findings: the joint head's
confidence score (an `.item()` in one helper, a `float()` in the helper that clips the pair) when the controller
keeps only the command (`command, *_ = joint_head(...)`), even though the training update reads the score. A
pipeline caller that returns the score or indexes it keeps both findings."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_unused_positions"
ENTRY = "arm.controller:ArmController.forward"
SCORE_LINES = {("heads.py", 7, "LCM101"), ("heads.py", 12, "LCM102")}


def _score_findings(root: Path = ROOT) -> set[tuple[str, int, str]]:
    result = scan_project([str(root)], entry=ENTRY)
    assert result.errors == [], result.errors
    found = {(Path(f.path).name, f.line, f.code) for f in result.findings}
    return found & SCORE_LINES


def _copy(tmp_path: Path, old: str, new: str) -> Path:
    root = tmp_path / "copy"
    (root / "arm").mkdir(parents=True)
    for path in (ROOT / "arm").glob("*.py"):
        (root / "arm" / path.name).write_text(path.read_text())
    text = (root / "arm" / "controller.py").read_text()
    assert old in text
    (root / "arm" / "controller.py").write_text(text.replace(old, new))
    return root


def test_positions_the_step_drops_are_not_findings():
    before = tree_hash(ROOT)
    assert _score_findings() == set()
    assert tree_hash(ROOT) == before


def test_a_step_that_returns_the_score_keeps_both_findings(tmp_path):
    root = _copy(tmp_path, "        command, *_ = joint_head(features, self.weight)\n        return command\n",
                 "        command, score = joint_head(features, self.weight)\n        return command, score\n")
    assert _score_findings(root) == SCORE_LINES


def test_a_step_that_indexes_the_score_keeps_both_findings(tmp_path):
    root = _copy(tmp_path, "        return command\n",
                 "        return command * joint_head(features, self.weight)[1]\n")
    assert _score_findings(root) == SCORE_LINES


def test_a_call_of_the_helper_on_the_pipeline_that_keeps_the_score_keeps_its_finding(tmp_path):
    root = _copy(tmp_path, "        return command\n",
                 "        _, score = clip_pair(command, features.sum())\n        return command, score\n")
    text = (root / "arm" / "controller.py").read_text()
    (root / "arm" / "controller.py").write_text(text.replace("import joint_head", "import clip_pair, joint_head"))
    assert _score_findings(root) == {("heads.py", 12, "LCM102")}
