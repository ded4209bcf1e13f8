"""The test session's warm-start server for `run`'s child and the observer's (`leapp_codemod/runner/warmstart.py`).

`python tests/forkserver.py SOCKET [MODULE...]` imports NumPy, torch (with torch.export's tracer), ONNX and
Warp, what `import leapp` spends nearly all its time on, and the modules an ONNX export imports (`PRELOAD`;
nothing of LEAPP itself, ONNX Runtime, leapp_codemod or an application), then forks one child per request,
as `subprocess.Popen` would have started `python -m leapp_codemod.runner.child CONFIG`:
- the request's command line (`sys.argv`, `sys.orig_argv`), environment (all of it), working folder,
  `sys.path[0]` (the folder, as `-m` sets it) and the folders of its PYTHONPATH after it (a PYTHONPATH this
  server cannot honour exactly, e.g. one holding a module it has imported, is refused); stdin from /dev/null, stdout and stderr to the tool's
  pipe, each passed descriptor under its own number, every descriptor of the server closed;
- a session of its own (the tool and its watchdog kill the group by the child's pid);
- it dies with the server (PR_SET_PDEATHSIG), and the server kills its process group with SIGKILL when
  the tool's connection closes first (the tool died): the child never outlives the tool;
- NumPy's global generator reseeded (Python's `random` reseeds itself after a fork), as a fresh process
  would draw; no patch of any kind is applied. Once, before it listens, one throwaway export of a tiny
  graph fills the exporter's first-call caches (`_warm_up`: about 0.25 CPU-s less per exporting child).
The server refuses (the tool then starts the child as always) another interpreter, another module, or an
environment that differs in a variable read when the interpreter or a preloaded library starts
(`STARTUP_PREFIXES`). The exit status goes back on the connection as Popen reports it.
Known difference: the string hash seed is the server's (one per server, not one per child).
"""
from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import socket
import struct
import sys
import traceback

# torch, torch.export's tracer, ONNX and Warp: 8.3 of the 8.5 CPU-s `import leapp` costs. Not ONNX Runtime
# (LEAPP imports it; 0.1 s): it starts a telemetry thread and opens an SQLite file, which a fork must not share.
# Then what every ONNX export imports next (torch.onnx's exporter, onnxscript's torchlib, the ONNX reference
# evaluator) and what LEAPP's graph picture and YAML and this package's source reading import: another
# 1.8 CPU-s per exporting child (4 children of tests/test_run.py: 21.8 -> 14.4 CPU-s); modules only (then `_warm_up`).
PRELOAD = ("numpy", "torch", "torch._export.converter", "onnx", "warp",
           "torch.onnx._internal.exporter._compat", "torch.onnx._internal.exporter._torchlib.ops",
           "onnxscript.function_libs.torch_lib.ops", "onnx.reference", "safetensors.torch",
           "onnxscript._framework_apis.torch_2_9", "onnxscript.rewriter.onnx_fusions",
           "torch._export.passes.replace_set_grad_with_hop_pass", "torch._export.passes.replace_autocast_with_hop_pass",
           "torch._inductor.fx_passes.dedupe_symint_uses", "torch.fx.experimental.validator",
           "PIL.Image", "PIL.ImageDraw", "PIL.ImageFont", "PIL.PngImagePlugin", "fast_sugiyama", "jinja2", "yaml",
           "libcst", "libcst.metadata")
NOT_PRELOADED = ("onnxruntime", "leapp", "leapp_codemod")
MODULES = ("leapp_codemod.runner.child", "leapp_codemod.observe.child")
STARTUP_PREFIXES = ("PYTHON", "LD_", "LC_", "LANG", "TORCH", "PYTORCH", "OMP_", "MKL_", "KMP_", "OPENBLAS",
                    "CUDA", "NUMPY", "ORT_", "WARP", "LEAPP")
# Start-up-prefixed variables no preloaded library reads when it is imported, only when it is used (torch reads
# its compile cache folder when it first compiles): a request may differ in them, since the child reads
# its own value as a fresh interpreter would. `import leapp` sets TORCHINDUCTOR_CACHE_DIR (to torch's default), and
# `import cv2` puts a folder that does not exist on LD_LIBRARY_PATH (`_startup_env` leaves such folders out), in a
# test worker that imports them after this server started: each later `run` of that worker was refused.
READ_WHEN_USED = frozenset({"TORCHINDUCTOR_CACHE_DIR"})
PR_SET_PDEATHSIG = 1


def _startup_env(env: dict) -> dict:
    found = {k: v for k, v in env.items()
             if k.startswith(STARTUP_PREFIXES) and not k.startswith("LEAPP_CODEMOD_") and k not in READ_WHEN_USED}
    if "LD_LIBRARY_PATH" in found:      # a folder that does not exist adds nothing the loader could find
        folders = [f for f in found.pop("LD_LIBRARY_PATH").split(os.pathsep) if f and os.path.isdir(f)]
        if folders:
            found["LD_LIBRARY_PATH"] = os.pathsep.join(folders)
    return found


def _die_with_parent() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _refusal(request: dict, base_env: dict, modules: tuple[str, ...]) -> str:
    argv = request.get("argv") or []
    if argv[:2] != [sys.executable, "-m"] or len(argv) < 3 or argv[2] not in modules:
        return "not a warm command"
    env = _startup_env(request["env"])
    if "PYTHONPATH" not in base_env and _extra_path(env.get("PYTHONPATH", "")) is not None:
        env.pop("PYTHONPATH", None)         # the child puts these folders where a fresh interpreter would
    if env != base_env:
        changed = sorted(set(env.items()) ^ set(base_env.items()))
        return f"start-up environment differs: {changed[0][0]}"
    return ""


def _extra_path(value: str) -> list[str] | None:
    """The folders `PYTHONPATH=value` puts after `sys.path[0]` in a fresh interpreter, when this server can
    give the child the same: absolute folders, each once, none already on the path, none holding a module
    this server has imported (the fresh interpreter would import that one) or one `site` imports at start-up;
    None otherwise (the child is then started as always)."""
    entries = value.split(os.pathsep) if value else []
    if (len(set(entries)) != len(entries) or set(entries) & set(sys.path)
            or not all(os.path.isabs(e) and os.path.isdir(e) for e in entries)):
        return None
    imported = {name.partition(".")[0] for name in sys.modules} | {"sitecustomize", "usercustomize"}
    for entry in entries:
        if {name.partition(".")[0] for name in os.listdir(entry)} & imported:
            return None
    return entries


def _read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 8192, 64)
    if len(data) < 4:
        raise OSError("short request")
    size = struct.unpack("!I", data[:4])[0]
    body = data[4:]
    while len(body) < size:
        chunk = conn.recv(min(65536, size - len(body)))
        if not chunk:
            raise OSError("short request")
        body += chunk
    return json.loads(body), fds


def _child(request: dict, fds: list[int], server_fds: list[int]) -> None:
    """In the forked process: become what Popen would have started, then run the module as __main__."""
    code = 1
    try:
        os.setsid()
        _die_with_parent()
        # What the exec'd child of the tool starts with (the tool handles SIGINT and SIGTERM, so exec resets
        # them): Ctrl-C and the watchdog's SIGINT raise KeyboardInterrupt even when this server inherited
        # SIGINT ignored (a test worker, a background job).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for fd in server_fds:
            os.close(fd)
        pass_fds = [int(n) for n in request["pass_fds"]]
        floor = max([2, *pass_fds, *fds]) + 1
        moved = [_dup_above(fd, floor) for fd in fds]
        for fd in fds:
            os.close(fd)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(moved[0], 1)
        os.dup2(moved[0], 2)
        for target, fd in zip(pass_fds, moved[1:]):
            os.dup2(fd, target)
        for fd in moved:
            if fd not in (0, 1, 2, *pass_fds):
                os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[0] = os.getcwd()
        sys.path[1:1] = _extra_path(request["env"].get("PYTHONPATH", "")) or []
        sys.argv = ["-m", *request["argv"][3:]]
        sys.orig_argv = list(request["argv"])
        import numpy
        numpy.random.seed()
        import runpy
        runpy._run_module_as_main(request["argv"][2])      # what `python -m` calls; sets sys.argv[0]
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, (int, type(None))):
            print(exc.code, file=sys.stderr)
    except KeyboardInterrupt:
        traceback.print_exc()
        code = -signal.SIGINT
    except BaseException:  # noqa: BLE001 - as the interpreter would: print it, exit 1
        traceback.print_exc()
    finally:
        _finish(code)


def _dup_above(fd: int, floor: int) -> int:
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD, floor)


def _finish(code: int) -> None:
    try:
        import threading
        threading._shutdown()       # what the interpreter does at exit: wait for non-daemon threads
        import atexit
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001, S110 - an exit handler's failure does not change the status
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


def _warm_up() -> None:
    """One throwaway ONNX export of a two-element graph, as LEAPP's ONNX backend exports (torch's dynamo
    exporter, no file): it fills what torch.export and the ONNX exporter build on their first call in a
    process (decomposition tables, onnxscript's op schemas, dispatch caches), which each exporting child
    otherwise builds again. Nothing is patched, and what the call leaves behind outside those caches is put
    back: torch's global generator (a fresh interpreter's default seed; `Probe` draws nothing anyway), the
    environment, the working folder (a scratch folder, removed), the warning registries (`catch_warnings`
    invalidates them on exit, so a child prints a warning as a fresh process would), and tqdm's monitor
    thread (stopped: a fork copies no thread). Too small a graph for torch's intra-op thread pool."""
    import tempfile
    import warnings

    import torch

    class Probe(torch.nn.Module):
        def forward(self, x):
            return torch.tanh(x * 2.0 + 1.0).sum(-1, keepdim=True)

    rng, env, cwd = torch.get_rng_state(), dict(os.environ), os.getcwd()
    with tempfile.TemporaryDirectory(prefix="lcm-warm-") as scratch, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        os.chdir(scratch)
        try:
            torch.onnx.export(Probe().eval(), (torch.ones(1, 2),), None, dynamo=True, verbose=False)
        except Exception as exc:  # noqa: BLE001 - a failed warm-up only costs the children their first-call work
            print(f"forkserver: the warm-up export failed ({type(exc).__name__}: {exc})", file=sys.stderr)
        finally:
            os.chdir(cwd)
    torch.set_rng_state(rng)
    os.environ.clear()
    os.environ.update(env)
    tqdm = sys.modules.get("tqdm")
    if tqdm is not None and getattr(tqdm.tqdm, "monitor", None) is not None:
        tqdm.tqdm.monitor.exit()
        tqdm.tqdm.monitor = None


def serve(path: str, modules: tuple[str, ...] = MODULES) -> None:
    _die_with_parent()
    base_env = _startup_env(dict(os.environ))
    for name in PRELOAD:
        try:
            __import__(name)
        except ImportError:
            pass
    _warm_up()
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in NOT_PRELOADED)
    if loaded:
        raise SystemExit(f"forkserver: a preloaded library imported {loaded[0]}")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)          # the socket appears only once the server is warm
    children: dict[int, tuple] = {}                     # pid -> (the tool's connection, its request)
    orphaned: set[int] = set()                          # children whose tool has died (killed, not yet reaped)
    while True:
        conns = [conn for pid, (conn, _) in children.items() if pid not in orphaned]
        ready = select.select([listener, *conns], [], [], 0.05)[0]
        for conn in ready:
            if conn is listener:
                tool, _ = listener.accept()
                _handle(tool, base_env, modules, children, listener)
                continue
            try:
                alive = conn.recv(1)
            except OSError:
                alive = b""
            if not alive:           # the tool closed its end before the child exited: it died
                pid = next(p for p, (c, _) in children.items() if c is conn)
                orphaned.add(pid)
                # the group, and the child itself: a child forked a moment ago may not have made its
                # session yet, and then no group has its pid
                for kill in (os.killpg, os.kill):
                    try:
                        kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
        for pid in _reap(children):
            orphaned.discard(pid)


def _handle(tool: socket.socket, base_env: dict, modules: tuple[str, ...], children: dict,
            listener: socket.socket) -> None:
    try:
        request, fds = _read_request(tool)
    except (OSError, ValueError):
        tool.close()
        return
    refusal = _refusal(request, base_env, modules)
    if refusal:
        print(f"forkserver: refused {request.get('argv', [])[2:3]}: {refusal}", file=sys.stderr, flush=True)
        for fd in fds:
            os.close(fd)
        tool.sendall(f"refused {refusal}\n".encode())
        tool.close()
        return
    pid = os.fork()
    if pid == 0:
        _child(request, fds, [listener.fileno(), tool.fileno(), *(c.fileno() for c, _ in children.values())])
    for fd in fds:
        os.close(fd)
    children[pid] = (tool, request)
    try:
        tool.sendall(f"pid {pid}\n".encode())
    except OSError:
        pass


def _account(env: dict, usage) -> None:
    """The child's CPU seconds in the session's CPU report (`LEAPP_CODEMOD_TEST_CPU`, tests/conftest.py),
    under the test that ran it: the child is the server's, so the test's own count leaves it out."""
    report = env.get("LEAPP_CODEMOD_TEST_CPU")
    if report:
        test = env.get("PYTEST_CURRENT_TEST", "?").rsplit(" (", 1)[0]
        with open(report, "a", encoding="utf-8") as out:
            out.write(json.dumps({"test": test, "cpu": round(usage.ru_utime + usage.ru_stime, 3),
                                  "warm_child": True}) + "\n")


def _reap(children: dict) -> list[int]:
    reaped = []
    while children:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        reaped.append(pid)
        conn, request = children.pop(pid, (None, None))
        if request is not None:
            _account(request["env"], usage)
        if conn is not None:
            try:
                conn.sendall(f"exit {os.waitstatus_to_exitcode(status)}\n".encode())
            except OSError:
                pass
            conn.close()
    return reaped


if __name__ == "__main__":
    serve(sys.argv[1], MODULES + tuple(sys.argv[2:]))       # more modules: tests/test_forkserver.py's probe
