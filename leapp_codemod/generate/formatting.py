"""Give the generated module the layout a repository expects: ruff's import order and formatting.

Runs `ruff check --select I,F401,RUF100 --fix` (import order, unused imports and `noqa`s) and
`ruff format`, with ruff's default settings (`--isolated`, so neither the application's nor this
project's configuration changes the result). Without ruff the
text is returned as rendered; the templates are already close to ruff's layout.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile

RUFF_TIMEOUT_S = 60
STEPS = (
    ("check", "--isolated", "--select", "I,F401,RUF100", "--fix", "--exit-zero", "--quiet"),
    ("format", "--isolated", "--quiet"),
)


def ruff_available() -> bool:
    try:
        import ruff  # noqa: F401 - only whether it is installed
    except ImportError:
        return False
    return True


def format_module(text: str, filename: str = "integration.py") -> str:
    """`text` import-sorted and formatted by ruff; unchanged when ruff is missing or cannot parse it."""
    if not ruff_available():
        return text
    with tempfile.TemporaryDirectory(prefix="leapp-codemod-format-") as neutral_cwd:
        for step in STEPS:
            try:
                done = subprocess.run([sys.executable, "-m", "ruff", *step, "--stdin-filename", filename, "-"],
                                      input=text, capture_output=True, text=True, timeout=RUFF_TIMEOUT_S,
                                      cwd=neutral_cwd)
            except (OSError, subprocess.TimeoutExpired):
                return text
            if done.returncode != 0 or not done.stdout.strip():
                return text
            text = done.stdout
    return text
