"""What the pipeline does not use of a helper's return: a call of the helper in module-level code outside the
entry (a self-check run at import) uses nothing of the pipeline's (fixtures/scan_unused_positions, varied in a
copy)."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.scan import scan_project

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_unused_positions"
ENTRY = "arm.controller:ArmController.forward"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "copy"
    (root / "arm").mkdir(parents=True)
    for path in (ROOT / "arm").glob("*.py"):
        (root / "arm" / path.name).write_text(path.read_text())
    return root


def _found(root: Path) -> set[tuple[str, int, str]]:
    result = scan_project([str(root)], entry=ENTRY)
    assert result.errors == [], result.errors
    return {(Path(f.path).name, f.line, f.code) for f in result.findings}


def test_a_module_level_self_check_keeps_no_position(tmp_path):
    root = _copy(tmp_path)
    (root / "arm" / "selfcheck.py").write_text(
        "import torch\n\nfrom arm.heads import joint_head\n\n"
        "print(joint_head(torch.zeros(4), torch.zeros(4, 2)))\n")
    assert not {f for f in _found(root) if f[0] == "heads.py"}
