"""Values a step keeps only for a figure drawn after the run are host-side: the axes a figure makes (and the grid
it lays them on) are drawing handles like the figure itself, so what they plot is no output of the step. A list
the script sends on stays an output."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_drawn_history"


def _found(entry: str, root: Path = ROOT) -> set[tuple[str, int]]:
    result = scan_project([str(root)], entry=entry)
    assert result.errors == [], result.errors
    return {(f.code, f.line) for f in result.findings}


def test_logs_drawn_on_axes_a_figure_makes_are_not_state_nor_pipeline_work():
    before = tree_hash(ROOT)
    assert _found("arm.reach:ReachController.step") == set()
    assert tree_hash(ROOT) == before


def test_a_log_the_script_hands_to_a_publisher_stays_an_output(tmp_path):
    root = tmp_path / "copy"
    (root / "arm").mkdir(parents=True)
    for name in ("__init__.py", "reach.py"):
        text = (ROOT / "arm" / name).read_text()
        if name == "reach.py":
            text = text.replace('    figure.savefig("reach.png")\n', '    figure.savefig("reach.png")\n'
                                '    arm.publish_summary(ctrl.effort_log)\n')
        (root / "arm" / name).write_text(text)
    found = _found("arm.reach:ReachController.step", root)
    assert ("LCM701", 21) in found and ("LCM102", 17) not in found
