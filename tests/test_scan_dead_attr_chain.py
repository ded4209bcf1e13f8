"""A sensor value that goes through a chain of attributes of the node (a rate, its window, its average, a row list
saved at shutdown, a ROS 1 warning) reaches no output: its callback-filled read is no input of the export and the
attributes are no carried state, however long the chain. The value the policy sees stays an input (LCM903)."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_dead_attr_chain"


def _found(root: Path = ROOT) -> set[tuple[str, int]]:
    result = scan_project([str(root)], entry="balance.node:BalanceNode.step")
    assert result.errors == [], result.errors
    return {(f.code, f.line) for f in result.findings}


def test_a_chain_of_diagnostic_attributes_is_dead():
    before = tree_hash(ROOT)
    found = _found()
    assert ("LCM903", 43) in found                  # the joints the policy reads: an outside input
    assert not {f for f in found if f[1] in range(35, 42)}, found   # the IMU's chain: nothing
    assert tree_hash(ROOT) == before


def test_the_chain_sent_on_its_own_channel_stays_off_the_models_path(tmp_path):
    """The average is published too, but it feeds neither the policy nor its action: a second channel of host
    telemetry (scan/model_path.py), not the export's input or state."""
    root = tmp_path / "copy"
    (root / "balance").mkdir(parents=True)
    (root / "balance" / "__init__.py").write_text("")
    text = (ROOT / "balance" / "node.py").read_text()
    text = text.replace("        self.diag.append((self.steps, self.rate_avg))\n",
                        "        self.diag.append((self.steps, self.rate_avg))\n"
                        "        self.pub.publish(Float32MultiArray(data=[self.rate_avg]))\n")
    (root / "balance" / "node.py").write_text(text)
    found = _found(root)
    assert ("LCM903", 43) in found
    assert not {f for f in found if f[1] in range(35, 42)}, found
