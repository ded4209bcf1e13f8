"""`scan` and `lint` on bad input from the command line: one clear line naming the file, a meaningful exit code,
never a traceback; one bad file never stops the others (split out of test_cli_scan.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli_scan import CLEAN, PIPE, cli, pipe, private_cache, stderr_lines, write  # noqa: F401 (fixtures)

# --------------------------------------------------------------------------- bad input
HUGE = b"def step(obs):\n    return obs.item()\n" + b"PAD = 0  # " + b"x" * 64 + b"\n" * 1 \
    + (b"V = 1  # " + b"p" * 70 + b"\n") * 30000


def make_bad(root: Path, kind: str) -> str:
    """Create one bad input in `root`; return the name it is given on the command line."""
    if kind == "syntax":
        write(root, {"broken.py": "def step(obs:\n    return obs\n"})
        return "broken.py"
    if kind == "undecodable":
        write(root, {"latin.py": b"x = '\xff\xfe\xfa'\n"})
        return "latin.py"
    if kind == "nested":
        write(root, {"nested.py": "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n"})
        return "nested.py"
    if kind == "huge":
        write(root, {"huge.py": HUGE})
        assert (root / "huge.py").stat().st_size > 2 * 1024 * 1024
        return "huge.py"
    if kind == "missing":
        return "missing.py"
    if kind == "no-python":
        write(root, {"notes/readme.txt": "text\n"})
        return "notes"
    if kind == "dir-symlink-loop":
        write(root, {"loop/inner.py": CLEAN})
        (root / "loop" / "again").symlink_to("..", target_is_directory=True)
        return "loop"
    if kind == "file-symlink-loop":
        (root / "a.py").symlink_to("b.py")
        (root / "b.py").symlink_to("a.py")
        return "a.py"
    raise AssertionError(kind)


BAD_KINDS = ["syntax", "undecodable", "nested", "huge", "missing", "no-python", "dir-symlink-loop",
             "file-symlink-loop"]


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_bad_input_next_to_a_good_file(tmp_path, kind):
    write(tmp_path, {"good.py": PIPE})
    bad = make_bad(tmp_path, kind)
    result = cli(tmp_path, "scan", "good.py", bad, "--entry", "good:step")
    assert result.exit_code == 1
    assert "good.py:" in result.stdout and "LCM101" in result.stdout
    naming = [line for line in stderr_lines(result) if bad.split("/")[0] in line]
    assert len(naming) == 1, result.stderr
    assert len(stderr_lines(result)) == 1, result.stderr
    assert "could not be analyzed" in result.stdout.splitlines()[-1]


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_bad_input_is_listed_in_json_errors(tmp_path, kind):
    write(tmp_path, {"good.py": PIPE})
    bad = make_bad(tmp_path, kind)
    result = cli(tmp_path, "scan", "good.py", bad, "--entry", "good:step", "--format", "json")
    document = json.loads(result.stdout)
    assert result.exit_code == 1
    assert {f["path"] for f in document["findings"]} == {"good.py"}
    assert [e["path"].split("/")[0] for e in document["errors"]] == [bad.split("/")[0]]
    assert all("\n" not in e["message"] and e["message"] for e in document["errors"])


@pytest.mark.parametrize("kind", ["syntax", "undecodable", "nested", "huge", "missing", "no-python",
                                  "file-symlink-loop"])
def test_bad_input_alone_is_exit_2(tmp_path, kind):
    bad = make_bad(tmp_path, kind)
    result = cli(tmp_path, "scan", bad)
    assert result.exit_code == 2
    assert bad in result.stderr


def test_bad_file_inside_a_scanned_directory(tmp_path):
    write(tmp_path, {"proj/good.py": PIPE, "proj/broken.py": "def f(:\n", "proj/latin.py": b"x = '\xff'\n"})
    result = cli(tmp_path, "scan", "proj", "--entry", "good:step")
    assert result.exit_code == 1
    assert "proj/good.py:" in result.stdout
    assert sorted(line.split(":")[1].strip() for line in stderr_lines(result)) == ["proj/broken.py", "proj/latin.py"]


def test_directory_symlink_loop_is_walked_once(tmp_path):
    write(tmp_path, {"proj/good.py": PIPE})
    (tmp_path / "proj" / "self").symlink_to(".", target_is_directory=True)
    result = cli(tmp_path, "scan", "proj", "--entry", "good:step", "--format", "json")
    document = json.loads(result.stdout)
    assert document["files_analyzed"] == 1
    assert len(document["findings"]) == 3
