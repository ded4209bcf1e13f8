"""The process-group mechanism on its own (no torch): leftovers stopped, threads not waited for,
output capped, the watchdog acting when the tool is killed."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from leapp_codemod.runner import procgroup

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def script(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "child.py"
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


FORKS = """
    import os, sys, time, threading
    pid = os.fork()
    if pid == 0:
        time.sleep(600)
        os._exit(0)
    open(sys.argv[0] + ".pids", "w").write(f"{os.getpid()} {pid}")
    threading.Thread(target=time.sleep, args=(600,), daemon=False).start()
    print("done", flush=True)
    from leapp_codemod.runner.procgroup import finish_child
    finish_child(0)
"""


def test_leftover_children_are_stopped_and_threads_not_waited_for(tmp_path):
    started = time.monotonic()
    outcome = procgroup.run_supervised(script(tmp_path, FORKS), env=dict(os.environ), timeout=120, log=None)
    assert outcome.returncode == 0 and not outcome.timed_out
    assert time.monotonic() - started < 30
    assert "done" in outcome.output.text()
    parent, grandchild = [int(p) for p in (tmp_path / "child.py.pids").read_text().split()]
    deadline = time.monotonic() + 3
    while alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(grandchild) and not alive(parent)


def test_output_is_capped_with_a_note_and_the_tail(tmp_path):
    cmd = script(tmp_path, """
        import sys
        chunk = "x" * 1023 + "\\n"
        for _ in range(8 * 1024):            # 8 MiB
            sys.stdout.write(chunk)
        sys.stdout.write("LAST LINE\\n")
    """)
    log = tmp_path / "run.log"
    with open(log, "wb") as handle:
        outcome = procgroup.run_supervised(cmd, env=dict(os.environ), timeout=120, log=handle, cap=2**20)
    size = log.stat().st_size
    assert 2**20 < size < 2**20 + procgroup.TAIL + 400
    text = log.read_bytes()[2**20:].decode()
    assert "output truncated" in text and text.rstrip().endswith("LAST LINE")
    assert outcome.output.text().rstrip().endswith("LAST LINE")
    assert outcome.output.dropped > 6 * 2**20


def test_a_timeout_kills_the_group(tmp_path):
    cmd = script(tmp_path, FORKS.replace("finish_child(0)", "time.sleep(600)"))
    started = time.monotonic()
    outcome = procgroup.run_supervised(cmd, env=dict(os.environ), timeout=3, log=None)
    assert outcome.timed_out and time.monotonic() - started < 15
    _, grandchild = [int(p) for p in (tmp_path / "child.py.pids").read_text().split()]
    assert not alive(grandchild)


def test_the_watchdog_kills_the_group_and_removes_temporary_paths_when_the_tool_is_killed(tmp_path):
    temp = tmp_path / "work"
    temp.mkdir()
    child = script(tmp_path, FORKS.replace("finish_child(0)", "time.sleep(600)"))
    tool = subprocess.Popen([sys.executable, "-c", (
        "import os, sys; from leapp_codemod.runner import procgroup; "
        f"procgroup.run_supervised({child!r}, env=dict(os.environ), timeout=600, log=None, cleanup=({str(temp)!r},))")])
    pids = tmp_path / "child.py.pids"
    deadline = time.monotonic() + 60
    while not pids.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    parent, grandchild = [int(p) for p in pids.read_text().split()]
    tool.send_signal(signal.SIGKILL)
    tool.wait()
    deadline = time.monotonic() + 5
    while (alive(parent) or alive(grandchild) or temp.exists()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(parent) and not alive(grandchild) and not temp.exists()


def test_a_signal_raises_interrupted_after_stopping_the_group(tmp_path):
    cmd = script(tmp_path, FORKS.replace("finish_child(0)", "time.sleep(600)"))
    tool = subprocess.Popen([sys.executable, "-c", (
        "import os, sys; from leapp_codemod.runner import procgroup\n"
        "try:\n"
        f"    procgroup.run_supervised({cmd!r}, env=dict(os.environ), timeout=600, log=None)\n"
        "except procgroup.Interrupted as exc:\n"
        "    sys.exit(128 + exc.signum)\n")])
    pids = tmp_path / "child.py.pids"
    deadline = time.monotonic() + 60
    while not pids.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    _, grandchild = [int(p) for p in pids.read_text().split()]
    tool.send_signal(signal.SIGTERM)
    assert tool.wait(timeout=30) == 143
    assert not alive(grandchild)
