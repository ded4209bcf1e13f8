"""Attributes the constructor sets on every path (directly, through the object's own helper methods, in both arms
of an `if`, in a `try` and its handler) are never None while a step runs: the arm of `if self.x is None:` is dead.
One set only under a flag, or one a later method resets to None, keeps both arms."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_constructed_attrs"
ENTRY = "arm.node:JointCommander.command"
OFFSETS_ARM, LIMITS_ARM, NAMES_ARM = 42, 48, 50


def _found(root: Path = ROOT) -> set[tuple[str, int]]:
    result = scan_project([str(root)], entry=ENTRY)
    assert result.errors == [], result.errors
    return {(f.code, f.line) for f in result.findings}


def _edited(tmp_path: Path, old: str, new: str) -> Path:
    root = tmp_path / "copy"
    (root / "arm").mkdir(parents=True)
    for path in (ROOT / "arm").glob("*.py"):
        text = path.read_text()
        if path.name == "node.py":
            assert old in text
            text = text.replace(old, new)
        (root / "arm" / path.name).write_text(text)
    return root


def test_arms_for_attributes_construction_always_sets_are_dead():
    before = tree_hash(ROOT)
    found = _found()
    assert ("LCM102", OFFSETS_ARM) not in found and ("LCM102", NAMES_ARM) not in found, found
    assert ("LCM102", LIMITS_ARM) in found     # set only when the constructor is given `fast`
    assert tree_hash(ROOT) == before


def test_a_reset_to_none_keeps_the_arm(tmp_path):
    root = _edited(tmp_path, "    def _load_limits(self):\n",
                   "    def forget(self):\n        self.joint_names = None\n\n    def _load_limits(self):\n")
    assert ("LCM102", NAMES_ARM + 3) in _found(root)


def test_a_helper_that_leaves_one_path_unset_keeps_the_arm(tmp_path):
    root = _edited(tmp_path, '        self.joint_names = ["j0", "j1", "j2"]\n', "")
    assert ("LCM102", NAMES_ARM - 1) in _found(root)
