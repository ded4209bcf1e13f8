"""A failed verdict quotes LEAPP's frozen-constant hint whole (it names no line: the scan's first finding that
can explain it is named after it), never cut mid-sentence."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.runner.export import Attempt, lost_computation

HINT = ("gait_node: Sample 0 (initial trace) passed validation, but one or more re-entry samples failed. This "
        "pattern often means a value that changes across iterations was inlined as a constant during export. "
        "Consider declaring it with annotate.input_tensors() for this node.")


def test_the_frozen_constant_hint_is_quoted_whole():
    att = Attempt(backend="onnx", directory=Path("."), outcome="failed", stage="validation",
                  signals=[{"signal": "frozen-constant", "message": HINT, "location": ""}])
    text = lost_computation(att)
    assert text == f"LEAPP frozen-constant signal: {HINT}"
