"""Processes the tool starts never outlive it.

`run`, `record` and `entrypoints --driver` start a child (the runner or the observer) that runs the
application's driver, which may fork processes of its own. `run_supervised` starts the child in a
new session (its process group holds the child, the driver and everything they fork that does not
leave the group itself) and, before that, a small watchdog process: the watchdog holds the reading
end of a pipe whose writing end only the tool holds. However the tool ends (an exception, SIGINT,
SIGTERM, or SIGKILL, which no handler sees), the kernel closes that end; the watchdog then kills
the whole group with SIGKILL and removes the temporary files and folders it was given. When the
work ends normally, the tool itself terminates what is left of the group (a driver's leftover
children: SIGTERM, SIGKILL after a grace period), removes the temporary paths and tells the
watchdog to exit. The child also asks Linux to kill it when its parent dies (`die_with_parent`).

The child's standard output and error go through a pipe to `CappedOutput`: the first `cap` bytes
reach the log file, then a note, then the last `tail` bytes; memory use stays bounded.
"""
from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO

LOG_CAP = 10 * 2**20         # bytes of driver output kept at the head of a log
TAIL = 64 * 2**10            # bytes kept from the end (in memory, and in the log after the note)
GRACE = 2.0                  # seconds between SIGTERM and SIGKILL for leftover processes


class Interrupted(Exception):
    """The tool received SIGINT or SIGTERM; the child's process group has been stopped."""

    def __init__(self, signum: int):
        super().__init__(f"interrupted by {signal.Signals(signum).name}; the driver's process group was stopped")
        self.signum = signum


class CappedOutput:
    """Driver output, written to `handle` up to `cap` bytes; the last `tail` bytes are kept in memory
    and, when the output was longer than `cap`, appended after a note saying how much was left out."""

    def __init__(self, handle: IO[bytes] | None, cap: int = LOG_CAP, tail: int = TAIL):
        self.handle, self.cap, self.tail_size = handle, cap, tail
        self.written = 0
        self.dropped = 0
        self._tail = bytearray()

    def feed(self, data: bytes) -> None:
        room = max(0, self.cap - self.written)
        if self.handle is not None and room:
            self.handle.write(data[:room])
        self.written += min(room, len(data))
        self.dropped += max(0, len(data) - room)
        self._tail += data
        if len(self._tail) > 2 * self.tail_size:
            del self._tail[:-self.tail_size]

    def close(self) -> None:
        if self.handle is not None and self.dropped:
            kept = bytes(self._tail[-min(self.tail_size, self.dropped):])
            self.handle.write(f"\n[leapp-codemod: output truncated: {self.dropped} bytes after the first "
                              f"{self.cap} left out; the last {len(kept)} bytes follow]\n".encode())
            self.handle.write(kept)

    def text(self, limit: int = 4000) -> str:
        return bytes(self._tail[-limit:]).decode(errors="replace")


@dataclass
class Outcome:
    returncode: int | None
    timed_out: bool
    output: CappedOutput
    result: dict | None = None      # the JSON the child wrote at `read_result`, if any


def die_with_parent(parent: int) -> None:
    """In a child: Linux sends SIGKILL to this process when its parent dies (PR_SET_PDEATHSIG);
    exits at once when the parent is already gone (the moment before the request took effect)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent and os.getppid() != _warm_start_server():
        os._exit(1)


def _warm_start_server() -> int | None:
    """The test session's warm-start server, which forks the child and kills it when the tool dies."""
    from leapp_codemod.runner.warmstart import server_pid

    return server_pid()


def finish_child(code: int) -> None:
    """End a child process once its result is written, without waiting for threads the driver left
    running (a viewer, a logger): flush what was printed and exit."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _read_json(path: str | None) -> dict | None:
    import json

    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _start_watchdog(cleanup: tuple[str, ...]) -> tuple[subprocess.Popen, int]:
    read_end, write_end = os.pipe()       # not inherited by the child: only the tool holds write_end
    try:
        watchdog = subprocess.Popen([sys.executable, "-m", "leapp_codemod.runner.procgroup", *cleanup],
                                    stdin=read_end, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    start_new_session=True, close_fds=True)
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    return watchdog, write_end


def terminate_group(pgid: int, grace: float = GRACE) -> None:
    """SIGTERM to the process group, SIGKILL after `grace` seconds if anything is left in it."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        _reap(pgid)
        if not group_alive(pgid):
            return
        time.sleep(0.05)
    kill_group(pgid)


def group_alive(pgid: int) -> bool:
    """Whether a process of the group still runs (zombies, which only wait to be reaped, do not count)."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    if not os.path.isdir("/proc/self"):
        return True
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def remove_paths(paths) -> None:
    for path in paths:
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass


@contextmanager
def interruptible() -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM raise Interrupted (in the main thread)."""
    def handler(signum, frame):
        raise Interrupted(signum)

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def run_supervised(cmd: list[str], *, env: dict, timeout: float, log: IO[bytes] | None,
                   cleanup: tuple[str, ...] = (), pass_fds: tuple[int, ...] = (),
                   progress_fd: int | None = None, on_line: Callable[[str], None] = lambda line: None,
                   cap: int = LOG_CAP, read_result: str | None = None, if_killed: tuple[str, ...] = ()) -> Outcome:
    """Run `cmd` in its own process group under a watchdog (see the module docstring); its output
    goes to `log` (capped), the lines it writes on `progress_fd` (the reading end of a pipe whose
    writing end is in `pass_fds`) to `on_line`. Returns when the child exits or `timeout` passes;
    whatever is left of its group is then stopped and `cleanup` removed. Raises Interrupted on
    SIGINT/SIGTERM (after the same clean-up). `read_result` names a JSON file the child writes,
    read before `cleanup` removes it. `if_killed` names paths only the watchdog removes (the tool
    died before it could finish them, e.g. the temporary file of a log)."""
    output = CappedOutput(log, cap)
    watchdog, alarm = _start_watchdog(cleanup + if_killed)
    proc = None
    out_r, out_w = os.pipe()
    try:
        with interruptible():
            try:
                proc = _warm_start(cmd, env, out_w, pass_fds) or subprocess.Popen(
                    cmd, stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w, pass_fds=pass_fds, env=env,
                    start_new_session=True)
            finally:
                os.close(out_w)
                for fd in pass_fds:
                    os.close(fd)
            os.write(alarm, f"{proc.pid}\n".encode())
            timed_out = _pump(proc, out_r, progress_fd, output, on_line, time.monotonic() + timeout)
        return Outcome(proc.returncode, timed_out, output, _read_json(read_result))
    finally:
        if proc is not None:
            if proc.poll() is None:
                kill_group(proc.pid)
            terminate_group(proc.pid)
            try:
                proc.wait(timeout=GRACE)
            except subprocess.TimeoutExpired:
                pass
        _drain(out_r, output.feed)
        os.close(out_r)
        if progress_fd is not None:
            os.close(progress_fd)
        output.close()
        remove_paths(cleanup)
        try:
            os.write(alarm, b"done\n")
        except OSError:
            pass
        os.close(alarm)
        try:
            watchdog.wait(timeout=5)
        except subprocess.TimeoutExpired:
            watchdog.kill()


def _warm_start(cmd: list[str], env: dict, out_w: int, pass_fds: tuple[int, ...]):
    """The child forked by the test session's warm-start server (`warmstart`), or None: started as always."""
    from leapp_codemod.runner import warmstart

    return warmstart.start(cmd, env=env, stdout=out_w, pass_fds=pass_fds) if warmstart.ENV in env else None


def _pump(proc: subprocess.Popen, out_r: int, progress_fd: int | None, output: CappedOutput,
          on_line: Callable[[str], None], deadline: float) -> bool:
    """Read output and progress until the child exits; True when the deadline passed first."""
    lines = _Lines(on_line)
    open_fds = [out_r] + ([progress_fd] if progress_fd is not None else [])
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            kill_group(proc.pid)
            proc.wait()
            return True
        if open_fds:
            ready, _, _ = select.select(open_fds, [], [], min(remaining, 0.2))
        else:
            ready = []
            time.sleep(min(remaining, 0.05))
        for fd in ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                open_fds.remove(fd)
            elif fd == out_r:
                output.feed(chunk)
            else:
                lines.feed(chunk)
        if proc.poll() is not None:      # a grandchild may still hold the pipes: do not wait for it
            if progress_fd in open_fds:
                _drain(progress_fd, lines.feed)
            lines.flush()
            return False


class _Lines:
    def __init__(self, on_line: Callable[[str], None]):
        self.on_line, self.pending = on_line, b""

    def feed(self, chunk: bytes) -> None:
        self.pending += chunk
        while b"\n" in self.pending:
            line, self.pending = self.pending.split(b"\n", 1)
            self.on_line(line.decode(errors="replace"))

    def flush(self) -> None:
        if self.pending:
            self.on_line(self.pending.decode(errors="replace"))
            self.pending = b""


def _drain(fd: int, feed: Callable[[bytes], None]) -> None:
    """What is left in a pipe (without waiting for a grandchild that still holds it)."""
    os.set_blocking(fd, False)
    try:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            feed(chunk)
    except OSError:
        return


def _watch(cleanup: list[str]) -> int:
    """The watchdog: kill the group and remove `cleanup` when stdin closes without "done"."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    pgid = None
    for line in sys.stdin.buffer:
        text = line.strip()
        if text == b"done":
            return 0
        if text.isdigit():
            pgid = int(text)
    if pgid is not None:
        kill_group(pgid)
        deadline = time.monotonic() + GRACE
        while time.monotonic() < deadline and group_alive(pgid):   # let them go before removing their files
            time.sleep(0.05)
    remove_paths(cleanup)
    return 0


if __name__ == "__main__":
    sys.exit(_watch(sys.argv[1:]))
