"""The command line run inside the test's process (click's runner) for tests about what `scan`, `lint`,
`entrypoints` or `generate` print and return, not about the process: a fresh interpreter costs about
0.3 s of CPU (start-up and imports) per call. What it returns is what `subprocess.run(TOOL + args,
cwd=cwd, capture_output=True, text=True)` returns; an exception that escapes the command is printed
into stderr as the interpreter prints it (`Traceback ...`, exit 1), so a test asserting "no traceback"
still sees one. Tests about the process itself (imports, signals, the recursion limit of a fresh
interpreter, another user, a read-only tree) and `run`/`record` (a child, signal handlers) keep
`subprocess`."""
from __future__ import annotations

import contextlib
import subprocess
import traceback
from pathlib import Path

from click.testing import CliRunner

from leapp_codemod.cli import main

PROG = "python -m leapp_codemod"        # what click names the program in usage lines under `python -m`
IN_PROCESS = frozenset({"scan", "lint", "entrypoints", "generate", "rules", "explain"})


def cli(args, cwd: Path | str, input: str | None = None, env: dict[str, str] | None = None,
        ) -> subprocess.CompletedProcess:
    args = [str(a) for a in args]
    assert args and args[0] in IN_PROCESS, f"{args[:1]}: run it as a process"
    with contextlib.chdir(cwd):
        result = CliRunner(env=env).invoke(main, args, input=input, prog_name=PROG)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess([PROG, *args], result.exit_code, result.stdout, stderr)
