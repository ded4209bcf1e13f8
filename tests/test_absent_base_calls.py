"""Calls the scan used to leave unfollowed although the code names the class (fixtures/scan_absent_base):
an instance of a project class whose base comes from a package neither scanned nor installed runs its own
`forward` when called, and a range cut from a function whose parameter is annotated with a project class
(`scorer: ShardNet = None`, no caller passing it) that the range calls (`scorer(x)`) runs that class's
`__call__`, not one of the four other callable classes."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from scanfixture import FIXTURES, marked_lines, scan_copy

APP = FIXTURES / "scan_absent_base" / "glaze_line"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def _tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def _entry(shape: str) -> str:
    if shape == "absent_base":
        return "glaze.firing:Firing.tick"
    line = marked_lines(APP, "shape")[shape][1]
    return f"glaze/firing.py:{line - 1}-{line + 1}"


def test_the_fixture_marks_every_shape():
    assert set(marked_lines(APP, "shape")) == {"absent_base", "annotated_range"}
    assert {"absent_base", "annotated_range"} < set(marked_lines(APP, "hazard"))


@pytest.mark.parametrize("shape", ["absent_base", "annotated_range"])
def test_the_named_class_is_followed(shape, tmp_path, monkeypatch):
    before = _tree_hash(APP)
    result = scan_copy("scan_absent_base", tmp_path, "glaze_line", _entry(shape), monkeypatch)
    assert _tree_hash(APP) == before
    reported = {(Path(f.path).name, f.line) for f in result.findings}
    hazards = marked_lines(APP, "hazard")
    assert hazards[shape] in reported
    assert not {site for name, site in hazards.items() if name != shape} & reported
    call = marked_lines(APP, "shape")[shape]
    assert call not in {(Path(n.path).name, n.line) for n in result.not_followed}
