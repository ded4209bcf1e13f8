"""ANSI colour for the text output: on for a terminal, off when piped or when NO_COLOR is set."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

CODES = {"bold": "1", "red": "1;31", "yellow": "1;33", "cyan": "1;36", "blue": "1;34", "dim": "2"}
SEVERITY_COLOR = {"error": "red", "warning": "yellow"}


def color_wanted(is_terminal: bool, environ: Mapping[str, str]) -> bool:
    """NO_COLOR (any non-empty value) wins, then FORCE_COLOR, then whether the output is a terminal."""
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    return is_terminal and environ.get("TERM") != "dumb"


@dataclass(frozen=True)
class Style:
    enabled: bool = False

    def paint(self, text: str, color: str) -> str:
        if not self.enabled or not text:
            return text
        return f"\x1b[{CODES[color]}m{text}\x1b[0m"

    def severity(self, text: str, severity: str) -> str:
        return self.paint(text, SEVERITY_COLOR.get(severity, "bold"))
