"""The tool under attack: special files, symbolic links, forged caches, hostile configs and
recordings. Each test names the fault it guards against; none needs torch or leapp."""
from __future__ import annotations

import json
import os
import pickle
import socket
import stat
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

import inprocess

from leapp_codemod.io_util import UnsafeOutput, atomic_file, write_atomic

TOOL = [sys.executable, "-m", "leapp_codemod"]
NOBODY = 65534
HAZARD = "def act(obs):\n    return obs.item()\n"
MODULE = ('ENTRY = "app.policy:act"\nGRAPH = "act"\nNODE = "act"\nEXPORT_WITH = "onnx"\nINPUTS = ("obs",)\n'
          'APP_ROOT = "."\nDRIVER = "main.py"\nPATCHES = []\n')


def cli(args, cwd, timeout=None, **kw):
    """`scan`/`lint`/`generate` in the test's process (tests/inprocess.py); a process where the test passes a
    timeout (a FIFO or a device must not hang the tool) or process settings (another user), and for `run`."""
    if timeout is None and not kw and args[0] in inprocess.IN_PROCESS:
        return inprocess.cli(args, cwd)
    return subprocess.run(TOOL + list(args), cwd=cwd, capture_output=True, text=True, timeout=timeout or 60, **kw)


def one_error(proc) -> str:
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("leapp-codemod: error:")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def app_tree(root: Path) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "policy.py").write_text(HAZARD)
    (root / "main.py").write_text("from app.policy import act\n")
    (root / "integration.py").write_text(MODULE)
    return root


@pytest.fixture
def shared_tmp():
    """A folder another user can reach (pytest's own tmp_path is private to root)."""
    import shutil
    import tempfile
    folder = Path(tempfile.mkdtemp(prefix="adversarial-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------- one writer x special targets
def _fake_recording_parts():
    recorder = SimpleNamespace(entry=SimpleNamespace(is_method=False, attr="act"), statics={}, traced=[], checks=[],
                               layout="", calls_seen=0, state_refs=set(), instance=None, snapshot=None)
    return SimpleNamespace(ENTRY="app.policy:act", INPUTS=("obs",)), recorder


def _write_report(target: Path) -> None:
    write_atomic(target, "report\n")


def _write_run_file(target: Path) -> None:
    with atomic_file(target, "wb", folder=target.parent) as handle:
        handle.write(b"log\n")


def _write_log_stream(target: Path) -> None:
    from leapp_codemod.io_util import open_stream
    with open_stream(target, folder=target.parent) as handle:
        handle.write(b"log\n")


def _write_recording(target: Path) -> None:
    from leapp_codemod.runner.record import save
    module, recorder = _fake_recording_parts()
    save(target, module, recorder)


def _write_run_report(target: Path) -> None:
    from leapp_codemod.runner.verdict import write_report
    write_report({"status": "failed"}, target.parent)


WRITERS = {"scan/lint/generate -o": (_write_report, "out.txt"), "run config/result": (_write_run_file, "cfg.json"),
           "run.log (read while it grows)": (_write_log_stream, "run.log"),
           "record --out": (_write_recording, "calls.npz"), "run report.json": (_write_run_report, "report.json")}


def _make_target(kind: str, folder: Path, name: str, outside: Path) -> Path:
    target = folder / name
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(target))
        sock.close()
    elif kind == "directory":
        target.mkdir()
    elif kind == "char device":
        os.mknod(target, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    elif kind == "link leaving the folder":
        outside.write_text("precious\n")
        outside.chmod(0o666)
        target.symlink_to(outside)
    elif kind == "read-only file":
        target.write_text("keep\n")
        target.chmod(0o444)
    return target


def _state(target: Path, outside: Path) -> tuple:
    st = os.lstat(target)
    return (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode),
            target.read_text() if stat.S_ISREG(st.st_mode) else None,
            outside.read_text() if outside.exists() else None)


def _run_as(uid: int | None, fn) -> str:
    """`fn()` in a forked child running as `uid` (None: as this user); '' or the failure's text.
    What the child imports is imported first here (the interpreter may live in a folder only its
    owner can read)."""
    import email.parser  # noqa: F401
    import importlib.metadata  # noqa: F401

    import leapp_codemod.runner.parent  # noqa: F401
    import leapp_codemod.runner.record  # noqa: F401
    import leapp_codemod.source.cache  # noqa: F401
    try:
        import numpy  # noqa: F401
    except ImportError:
        pass
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        message = ""
        import signal
        signal.alarm(30)        # a write that blocks (a FIFO without a reader) fails the test, not the suite
        try:
            if uid is not None:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            fn()
        except BaseException as exc:  # noqa: BLE001
            message = f"{type(exc).__name__}: {exc}" or "failed"
        os.write(write, message.encode()[:4000])
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        message = handle.read().decode()
    _, status = os.waitpid(pid, 0)
    return message or ("" if os.WIFEXITED(status) else f"the writer was killed (status {status}): it blocked")


TARGETS = ["fifo", "socket", "directory", "char device", "link leaving the folder", "read-only file"]


@pytest.mark.parametrize("user", ["root", "nobody"])
@pytest.mark.parametrize("kind", TARGETS)
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_every_writer_refuses_every_special_target(shared_tmp, writer, kind, user):
    tmp_path = shared_tmp
    if os.geteuid() != 0:
        pytest.skip("switching users needs root; this suite runs as an unprivileged user already")
    write, name = WRITERS[writer]
    folder = tmp_path / "out"
    folder.mkdir()
    outside = tmp_path / "outside.txt"
    target = _make_target(kind, folder, name, outside)
    if user == "nobody":
        for path in (tmp_path, folder, target):
            os.lchown(path, NOBODY, NOBODY)
        if outside.exists():
            os.chown(outside, NOBODY, NOBODY)
    before = _state(target, outside)

    def attempt() -> None:
        try:
            write(target)
        except UnsafeOutput as exc:
            assert str(exc).startswith(str(target)) or str(folder) in str(exc), str(exc)
        else:
            raise AssertionError("written")

    failure = _run_as(NOBODY if user == "nobody" else None, attempt)
    assert failure == ""
    assert _state(target, outside) == before, "the target or the file a link names was changed"
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("user", ["root", "nobody"])
def test_cache_entries_are_never_written_through_special_targets_or_links(shared_tmp, user):
    tmp_path = shared_tmp
    from leapp_codemod.source.cache import Cache

    if os.geteuid() != 0:
        pytest.skip("switching users needs root")
    root = tmp_path / "cache"
    key = "ab" + "c" * 62
    (root / "v2").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "v2" / "ab").symlink_to(elsewhere)           # a committed link inside the cache folder
    other = tmp_path / "cache2"
    (other / "v2" / "ab").mkdir(parents=True)
    os.mkfifo(other / "v2" / "ab" / f"{key}.json")
    if user == "nobody":
        for folder, _, files in os.walk(tmp_path):
            os.lchown(folder, NOBODY, NOBODY)
            for f in files:
                os.lchown(os.path.join(folder, f), NOBODY, NOBODY)
        for link in [root / "v2" / "ab"]:
            os.lchown(link, NOBODY, NOBODY)

    def attempt() -> None:
        for folder in (root, other):
            cache = Cache(folder, secret=b"0" * 64)
            cache.put(key, {"findings": []})
            assert cache.get(key) is None

    assert _run_as(NOBODY if user == "nobody" else None, attempt) == ""
    assert list(elsewhere.iterdir()) == []
    assert stat.S_ISFIFO(os.lstat(other / "v2" / "ab" / f"{key}.json").st_mode)


def test_a_link_inside_the_folder_is_written_as_its_target_keeping_its_mode(tmp_path):
    real = tmp_path / "real.npz"
    real.write_text("old")
    real.chmod(0o600)
    link = tmp_path / "calls.npz"
    link.symlink_to(real)
    _write_recording(link)
    assert link.is_symlink() and zipfile.is_zipfile(real)
    assert stat.S_IMODE(real.stat().st_mode) == 0o600


def test_record_does_not_follow_a_link_planted_at_a_predictable_temporary_name(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / ".calls.npz.tmp").symlink_to(victim)
    _write_recording(tmp_path / "calls.npz")
    assert victim.read_text() == "precious\n"
    assert zipfile.is_zipfile(tmp_path / "calls.npz")


def test_a_250_character_output_name_is_written(tmp_path):
    target = tmp_path / ("r" * 250)
    write_atomic(target, "ok\n")
    assert target.read_text() == "ok\n"


def test_scan_never_overwrites_a_source_it_reads(tmp_path):
    app = app_tree(tmp_path)
    proc = cli(["scan", "--all", "--no-cache", "app", "-o", "app/policy.py"], app)
    assert proc.returncode == 2 and "source file" in one_error(proc)
    assert (app / "app" / "policy.py").read_text() == HAZARD


def test_generate_never_overwrites_the_driver(tmp_path):
    app = app_tree(tmp_path)
    driver = app / "main.py"
    driver.write_text("from app.policy import act\nfor i in range(3):\n    act(i)\n")
    before = driver.read_text()
    proc = cli(["generate", "app", "--entry", "app.policy:act", "--driver", "main.py", "--force", "-o", "main.py"],
               app, timeout=120)
    assert proc.returncode == 2 and "main.py" in one_error(proc)
    assert driver.read_text() == before


def test_run_refuses_an_output_folder_holding_a_link(tmp_path):
    app = app_tree(tmp_path)
    (app / "out").mkdir()
    (app / "out" / "run.log").symlink_to(tmp_path / "victim")
    proc = cli(["run", "integration.py", "--out", "out"], app)
    assert proc.returncode == 2 and "symbolic link" in one_error(proc)
    assert not (tmp_path / "victim").exists()


def test_record_refuses_a_device_as_its_output(tmp_path):
    app = app_tree(tmp_path)
    node = app / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError as exc:
        pytest.skip(f"cannot create a device node: {exc}")
    proc = cli(["record", "integration.py", "--out", "null"], app)
    assert proc.returncode == 2 and "character device" in one_error(proc)
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_output_onto_a_read_only_file_is_refused(tmp_path):
    app = app_tree(tmp_path)
    report = app / "report.txt"
    report.write_text("keep\n")
    report.chmod(0o444)
    proc = cli(["scan", "--all", "--no-cache", "app", "-o", "report.txt"], app)
    assert proc.returncode == 2 and "read-only" in one_error(proc)
    assert report.read_text() == "keep\n"


# --------------------------------------------------------------------------- an untrusted tree
def test_a_forged_cache_entry_does_not_hide_hazards(tmp_path):
    from leapp_codemod.scan import ScanOptions, scan
    from leapp_codemod.source.cache import Cache

    app = app_tree(tmp_path)
    cache = Cache(tmp_path / "cache")
    cold = scan([str(app / "app")], ScanOptions(all_functions=True), cache)
    assert cold.findings
    for entry in (tmp_path / "cache").rglob("*.json"):
        data = json.loads(entry.read_text())
        data["value"]["findings"] = []            # "No hazards found", under the right key
        entry.write_text(json.dumps(data))
    warm = scan([str(app / "app")], ScanOptions(all_functions=True), cache)
    assert [f.code for f in warm.findings] == [f.code for f in cold.findings]


def test_a_cache_entry_naming_a_file_outside_the_tree_is_ignored(tmp_path):
    from leapp_codemod.source.cache import Cache

    tree = tmp_path / "tree"
    tree.mkdir()
    cache = Cache(tmp_path / "cache", tree=(str(tree),), secret=b"1" * 64)
    key = "cd" + "0" * 62
    finding = {"path": "/etc/passwd", "line": 1}
    cache.put(key, {"findings": [finding], "errors": []})
    assert cache.get(key) is None
    finding["path"] = str(tree / "a.py")
    cache.put(key, {"findings": [finding], "errors": []})
    assert cache.get(key) == {"findings": [finding], "errors": []}


def test_an_entry_written_with_another_key_is_ignored(tmp_path):
    from leapp_codemod.source.cache import Cache

    Cache(tmp_path, secret=b"a" * 64).put("ef" + "1" * 62, {"findings": []})
    assert Cache(tmp_path, secret=b"b" * 64).get("ef" + "1" * 62) is None
    assert Cache(tmp_path, secret=b"a" * 64).get("ef" + "1" * 62) == {"findings": []}


def test_a_folder_link_out_of_the_tree_is_skipped_with_a_note(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(HAZARD)
    app = tmp_path / "proj"
    (app / "pkg").mkdir(parents=True)
    (app / "pkg" / "ok.py").write_text("def f(x):\n    return x\n")
    (app / "pkg" / "linked").symlink_to(outside)
    proc = cli(["scan", "--all", "--no-cache", "pkg"], app)
    assert "secret.py" not in proc.stdout + proc.stderr and "1 file analyzed" in proc.stdout.replace("files", "file")
    assert "outside" in proc.stderr and "--follow-symlinks" in proc.stderr
    followed = cli(["scan", "--all", "--no-cache", "--follow-symlinks", "pkg"], app)
    assert "secret.py" in followed.stdout and followed.returncode == 1


@pytest.mark.parametrize("command", [["scan", "--all", "--no-cache"], ["entrypoints"]])
def test_a_fifo_named_py_does_not_hang(tmp_path, command):
    app = app_tree(tmp_path)
    os.mkfifo(app / "app" / "pipe.py")
    proc = cli([*command, "app"], app, timeout=60)
    assert "Traceback" not in proc.stderr
    if command[0] == "scan":
        assert "pipe.py: is a FIFO" in proc.stderr


def test_a_py_device_is_not_read(tmp_path):
    app = app_tree(tmp_path)
    try:
        os.mknod(app / "app" / "zero.py", stat.S_IFCHR | 0o666, os.makedev(1, 5))   # /dev/zero
    except OSError as exc:
        pytest.skip(f"cannot create a device node: {exc}")
    proc = cli(["scan", "--all", "--no-cache", "app"], app, timeout=60)
    assert "zero.py: is a character device" in proc.stderr
    assert proc.returncode == 1           # the real file's hazard is still reported


def test_a_py_link_to_a_device_outside_is_not_read(tmp_path):
    app = app_tree(tmp_path)
    (app / "app" / "zero.py").symlink_to("/dev/zero")
    proc = cli(["scan", "--all", "--no-cache", "app"], app, timeout=60)
    assert "zero.py" in proc.stderr and proc.returncode == 1


def test_an_unreadable_folder_is_reported_and_counted_as_an_unprivileged_user(shared_tmp):
    tmp_path = shared_tmp
    if os.geteuid() != 0:
        pytest.skip("needs root to switch to nobody")
    app = app_tree(tmp_path)
    (app / "app" / "hidden").mkdir()
    (app / "app" / "hidden" / "x.py").write_text(HAZARD)
    (app / "app" / "hidden").chmod(0o700)
    for folder, dirs, files in os.walk(tmp_path):
        for name in [folder, *(os.path.join(folder, f) for f in files)]:
            if not name.endswith("hidden"):
                os.chmod(name, os.stat(name).st_mode | 0o755 if os.path.isdir(name) else 0o644)
    proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *TOOL, "scan", "--all",
                           "--no-cache", "app"], cwd=app, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, HOME="/nonexistent"))
    if "setpriv" in proc.stderr and proc.returncode != 1:
        pytest.skip(f"setpriv cannot switch users here: {proc.stderr[:200]}")
    lines = [ln for ln in proc.stderr.splitlines() if "hidden" in ln]
    assert len(lines) == 1 and "cannot read folder" in lines[0], proc.stderr


def test_a_pickled_recording_is_not_loaded_without_allow_pickle(tmp_path):
    from leapp_codemod.runner.record import FORMAT, FORMAT_VERSION, RecordingError, load

    np = pytest.importorskip("numpy")
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    import io
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.frombuffer(pickle.dumps({"instance": Payload(), "statics": {}}),
                                                    dtype=np.uint8))
    rec = tmp_path / "calls.npz"
    meta = {"format": FORMAT, "version": FORMAT_VERSION, "entry": "app.policy:act", "inputs": ["obs"],
            "traced": 0, "checked": 0, "arrays": {}, "state": [], "layout": ""}
    with zipfile.ZipFile(rec, "w") as archive:
        archive.writestr("meta.json", json.dumps(meta))
        archive.writestr("objects.pickle.npy", buffer.getvalue())
    with pytest.raises(RecordingError, match="--allow-pickle"):
        load(rec)
    assert not marker.exists()
    app = app_tree(tmp_path / "w")
    meta.update(traced=5, checked=3)
    with zipfile.ZipFile(app / "calls.npz", "w") as archive:
        archive.writestr("meta.json", json.dumps(meta))
        archive.writestr("objects.pickle.npy", buffer.getvalue())
    proc = cli(["run", "integration.py", "--inputs", "calls.npz", "--out", "o"], app)
    assert proc.returncode == 2 and "--allow-pickle" in one_error(proc)
    assert not marker.exists()


# --------------------------------------------------------------------------- one-line errors, exit 2
@pytest.mark.parametrize("meta", [{"traced": "5"}, {"inputs": "obs"}, {"arrays": []}, {"traced": -1},
                                  {"inputs": [1]}, {"arrays": {"x": "pickle"}}, {"state": 3}])
def test_a_malformed_meta_json_is_one_line_exit_2(tmp_path, meta):
    from leapp_codemod.runner.record import FORMAT, FORMAT_VERSION

    app = app_tree(tmp_path)
    full = {"format": FORMAT, "version": FORMAT_VERSION, "entry": "app.policy:act", "inputs": ["obs"],
            "traced": 5, "checked": 3, "arrays": {}, "state": [], "layout": "", **meta}
    with zipfile.ZipFile(app / "calls.npz", "w") as archive:
        archive.writestr("meta.json", json.dumps(full))
    proc = cli(["run", "integration.py", "--inputs", "calls.npz", "--out", "o"], app)
    assert proc.returncode == 2, proc.stderr
    assert "calls.npz" in one_error(proc)


@pytest.mark.parametrize("setting", ["[tool.leapp-codemod]\nmax-file-mb = inf", "[tool.leapp-codemod]\nmax-file-mb = nan",
                                     "[tool.leapp-codemod]\nmax-file-mb = 1e400", "tool = 5",
                                     "[tool.leapp-codemod]\nentry = \"\""])
def test_a_hostile_config_is_one_line_exit_2(tmp_path, setting):
    app = app_tree(tmp_path)
    (app / "pyproject.toml").write_text(setting + "\n")
    proc = cli(["scan", "--no-cache", "app"], app)
    assert proc.returncode == 2 and "pyproject.toml" in one_error(proc)


@pytest.mark.parametrize("param, message", [("opset_version=", "no value"), ("opset_version=abc", "integer"),
                                            ("verify=3", "true or false")])
def test_backend_params_are_checked(tmp_path, param, message):
    app = app_tree(tmp_path)
    proc = cli(["generate", "app", "--entry", "app.policy:act", "--driver", "main.py", "--backend-param", param,
                "-o", "gen.py"], app)
    assert proc.returncode == 2 and message in one_error(proc)
    assert not (app / "gen.py").exists()


@pytest.mark.parametrize("command", [["scan", "app"], ["lint", "app/policy.py"]])
def test_an_empty_entry_is_refused(tmp_path, command):
    app = app_tree(tmp_path)
    proc = cli([*command, "--no-cache", "--entry", ""], app)
    assert proc.returncode == 2 and "--entry" in one_error(proc)


def test_a_dangling_link_is_called_dangling(tmp_path):
    app = app_tree(tmp_path)
    (app / "app" / "gone.py").symlink_to(app / "app" / "missing.py")
    proc = cli(["scan", "--all", "--no-cache", "app"], app)
    line = next(ln for ln in proc.stderr.splitlines() if "gone.py" in ln)
    assert "dangling symbolic link" in line and "loop" not in line


@pytest.mark.parametrize("limit", ["0.00001", "0.0012"])
def test_a_tiny_size_limit_is_shown_in_bytes(tmp_path, limit):
    app = app_tree(tmp_path)
    (app / "app" / "policy.py").write_text(HAZARD + "#" * 1400 + "\n")      # 1.4 KiB, above a 1.2 KiB limit
    (app / "pyproject.toml").write_text(f"[tool.leapp-codemod]\nmax-file-mb = {limit}\n")
    proc = cli(["scan", "--all", "--no-cache", "app"], app)
    line = next(ln for ln in proc.stderr.splitlines() if "policy.py" in ln)
    assert "0 KiB" not in line and "1 KiB, above the 1 KiB" not in line and "bytes" in line


def test_scan_without_all_honours_max_file_mb(tmp_path):
    app = app_tree(tmp_path)
    (app / "app" / "policy.py").write_text("from app.big import helper\n\n\ndef act(obs):\n    return helper(obs)\n")
    (app / "app" / "big.py").write_text("def helper(x):\n    return x.item()\n" + "# padding\n" * 200)
    (app / "pyproject.toml").write_text("[tool.leapp-codemod]\nmax-file-mb = 0.001\n")
    proc = cli(["scan", "--no-cache", "--entry", "app.policy:act", "app"], app)
    line = next(ln for ln in proc.stderr.splitlines() if "big.py" in ln)
    assert "max-file-mb" in line and "skipped" in line
