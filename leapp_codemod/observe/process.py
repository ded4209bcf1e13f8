"""Start the observed process and collect its observation (the parent side).

The child runs in its own session (process group): SIGINT/SIGTERM to the parent, an exception, or
the timeout terminate the whole group, so nothing the driver started survives; the child also dies
with its parent. The group handling is `runner.parent`'s (`child_group_guard`), reached only here.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


class ObserveError(Exception):
    """The driver could not be observed (one line)."""


@dataclass(frozen=True)
class EntryLocation:
    """Where the entry's code starts: the child matches code objects against it."""

    file: str
    line: int
    name: str


def _group_guard():
    from leapp_codemod.runner.parent import _child_group_guard
    return _child_group_guard()


def _kill(proc: subprocess.Popen) -> None:
    from leapp_codemod.runner.parent import _kill as kill
    kill(proc)


def run_observer(*, roots: list[str], import_root: Path, calls: int, timeout: float, driver: Path | None = None,
                 inputs: Path | None = None, entry: EntryLocation | None = None, rank: bool = False) -> dict:
    """Run `driver` (or replay `inputs`) in a child process under the tracer; the observation dict.
    `entry`: record the first `calls` calls of it; `rank`: record the entrypoint ranking."""
    label = driver or inputs
    with tempfile.TemporaryDirectory(prefix="leapp-codemod-observe-") as work:
        result = Path(work) / "observed.json"
        config = Path(work) / "config.json"
        config.write_text(json.dumps({
            "driver": str(driver.resolve()) if driver else None, "inputs": str(inputs.resolve()) if inputs else None,
            "import_root": str(import_root), "roots": roots, "calls": calls, "rank": rank,
            "entry": {"file": entry.file, "line": entry.line, "name": entry.name} if entry else None,
            "cwd": os.getcwd(), "result": str(result), "parent": os.getpid()}))
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        timed_out = False
        with open(Path(work) / "driver.log", "w") as log, _group_guard() as guard:
            proc = subprocess.Popen([sys.executable, "-m", "leapp_codemod.observe.child", str(config)],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                                    start_new_session=True)
            guard.append(proc)
            deadline = time.monotonic() + timeout
            while proc.poll() is None:
                if time.monotonic() > deadline:
                    timed_out = True
                    _kill(proc)
                    break
                time.sleep(0.05)
        if not result.exists():
            tail = (Path(work) / "driver.log").read_text(errors="replace").strip().splitlines()
            why = f"timed out after {timeout:g} s" if timed_out else (
                f"the observer stopped (exit {proc.returncode}): {tail[-1][:200] if tail else 'no output'}")
            raise ObserveError(f"{label}: {why}")
        return json.loads(result.read_text())
