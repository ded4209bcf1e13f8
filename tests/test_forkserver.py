"""The test session's warm start of `run`'s child (tests/forkserver.py, runner/warmstart.py) gives the child
what a fresh interpreter started by `subprocess.Popen` gets: command line, environment, working folder,
`sys.path`, descriptors, a session of its own, no module of the tool or the application imported, fresh
random draws; the exit status comes back; the child dies when the tool does. The real spawn path is
covered by every test marked `real_spawn` and by all of `make test-fast`."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from leapp_codemod.runner import procgroup, warmstart

pytestmark = [pytest.mark.slow, pytest.mark.real_spawn]      # its own server: torch and LEAPP imported once

PROBE = '''\
import json, os, signal, sys
import numpy
fds = sorted(int(n) for n in os.listdir("/proc/self/fd"))
print(json.dumps({
    "argv": sys.argv, "orig_argv": sys.orig_argv, "cwd": os.getcwd(), "path": sys.path,
    "env": dict(os.environ), "fds": fds,
    "stdin": os.readlink("/proc/self/fd/0"), "out_is_err": os.readlink("/proc/self/fd/1") == os.readlink("/proc/self/fd/2"),
    "session_leader": os.getsid(0) == os.getpid(),
    "ours": sorted(m for m in sys.modules if m.split(".")[0] in ("leapp_codemod", "probe_app", "leapp", "onnxruntime")),
    "draw": float(numpy.random.rand()), "main": sys.modules["__main__"].__file__,
    "sigint_raises": signal.getsignal(signal.SIGINT) is signal.default_int_handler,
}))
if len(sys.argv) > 2 and sys.argv[2] == "progress":
    os.write(50, b"through the passed descriptor\\n")
if len(sys.argv) > 2 and sys.argv[2] == "sleep":
    import time
    time.sleep(120)
sys.exit(int(sys.argv[1]))
'''


PASSED = 50


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fs")
    sock = folder / "s"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEAPP_CODEMOD_")}
    ignore_sigint = lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)   # noqa: E731 - as a test worker may leave it
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("forkserver.py")), str(sock), "probe"],
                            stdin=subprocess.DEVNULL, env=env, start_new_session=True, preexec_fn=ignore_sigint)
    while not sock.exists():
        assert proc.poll() is None, "the server did not start"
        time.sleep(0.1)
    yield f"{proc.pid}:{sock}"
    proc.kill()
    proc.wait()


@pytest.fixture
def probe_dir(tmp_path, monkeypatch):
    (tmp_path / "probe.py").write_text(PROBE)
    (tmp_path / "probe_app.py").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(warmstart, "WARM_MODULES", (*warmstart.WARM_MODULES, "probe"))
    return tmp_path


def _start(warm: str | None, args: list[str]):
    """The probe started as `run_supervised` starts the child: warm when `warm` names a server."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEAPP_CODEMOD_")}
    env.update(PROBE_MARK="1", **({warmstart.ENV: warm} if warm else {}))
    out_r, out_w = os.pipe()
    pr, pw = os.pipe()
    os.dup2(pw, PASSED)         # the progress pipe's number, as the child's config names it
    os.close(pw)
    cmd = [sys.executable, "-m", "probe", *args]
    handled = signal.signal(signal.SIGINT, lambda *_: None)      # the tool handles SIGINT while the child runs
    try:
        proc = procgroup._warm_start(cmd, env, out_w, (PASSED,)) if warm else subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w, pass_fds=(PASSED,), env=env,
            start_new_session=True)
    finally:
        signal.signal(signal.SIGINT, handled)
    os.close(out_w)
    os.close(PASSED)
    return proc, out_r, pr


def _finish(proc, out_r: int, pr: int) -> tuple[int, dict, bytes]:
    code = proc.wait(timeout=120)
    with os.fdopen(out_r, "rb") as out, os.fdopen(pr, "rb") as progress:
        text, passed = out.read(), progress.read()
    return code, json.loads(text.splitlines()[0]), passed


def test_the_warm_child_gets_what_a_fresh_interpreter_gets(server, probe_dir):
    cold_code, cold, cold_passed = _finish(*_start(None, ["3", "progress"]))
    proc, out_r, pr = _start(server, ["3", "progress"])
    assert isinstance(proc, warmstart.WarmChild)            # forked by the server, not started here
    warm_code, warm, warm_passed = _finish(proc, out_r, pr)
    assert warm_code == cold_code == 3
    assert warm_passed == cold_passed == b"through the passed descriptor\n"
    cold["env"].pop(warmstart.ENV, None)
    warm["env"].pop(warmstart.ENV)
    for key in ("argv", "orig_argv", "cwd", "path", "env", "fds", "stdin", "out_is_err", "session_leader", "main",
                "sigint_raises"):
        assert warm[key] == cold[key], key
    assert warm["argv"][0] == str(probe_dir / "probe.py") and warm["cwd"] == str(probe_dir)
    assert warm["session_leader"] and warm["stdin"] == os.devnull and warm["out_is_err"]
    assert warm["ours"] == cold["ours"] == []
    assert warm["sigint_raises"]                             # the watchdog's SIGINT stops a sleeping driver
    again = _finish(*_start(server, ["0"]))[1]
    assert again["draw"] != warm["draw"]                     # NumPy's generator is not the server's copy


def test_a_pythonpath_of_new_folders_is_put_where_a_fresh_interpreter_puts_it(server, probe_dir, monkeypatch):
    extra = probe_dir / "site-packages"
    extra.mkdir()
    (extra / "probe_lib.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", str(extra))
    cold = _finish(*_start(None, ["0"]))[1]
    proc, out_r, pr = _start(server, ["0"])
    assert isinstance(proc, warmstart.WarmChild)
    warm = _finish(proc, out_r, pr)[1]
    assert warm["path"] == cold["path"] and warm["path"][1] == str(extra)
    (extra / "numpy").mkdir()             # a module the server has imported: a fresh interpreter would take this one
    proc, out_r, pr = _start(server, ["0"])
    assert proc is None
    for fd in (out_r, pr):
        os.close(fd)


def test_a_different_start_up_environment_or_module_is_started_as_always(server, probe_dir, monkeypatch):
    monkeypatch.setenv("PYTHONHASHSEED", "7")
    proc, out_r, pr = _start(server, ["0"])
    assert proc is None
    for fd in (out_r, pr):
        os.close(fd)
    assert warmstart.start([sys.executable, "-m", "leapp_codemod.cli", "x"],
                           env={warmstart.ENV: server}, stdout=1, pass_fds=()) is None


def test_a_variable_read_only_when_used_or_a_loader_folder_that_does_not_exist_still_starts_warm(
        server, probe_dir, monkeypatch):
    """What `import leapp` and `import cv2` set in a test worker after its server started (tests/forkserver.py,
    READ_WHEN_USED): a fresh interpreter would behave the same, so the child is forked warm, with the variables."""
    missing = probe_dir / "no-such-lib64"
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(probe_dir / "inductor"))
    monkeypatch.setenv("LD_LIBRARY_PATH", os.pathsep.join(filter(None, [str(missing),
                                                                        os.environ.get("LD_LIBRARY_PATH")])))
    proc, out_r, pr = _start(server, ["0"])
    assert isinstance(proc, warmstart.WarmChild)
    warm = _finish(proc, out_r, pr)[1]
    assert warm["env"]["TORCHINDUCTOR_CACHE_DIR"] == str(probe_dir / "inductor")
    assert warm["env"]["LD_LIBRARY_PATH"].split(os.pathsep)[0] == str(missing)
    missing.mkdir()                       # now the loader could find a library there: started as always
    proc, out_r, pr = _start(server, ["0"])
    assert proc is None
    for fd in (out_r, pr):
        os.close(fd)


def test_the_child_dies_when_the_tool_does(server, probe_dir):
    proc, out_r, pr = _start(server, ["0", "sleep"])
    deadline = time.monotonic() + 60
    while not os.path.exists(f"/proc/{proc.pid}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None
    proc._conn.close()                    # what the kernel does to the tool's end when the tool dies
    while procgroup.group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not procgroup.group_alive(proc.pid)
    for fd in (out_r, pr):
        os.close(fd)


def test_the_parent_check_accepts_the_server_only(monkeypatch):
    monkeypatch.setenv(warmstart.ENV, f"{os.getppid()}:/nowhere")
    assert warmstart.server_pid() == os.getppid()
    monkeypatch.setenv(warmstart.ENV, "/nowhere")
    assert warmstart.server_pid() is None
