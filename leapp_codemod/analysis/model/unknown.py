"""The marker for a value no call site fixes (shared by the folding, settings and key analyses)."""
from __future__ import annotations

UNKNOWN = ("<not a constant>",)   # a parameter value no call site fixes
