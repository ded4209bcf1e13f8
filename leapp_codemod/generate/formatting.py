"""Give the generated module the layout its repository expects.

Runs `ruff check --select I,F401,RUF100 --fix` (import order, unused imports and `noqa`s) and
`ruff format`. When the folder the module is written to is governed by a ruff configuration
(`ruff.toml`, `.ruff.toml` or a `pyproject.toml` with `[tool.ruff]`, the nearest one upwards), ruff
runs with it (line length, quotes, isort settings); when it is governed by black's
(`[tool.black]`) and black is installed, black formats with it after ruff sorted the imports;
otherwise ruff's defaults apply (`--isolated`). Without ruff the text is returned as rendered;
the templates are already close to ruff's layout. `generate` and `generate --check` both format
this way, so the two agree.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

RUFF_TIMEOUT_S = 60
CHECK = ("check", "--select", "I,F401,RUF100", "--fix", "--exit-zero", "--quiet")
FORMAT = ("format", "--quiet")


@dataclass(frozen=True)
class Style:
    """Whose configuration formats the module: "ruff", "black" or "default" (ruff's defaults), and the
    file that holds it."""

    tool: str = "default"
    config: Path | None = None


def ruff_available() -> bool:
    try:
        import ruff  # noqa: F401 - only whether it is installed
    except ImportError:
        return False
    return True


def _black_available() -> bool:
    try:
        import black  # noqa: F401 - only whether it is installed
    except ImportError:
        return False
    return True


def _tools_in(pyproject: Path) -> set[str]:
    try:
        tool = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return set()
    return {name for name in ("ruff", "black") if isinstance(tool, dict) and name in tool}


def project_style(target: Path | None) -> Style:
    """The nearest formatter configuration above the folder of `target` (the module's path)."""
    if target is None:
        return Style()
    folder = target.resolve().parent
    for candidate in (folder, *folder.parents):
        for name in ("ruff.toml", ".ruff.toml"):
            if (candidate / name).is_file():
                return Style("ruff", candidate / name)
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            tools = _tools_in(pyproject)
            if "ruff" in tools:
                return Style("ruff", pyproject)
            if "black" in tools:
                return Style("black", pyproject)
            return Style()   # a project without a formatter configuration: ruff's defaults
    return Style()


def _run(command: list[str], text: str, cwd: str) -> str | None:
    try:
        done = subprocess.run(command, input=text, capture_output=True, text=True, timeout=RUFF_TIMEOUT_S, cwd=cwd)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return done.stdout


def format_module(text: str, filename: str = "integration.py", target: Path | None = None) -> str:
    """`text` import-sorted and formatted as the project at `target` formats (see the module doc);
    unchanged when ruff is missing or cannot parse it."""
    if not ruff_available():
        return text
    style = project_style(target)
    with tempfile.TemporaryDirectory(prefix="leapp-codemod-format-") as neutral_cwd:
        if style.tool == "ruff":
            steps = [[*CHECK, "--config", str(style.config)], [*FORMAT, "--config", str(style.config)]]
        elif style.tool == "black" and _black_available():
            steps = [[*CHECK, "--isolated"]]
        else:
            steps = [[*CHECK, "--isolated"], [*FORMAT, "--isolated"]]
        for step in steps:
            out = _run([sys.executable, "-m", "ruff", *step, "--stdin-filename", filename, "-"], text, neutral_cwd)
            if out is None:
                return text
            text = out
        if style.tool == "black" and _black_available():
            out = _run([sys.executable, "-m", "black", "--quiet", "--config", str(style.config), "-"], text,
                       neutral_cwd)
            text = out if out is not None else text
    return text
