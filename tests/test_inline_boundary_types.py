"""LCM108: an inline range's input built as a value LEAPP's boundary cannot declare (tests/test_leapp_boundary_types.py
checks the LEAPP fact), on fixtures of two shapes: a quadruped's history list of dicts of floats, filled before the
range, and an arm teleop loop's dict of Python lists that the range joins into an array first."""
from __future__ import annotations

import ast

from scanfixture import check_marked, scan_copy

from leapp_codemod.analysis.inline.boundary_types import undeclarable_inputs
from leapp_codemod.analysis.inline.range import read_range

GROUP = "inline_boundary_types"


def _findings(result, code="LCM108"):
    return {f.line: f for f in result.findings if f.code == code}


def test_a_history_list_of_dicts_of_floats_is_flagged_where_the_range_reads_it(tmp_path, monkeypatch):
    check_marked(GROUP, tmp_path, monkeypatch, "quadruped", "walk.py:30-33")
    found = _findings(scan_copy(GROUP, tmp_path / "again", "quadruped", "walk.py:30-33", monkeypatch))
    assert list(found) == [30]
    message = found[30].message
    assert "`history`" in message and "list of dicts of Python numbers" in message
    assert "built at line 22" in message and "filled at line 25" in message
    assert "line 31" in found[30].fix and "`feats`" in found[30].fix


def test_a_dict_of_lists_joined_first_suggests_the_range_after_the_join(tmp_path, monkeypatch):
    check_marked(GROUP, tmp_path, monkeypatch, "teleop", "teleop.py:26-29")
    found = _findings(scan_copy(GROUP, tmp_path / "again", "teleop", "teleop.py:26-29", monkeypatch))
    assert "dict of lists of Python numbers" in found[26].message and "built at line 23" in found[26].message
    assert "start the range at line 27" in found[26].fix and "`joined`" in found[26].fix


def test_a_dict_of_arrays_and_a_list_of_arrays_are_declared(tmp_path, monkeypatch):
    assert not _findings(scan_copy(GROUP, tmp_path, "teleop", "teleop.py:28-29", monkeypatch))
    source = (scan_copy.__globals__["FIXTURES"] / GROUP / "quadruped" / "walk.py").read_text()
    _, rng = read_range("walk.py", source, 30, 33)
    assert "contacts" in rng.inputs and "history" in rng.inputs
    assert set(undeclarable_inputs(rng)) == {"history"}


def _judged(code: str, start: int, end: int):
    _, rng = read_range("s.py", code, start, end)
    return undeclarable_inputs(rng)


LOOP = "import collections\nimport numpy as np\ndef main(cam, net):\n{before}    while True:\n{inside}" \
       "        y = net(np.stack(list(buf)))\n        print(y)\n"


def _loop(before: str, inside: str = "") -> dict:
    code = LOOP.format(before=before, inside=inside)
    line = next(i for i, text in enumerate(code.splitlines(), 1) if "y = net" in text)
    ast.parse(code)
    return _judged(code, line, line)


def test_what_the_code_shows_decides_each_kind():
    deque = _loop("    buf = collections.deque([cam()] * 3, maxlen=3)\n", "        buf.append(cam())\n")["buf"]
    assert deque.passed_whole and deque.what == "a deque" and deque.built == 4 and deque.filled == (6,)
    growing = _loop("    buf = []\n", "        buf.append(cam())\n")["buf"]
    assert not growing.passed_whole and "length changes" in growing.what
    assert "buf" not in _loop("    buf = [cam(), cam()]\n", "        buf[0] = cam()\n")     # fixed length, arrays
    assert "buf" not in _loop("    buf = [cam()]\n", "        buf.append(cam())\n        buf.pop(0)\n")
    assert "buf" not in _loop("", "        buf = cam.window()\n")                        # built by a call: unknown
    numbers = _loop("", "        buf = [float(v) for v in cam()]\n")["buf"]
    assert numbers.what == "a list of Python numbers" and numbers.passed_whole
