"""An index every driver passes as a Python int or None (`robot = None` ... `robot = 2`, a `range` counter) is a
setting of the export, never tensor data: building a tensor from it is no scalar extraction. One driver handing
a value computed from the data keeps it data."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_index_settings"
ENTRY = "fleet.agent:FleetAgent.act"


def _found(root: Path = ROOT) -> set[tuple[str, int]]:
    result = scan_project([str(root)], entry=ENTRY)
    assert result.errors == [], result.errors
    return {(f.code, f.line) for f in result.findings}


def test_an_index_bound_to_none_or_literal_ints_is_a_setting():
    before = tree_hash(ROOT)
    assert ("LCM102", 14) not in _found()
    assert tree_hash(ROOT) == before


def test_an_index_computed_from_the_data_stays_data(tmp_path):
    root = tmp_path / "copy"
    (root / "fleet").mkdir(parents=True)
    for path in (ROOT / "fleet").glob("*.py"):
        text = path.read_text()
        if path.name == "run.py":
            text = text.replace("        obs = obs + 0.1 * action.sum()\n",
                                "        obs = obs + 0.1 * action.sum()\n        agent.act(obs, robot=obs.argmax())\n")
        (root / "fleet" / path.name).write_text(text)
    assert ("LCM102", 14) in _found(root)
