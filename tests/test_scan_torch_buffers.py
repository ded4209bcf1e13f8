"""A torch buffer kept on the object and written at the same places on every call is traced by LEAPP 0.7.2 (the
writes are recorded): no LCM703. A NumPy buffer, a torch buffer written at a place a counter picks, and one the
write reads back (what an earlier call left) stay findings."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_torch_buffers"
ENTRY = "hexa.gait:GaitObserver.step"


def _found(root: Path = ROOT) -> set[tuple[str, int]]:
    result = scan_project([str(root)], entry=ENTRY)
    assert result.errors == [], result.errors
    return {(f.code, f.line) for f in result.findings}


def test_torch_buffers_written_at_fixed_places_are_traced():
    before = tree_hash(ROOT)
    found = _found()
    assert not {("LCM703", line) for line in (19, 20, 21, 22)} & found, found
    assert ("LCM703", 23) in found       # the NumPy buffer stays a frozen copy
    assert ("LCM703", 25) in found       # a column a counter picks changes between calls
    assert tree_hash(ROOT) == before


def _edited(tmp_path: Path, old: str, new: str) -> Path:
    root = tmp_path / "copy"
    (root / "hexa").mkdir(parents=True)
    for path in (ROOT / "hexa").glob("*.py"):
        text = path.read_text()
        if path.name == "gait.py":
            assert old in text
            text = text.replace(old, new)
        (root / "hexa" / path.name).write_text(text)
    return root


def test_a_write_that_reads_what_the_last_call_left_stays_a_finding(tmp_path):
    root = _edited(tmp_path, "self.obs_buf[:, 0:3] = ang_vel", "self.obs_buf[:, 0:3] = 0.9 * self.obs_buf[:, 0:3] + ang_vel")
    assert {("LCM701", 20), ("LCM703", 20)} & _found(root)   # recurrent state, whichever rule names it


def test_a_write_under_a_branch_stays_a_finding(tmp_path):
    root = _edited(tmp_path, "        self.obs_buf[:, 3:6] = grav\n",
                   "        if self.ticks % 2 == 0:\n            self.obs_buf[:, 3:6] = grav\n")
    assert ("LCM703", 22) in _found(root)
