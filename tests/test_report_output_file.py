import json
import os
import stat
import subprocess
import sys

import pytest

from leapp_codemod.io_util import write_atomic


def leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_writes_new_file_exactly(tmp_path):
    target = tmp_path / "leapp.sarif"
    write_atomic(target, "línea 1\r\nline 2\n")
    assert target.read_bytes() == "línea 1\r\nline 2\n".encode("utf-8")
    assert leftovers(tmp_path) == []


def test_new_file_gets_the_usual_mode(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "out.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "out.txt").stat().st_mode) == 0o640


def test_replaces_existing_file_and_keeps_its_mode(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    target.chmod(0o600)
    inode = target.stat().st_ino
    write_atomic(str(target), "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.stat().st_ino != inode  # replaced, not rewritten in place
    assert leftovers(tmp_path) == []


def test_failed_write_leaves_old_file_and_no_temp(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "half\ud800")  # a lone surrogate cannot be encoded
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_failed_write_creates_nothing(tmp_path):
    with pytest.raises(UnicodeEncodeError):
        write_atomic(tmp_path / "new.txt", "\udfff")
    assert list(tmp_path.iterdir()) == []


def test_missing_directory_raises_and_creates_nothing(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "missing" / "out.txt", "x")
    assert list(tmp_path.iterdir()) == []


def test_relative_path_is_written_in_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_atomic("rel.txt", "ok")
    assert (tmp_path / "rel.txt").read_text() == "ok"


# Special targets: a shell redirection writes through them; the helper must never replace them.

def test_symlink_stays_and_its_target_is_replaced(tmp_path):
    real = tmp_path / "real" / "report.txt"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new"
    assert leftovers(tmp_path) == [] and leftovers(real.parent) == []


def test_chain_of_symlinks_and_dangling_link(tmp_path):
    real = tmp_path / "real.txt"
    first = tmp_path / "first"
    second = tmp_path / "second"
    second.symlink_to(real)          # dangling until written
    first.symlink_to(second)
    write_atomic(first, "made")
    assert first.is_symlink() and second.is_symlink()
    assert real.read_text() == "made"


def test_fifo_is_refused_not_written(tmp_path):
    from leapp_codemod.io_util import UnsafeOutput

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeOutput, match="FIFO"):
        write_atomic(fifo, "through the pipe\n")     # would block without a reader if it were opened
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert leftovers(tmp_path) == []


def test_real_null_device_node_is_refused_and_survives(tmp_path):
    from leapp_codemod.io_util import UnsafeOutput

    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot create a device node here: {exc}")
    with pytest.raises(UnsafeOutput, match="character device"):
        write_atomic(node, "discarded")
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_cli_output_onto_a_symlink_keeps_the_link(tmp_path):
    app = tmp_path / "app.py"
    app.write_text("def act(x):\n    return x.item()\n")
    real = tmp_path / "out.json"
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    proc = subprocess.run([sys.executable, "-m", "leapp_codemod", "scan", "--all", "--no-cache", "--format", "json",
                           "-o", str(link), str(app)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert link.is_symlink()
    assert json.loads(real.read_text())["findings"]


@pytest.mark.parametrize("writer", ["generated module", "run report"])
def test_generated_files_get_the_usual_mode(tmp_path, writer):
    from leapp_codemod.generate.render import write_module
    from leapp_codemod.runner.verdict import write_report

    old = os.umask(0o022)
    try:
        if writer == "generated module":
            written = tmp_path / "sub" / "integration.py"
            write_module(written, "X = 1\n")
        else:
            written = write_report({"status": "validated"}, tmp_path / "out")
    finally:
        os.umask(old)
    assert stat.S_IMODE(written.stat().st_mode) == 0o644
