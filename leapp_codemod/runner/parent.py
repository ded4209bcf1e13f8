"""`run` in the user's process: run the child with a timeout and collect its result (the module
is read by module_info, the verdict built by verdict). Imports neither torch nor leapp nor the
application."""
from __future__ import annotations

import json
import os
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path

from leapp_codemod.io_util import open_stream, prepare_out_dir, write_atomic
from leapp_codemod.runner import procgroup

from leapp_codemod.runner.module_info import ModuleInfo


@dataclass(frozen=True)
class RunOptions:
    file: Path
    out: Path
    traces: int = 5
    checks: int = 3
    require_format: str | None = None
    timeout: float = 600.0
    inputs: Path | None = None      # replay this recording instead of running the driver
    record: Path | None = None      # save the calls to this recording instead of exporting
    driver_args: tuple[str, ...] = ()   # the driver's command-line arguments (`run FILE -- ARGS`)
    allow_pickle: bool = False      # --allow-pickle: a recording's pickled instance may be loaded
    cleanup: tuple[str, ...] = ()   # the caller's temporary paths, removed by the watchdog if the tool is killed


@dataclass
class ChildResult:
    data: dict = field(default_factory=dict)
    timed_out: bool = False
    returncode: int | None = None
    log: str = ""


def run_child(info: ModuleInfo, opts: RunOptions, progress) -> ChildResult:
    """Run the runner's child under `procgroup` (no process outlives `run`; output capped); every file
    written in --out goes through `io_util` (the folder is checked first, see `prepare_out_dir`)."""
    out = prepare_out_dir(opts.out).resolve()
    tag = secrets.token_hex(4)
    result_path = str(out / f".result-{tag}.json")
    config_path = out / f".run-config-{tag}.json"
    read_fd, write_fd = os.pipe()
    config = {
        "file": str(info.path.resolve()), "integration_dir": str(info.path.resolve().parent),
        "import_root": str(info.app_root), "driver": str(info.driver), "cwd": os.getcwd(),
        "out": str(out), "traces": opts.traces, "checks": opts.checks,
        "require_format": opts.require_format, "result": result_path, "progress_fd": write_fd,
        "inputs": str(opts.inputs.resolve()) if opts.inputs else None,
        "record": str(opts.record.resolve()) if opts.record else None,
        "driver_args": list(opts.driver_args or info.driver_args),
        "allow_pickle": opts.allow_pickle, "parent": os.getpid(),
    }
    cleanup = [result_path, str(config_path)]
    if opts.inputs:
        from leapp_codemod.runner.replay import driver_script
        config["driver"] = str(driver_script(out, opts.inputs, opts.allow_pickle))
        cleanup.append(config["driver"])
    write_atomic(config_path, json.dumps(config), folder=out)
    env = dict(os.environ, **dict(info.driver_env), PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1")
    res = ChildResult()
    with open_stream(out / "run.log", folder=out) as log:       # readable while the driver runs
        outcome = procgroup.run_supervised(
            [sys.executable, "-m", "leapp_codemod.runner.child", str(config_path)], env=env, timeout=opts.timeout,
            log=log, cleanup=tuple(cleanup), pass_fds=(write_fd,), progress_fd=read_fd,
            on_line=progress, read_result=result_path, if_killed=opts.cleanup)
    res.timed_out, res.returncode, res.log = outcome.timed_out, outcome.returncode, outcome.output.text()
    res.data = outcome.result or {}
    return res


Interrupted = procgroup.Interrupted
