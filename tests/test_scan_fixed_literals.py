"""A number an inline range reads is a constant when every binding of it is the same literal, however often the
loop rebinds it (`B = 1` at the top of every pass); a counter, a number set to another literal on one branch,
stays a number that changes (LCM103)."""
from __future__ import annotations

import ast
from pathlib import Path

from leapp_codemod.analysis.inline.fixed_literals import fixed_literal
from leapp_codemod.scan import scan_project
from test_entry_discovery import tree_hash

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "scan_fixed_literals"


def _found(entry: str) -> set[tuple[str, int, str]]:
    result = scan_project([str(ROOT)], entry=entry)
    assert result.errors == [], result.errors
    return {(f.code, f.line, f.message.split("`")[1]) for f in result.findings if f.code == "LCM103"}


def test_script_loop_numbers_rebound_to_one_literal_are_constants():
    before = tree_hash(ROOT)
    found = _found(f"{ROOT}/nav/drive.py:16-18")
    assert {name for _, _, name in found} == {"gain", "tick"}   # a branch sets another value; a counter
    assert tree_hash(ROOT) == before


def test_method_loop_numbers_rebound_to_one_literal_are_constants():
    assert _found(f"{ROOT}/nav/replay.py:16-17") == set()


def _fixed(source: str, name: str) -> bool:
    return fixed_literal(ast.parse(source), name)


def test_what_counts_as_one_literal():
    assert _fixed("b = 1\nwhile True:\n    b = 1\n", "b")
    assert _fixed("s = -0.5\nfor _ in x:\n    s = -0.5\n", "s")
    assert _fixed("shape = (1, 3)\nshape = (1, 3)\n", "shape")
    assert not _fixed("b = 1\nb = 2\n", "b")
    assert not _fixed("b = 1\nb = 1.0\n", "b")          # another type: another value
    assert not _fixed("b = 1\nb += 1\n", "b")
    assert not _fixed("b = 1\nfor b in range(3):\n    pass\n", "b")
    assert not _fixed("b = 1\nb, c = f()\n", "b")
    assert not _fixed("b = 1\nb = n\n", "b")
    assert not _fixed("b = 1\nif (b := g()):\n    pass\n", "b")
    assert not _fixed("def f():\n    global b\n    b = 1\n", "b")
    assert not _fixed("x = 1\n", "b")                    # never bound here: unknown
    assert _fixed("b = 1\ndef g():\n    b = 2\n", "b")   # the nested function's `b` is its own
