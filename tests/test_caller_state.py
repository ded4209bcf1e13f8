"""LCM704: state a function entry's driver loop holds (a frame stack it rolls between calls) and passes in inside a
dict, reported at the entry's first read of the parameter with the driver's lines; a driver that hands a fresh
value to every call holds no state."""
from __future__ import annotations

import hashlib

from scanfixture import FIXTURES, check_marked, scan_copy

GROUP, APP, ENTRY = "caller_state", "rover", "rover.policy:DepthPolicy.act"


def _tree_hash(root):
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def test_a_frame_stack_the_driver_rolls_is_reported_at_the_entry(tmp_path, monkeypatch):
    before = _tree_hash(FIXTURES / GROUP / APP)
    check_marked(GROUP, tmp_path, monkeypatch, APP, ENTRY)
    found = [f for f in scan_copy(GROUP, tmp_path / "again", APP, ENTRY, monkeypatch).findings if f.code == "LCM704"]
    assert [(f.line, f.severity) for f in found] == [(13, "warning")]
    assert "`stack`" in found[0].message and "rover/drive.py" in found[0].message
    assert "builds at line 14" in found[0].message and "lines 16, 17" in found[0].message
    assert _tree_hash(FIXTURES / GROUP / APP) == before


def test_a_driver_that_passes_a_fresh_value_holds_no_state(tmp_path, monkeypatch):
    result = scan_copy(GROUP, tmp_path, APP, ENTRY, monkeypatch)
    assert [f.code for f in result.findings] == ["LCM704"]
    drive = tmp_path / APP / "rover" / "drive.py"
    text = drive.read_text()
    rolled = "        stack = np.roll(stack, 1, axis=0)\n        stack[0] = read_depth(t)\n"
    assert rolled in text
    drive.write_text(text.replace(rolled, "        stack = np.stack([read_depth(t + k) for k in range(4)])\n"))
    from leapp_codemod.scan import scan_project
    assert not [f for f in scan_project(["."], entry=ENTRY).findings if f.code == "LCM704"]


def test_a_plant_the_driver_integrates_is_no_history(tmp_path, monkeypatch):
    """`stack = stack + 0.1 * ...`: arithmetic on the old value (a simulated plant, as in scan_warp_controller's
    `q = q + 0.01 * tau`) is the world the driver simulates, not a history it keeps."""
    scan_copy(GROUP, tmp_path, APP, ENTRY, monkeypatch)
    drive = tmp_path / APP / "rover" / "drive.py"
    text = drive.read_text()
    rolled = "        stack = np.roll(stack, 1, axis=0)\n        stack[0] = read_depth(t)\n"
    drive.write_text(text.replace(rolled, "        stack = stack + 0.1 * read_depth(t)\n"))
    from leapp_codemod.scan import scan_project
    assert not [f for f in scan_project(["."], entry=ENTRY).findings if f.code == "LCM704"]
