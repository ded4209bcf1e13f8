"""`run` in the user's process: run the child with a timeout and collect its result (the module
is read by module_info, the verdict built by verdict). Imports neither torch nor leapp nor the
application."""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

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


@dataclass
class ChildResult:
    data: dict = field(default_factory=dict)
    timed_out: bool = False
    returncode: int | None = None
    log: str = ""


def run_child(info: ModuleInfo, opts: RunOptions, progress) -> ChildResult:
    opts.out.mkdir(parents=True, exist_ok=True)
    log_path = opts.out / "run.log"
    fd, result_path = tempfile.mkstemp(prefix=".result-", suffix=".json", dir=opts.out)
    os.close(fd)
    os.unlink(result_path)
    read_fd, write_fd = os.pipe()
    config = {
        "file": str(info.path.resolve()), "integration_dir": str(info.path.resolve().parent),
        "import_root": str(info.app_root), "driver": str(info.driver), "cwd": os.getcwd(),
        "out": str(opts.out.resolve()), "traces": opts.traces, "checks": opts.checks,
        "require_format": opts.require_format, "result": result_path, "progress_fd": write_fd,
        "inputs": str(opts.inputs.resolve()) if opts.inputs else None,
        "record": str(opts.record.resolve()) if opts.record else None,
        "driver_args": list(opts.driver_args or info.driver_args),
    }
    if opts.inputs:
        from leapp_codemod.runner.replay import driver_script
        config["driver"] = str(driver_script(opts.out.resolve(), opts.inputs))
    config_path = opts.out / ".run-config.json"
    config_path.write_text(json.dumps(config))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1")
    res = ChildResult()
    with open(log_path, "w") as log, _child_group_guard() as guard:
        proc = subprocess.Popen([sys.executable, "-m", "leapp_codemod.runner.child", str(config_path)],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log, pass_fds=(write_fd,),
                                env=env, start_new_session=True)
        guard.append(proc)
        os.close(write_fd)
        deadline = time.monotonic() + opts.timeout
        buffer = b""
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    res.timed_out = True
                    _kill(proc)
                    break
                ready, _, _ = select.select([pipe], [], [], min(remaining, 0.5))
                if ready:
                    chunk = pipe.read(4096)
                    if not chunk:
                        break
                    buffer += chunk
                    while b"\n" in buffer:
                        line, buffer = buffer.split(b"\n", 1)
                        progress(line.decode(errors="replace"))
                elif proc.poll() is not None:
                    break
        try:
            res.returncode = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            res.timed_out = True
            _kill(proc)
    config_path.unlink(missing_ok=True)
    if Path(result_path).exists():
        res.data = json.loads(Path(result_path).read_text())
        Path(result_path).unlink()
    res.log = log_path.read_text(errors="replace")[-4000:] if log_path.exists() else ""
    return res


class Interrupted(Exception):
    """`run` received SIGINT or SIGTERM; the child's process group has been terminated."""

    def __init__(self, signum: int):
        super().__init__(f"interrupted by {signal.Signals(signum).name}; the driver's process group was stopped")
        self.signum = signum


@contextmanager
def _child_group_guard():
    """While the child runs, SIGINT/SIGTERM (and any exception) terminate its whole process group:
    the child runs in its own session so that the terminal's Ctrl-C does not reach the driver
    half-way, and so that nothing it started survives `run`."""
    procs: list[subprocess.Popen] = []

    def handler(signum, frame):
        for proc in procs:
            _terminate_group(proc)
        raise Interrupted(signum)

    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            previous[signum] = signal.signal(signum, handler)
        except ValueError:      # not the main thread: nothing to install
            pass
    try:
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                _terminate_group(proc)
        for signum, old in previous.items():
            signal.signal(signum, old)


def _terminate_group(proc: subprocess.Popen, grace: float = 2.0) -> None:
    """SIGTERM to the child's process group, SIGKILL after `grace` seconds if anything is left."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except (ProcessLookupError, PermissionError):
            break
        proc.poll()
        time.sleep(0.05)
    else:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
