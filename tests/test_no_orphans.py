"""No process outlives the tool: `kill -9`, SIGTERM and a driver that forks (end to end)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = [sys.executable, "-m", "leapp_codemod"]

pytestmark = pytest.mark.e2e
# The tests that kill or signal the tool start the child as users do (`real_spawn`): what they check is the
# tool's own watchdog and process group, not the test session's warm-start server (tests/conftest.py).
# The successful run forks its child from the server (about 5 CPU-s less): the tool stops the leftover
# grandchild and thread the same way (tests/test_forkserver.py compares a warm child with a fresh one).


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped by init does not count)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return False
    return fields[0] not in ("Z", "X")


def gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("orphans") / "app"
    shutil.copytree(ROOT / "fixtures" / "orphan_driver", work)
    proc = subprocess.run(TOOL + ["generate", "forkapp", "--entry", "forkapp.gain:command", "--driver", "drive.py",
                                  "-o", "integration.py"], cwd=work, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return work


def start(work: Path, args: list[str], tmp: Path, mode: str = "hang") -> tuple[subprocess.Popen, Path]:
    pids = tmp / "pids"
    temp = tmp / "tmpdir"
    temp.mkdir()
    env = dict(os.environ, FORK_MODE=mode, FORK_PIDS=str(pids), TMPDIR=str(temp))
    proc = subprocess.Popen(TOOL + args, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    return proc, pids


def wait_for(pids: Path, proc: subprocess.Popen, seconds: float = 240) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pids.exists() and pids.read_text().endswith("\n"):
            return [int(p) for p in pids.read_text().split()]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.2)
    proc.kill()
    raise AssertionError("the driver never started")


@pytest.mark.real_spawn
@pytest.mark.parametrize("command", [["run", "integration.py", "--out", "out-{n}"],
                                     ["record", "integration.py", "--out", "calls-{n}.npz"],
                                     ["entrypoints", "forkapp", "--driver", "drive.py"]])
def test_kill_9_leaves_no_process_and_no_temporary_file(work, tmp_path, command):
    args = [a.format(n=tmp_path.name) for a in command]
    proc, pid_file = start(work, args, tmp_path)
    driver, grandchild = wait_for(pid_file, proc)
    assert alive(driver) and alive(grandchild)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert gone_within([driver, grandchild], 5), "the driver or its child outlived `kill -9` of the tool"
    time.sleep(0.5)
    ours = [p.name for p in (tmp_path / "tmpdir").iterdir() if p.name.startswith("leapp-codemod")]
    assert ours == [], "a temporary folder was left behind"   # (torch's own caches may stay)
    if command[0] == "run":
        left = [p.name for p in (work / args[-1]).iterdir() if p.name.startswith(".")]
        assert left == [], f"temporary files left in --out: {left}"


@pytest.mark.real_spawn
@pytest.mark.parametrize("command", [["record", "integration.py", "--out", "term.npz"],
                                     ["entrypoints", "forkapp", "--driver", "drive.py"]])
def test_sigterm_is_one_line_and_exit_143(work, tmp_path, command):
    proc, pid_file = start(work, command, tmp_path)
    driver, grandchild = wait_for(pid_file, proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    errors = [ln for ln in err.splitlines() if ln.startswith("leapp-codemod:")]
    assert len(errors) == 1 and "SIGTERM" in errors[0] and "Traceback" not in err
    assert gone_within([driver, grandchild], 5)
    assert not (work / "term.npz").exists()
    assert [p for p in (tmp_path / "tmpdir").iterdir() if p.name.startswith("leapp-codemod")] == []


def test_a_successful_run_stops_leftover_children_and_does_not_wait_for_threads(work, tmp_path):
    started = time.monotonic()
    proc, pid_file = start(work, ["run", "integration.py", "--out", "leave", "--timeout", "300"], tmp_path,
                           mode="leave")
    out, err = proc.communicate(timeout=300)
    took = time.monotonic() - started
    assert proc.returncode == 0, err
    assert took < 200, f"run waited for the driver's thread ({took:.0f} s)"
    driver, grandchild = [int(p) for p in pid_file.read_text().split()]
    assert gone_within([driver, grandchild], 3), "a child the driver forked survived a successful run"
