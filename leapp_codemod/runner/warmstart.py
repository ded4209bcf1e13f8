"""A test-suite aid: start `run`'s child, and the observer's (`scan --driver`, `entrypoints --driver`, `generate
--driver`), from a warm process instead of a fresh interpreter.

The child imports torch and LEAPP (about 8 s of CPU) each time `run` starts it; the observer's driver
imports torch (about 2.5 s). When the environment
names a warm-start server (`LEAPP_CODEMOD_FORKSERVER=PID:SOCKET`, set only by the test session,
`tests/forkserver.py`), the tool asks that server, which has imported NumPy, torch, ONNX and Warp (most of
what `import leapp` costs) and nothing of LEAPP, ONNX Runtime, this package or the application, to
fork the child. The server gives the child
what `subprocess.Popen` would: the command line, environment, working folder and file descriptors
(stdin from /dev/null, stdout and stderr to the tool's pipe, the progress pipe under its number), a
session of its own; it kills the child's process group when the tool's connection closes (the tool
died), as the watchdog does. When the server refuses (another interpreter, a different environment for
the interpreter's start-up) or cannot be reached, the child is started as always.
"""
from __future__ import annotations

import json
import os
import select
import socket
import struct
import subprocess
import sys
import time

ENV = "LEAPP_CODEMOD_FORKSERVER"
WARM_MODULES = ("leapp_codemod.runner.child", "leapp_codemod.observe.child")   # what the server may start


def server_pid(environ=os.environ) -> int | None:
    """The server's process id, from the environment (the parent of a child it forked)."""
    pid, _, _ = environ.get(ENV, "").partition(":")
    return int(pid) if pid.isdigit() else None


def start(cmd: list[str], *, env: dict, stdout: int, pass_fds: tuple[int, ...]) -> WarmChild | None:
    """The child, forked by the server named in `env`; None when there is none or it refused."""
    _, _, path = env.get(ENV, "").partition(":")
    if not path or len(cmd) < 3 or cmd[0] != sys.executable or cmd[1] != "-m" or cmd[2] not in WARM_MODULES:
        return None
    request = json.dumps({"argv": cmd, "env": env, "cwd": os.getcwd(), "pass_fds": list(pass_fds)}).encode()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(30)
        conn.connect(path)
        socket.send_fds(conn, [struct.pack("!I", len(request)) + request[:4096]], [stdout, *pass_fds])
        conn.sendall(request[4096:])
        reply = _line(conn)
    except OSError:
        conn.close()
        return None
    kind, _, value = reply.partition(" ")
    if kind != "pid" or not value.isdigit():
        conn.close()
        return None
    conn.setblocking(False)
    return WarmChild(int(value), conn)


def _line(conn: socket.socket) -> str:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(256)
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace").strip()


class WarmChild:
    """What `run_supervised` uses of a `subprocess.Popen`: pid, poll, wait, returncode. The server
    reports the exit status (as Popen gives it: negative for a signal) on the connection."""

    def __init__(self, pid: int, conn: socket.socket):
        self.pid, self.args, self.returncode = pid, None, None
        self._conn, self._data = conn, b""

    def poll(self) -> int | None:
        return self._read(0)

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self._read(0.2 if deadline is None else max(0.0, min(0.2, deadline - time.monotonic()))) is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
        return self.returncode

    def _read(self, timeout: float) -> int | None:
        if self.returncode is not None:
            return self.returncode
        if select.select([self._conn], [], [], timeout)[0]:
            try:
                chunk = self._conn.recv(256)
            except BlockingIOError:
                return None
            self._data += chunk
            if not chunk or b"\n" in self._data:
                text = self._data.decode(errors="replace").strip()
                self.returncode = int(text.split()[1]) if text.startswith("exit ") else -9
                self._conn.close()
        return self.returncode
