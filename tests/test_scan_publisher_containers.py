"""LCM901 on sends through publishers held in containers: a list comprehension of ROS 2 publishers iterated with
`zip`, a dict literal indexed by key, a list filled with `append` and one item taken into a local, a module-level
tuple of ROS 1 publishers iterated with `enumerate`. A project object's `write` in a dict is no send."""
from __future__ import annotations

from pathlib import Path

import pytest

from leapp_codemod.scan import scan_project

CRANE = Path(__file__).resolve().parent.parent / "fixtures" / "scan_publisher_containers"


def _io(entry: str) -> set[tuple[str, int]]:
    result = scan_project([str(CRANE)], entry=entry)
    assert result.errors == [], result.errors
    return {(Path(f.path).name, f.line) for f in result.findings if f.code == "LCM901"}


@pytest.mark.parametrize(("entry", "expected"), [
    ("crane.winch_node:WinchNode.pay_out", {("winch_node.py", 32)}),
    ("crane.winch_node:WinchNode.brake", {("winch_node.py", 37)}),
    ("crane.winch_node:WinchNode.trim", {("winch_node.py", 43)}),
    ("crane.winch_node:WinchNode.record", set()),
    ("crane.hoist:lift", {("hoist.py", 12)}),
])
def test_a_send_through_a_publisher_held_in_a_container(entry, expected):
    assert _io(entry) == expected
