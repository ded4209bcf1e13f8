import os
import stat

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
