"""Start the observed process and collect its observation (the parent side).

The child runs in its own session (process group): SIGINT/SIGTERM to the parent, an exception, or
the timeout terminate the whole group, so nothing the driver started survives, even when the tool
itself is killed (`runner.procgroup`'s watchdog); the child also dies with its parent.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
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


def run_observer(*, roots: list[str], import_root: Path, calls: int, timeout: float, driver: Path | None = None,
                 inputs: Path | None = None, entry: EntryLocation | None = None, rank: bool = False,
                 allow_pickle: bool = False) -> dict:
    """Run `driver` (or replay `inputs`) in a child process under the tracer; the observation dict.
    `entry`: record the first `calls` calls of it; `rank`: record the entrypoint ranking; `allow_pickle`:
    the recording may unpickle the entry's instance (it runs code from the file)."""
    from leapp_codemod.io_util import write_atomic
    from leapp_codemod.runner import procgroup

    label = driver or inputs
    work = tempfile.mkdtemp(prefix="leapp-codemod-observe-")
    try:
        result = Path(work) / "observed.json"
        config = Path(work) / "config.json"
        write_atomic(config, json.dumps({
            "driver": str(driver.resolve()) if driver else None, "inputs": str(inputs.resolve()) if inputs else None,
            "import_root": str(import_root), "roots": roots, "calls": calls, "rank": rank,
            "allow_pickle": allow_pickle,
            "entry": {"file": entry.file, "line": entry.line, "name": entry.name} if entry else None,
            "cwd": os.getcwd(), "result": str(result), "parent": os.getpid()}))
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        outcome = procgroup.run_supervised([sys.executable, "-m", "leapp_codemod.observe.child", str(config)],
                                           env=env, timeout=timeout, log=None, cleanup=(work,),
                                           read_result=str(result))
    finally:
        procgroup.remove_paths([work])
    if outcome.result is None:
        tail = outcome.output.text().strip().splitlines()
        why = f"timed out after {timeout:g} s" if outcome.timed_out else (
            f"the observer stopped (exit {outcome.returncode}): {tail[-1][:200] if tail else 'no output'}")
        raise ObserveError(f"{label}: {why}")
    return outcome.result
