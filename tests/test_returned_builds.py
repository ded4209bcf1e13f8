"""A value handed to a parameter or a constructor that a project function returns is typed by what that
function returns (fixtures/scan_returned_builds): a factory returning another factory's if-chain of
classes, one item of a returned tuple (`estimator, meta = restore(path)` then `Governor(estimator)`), and
a field set from such an item (`net, self.meta = assemble(w); self.net = net`), before any guess by the
method's name (seven classes define `estimate`)."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from scanfixture import FIXTURES, marked_lines, scan_copy

APP = FIXTURES / "scan_returned_builds" / "kiln_line"
ENTRIES = {"chained_factory": "kiln.run:fire", "tuple_item": "kiln.govern:Governor.step",
           "unpacked_field": "kiln.vent:Vent.open"}
REACHED = {"chained_factory": {"chained_factory", "chained_factory_other"}, "tuple_item": {"tuple_item"},
           "unpacked_field": {"unpacked_field"}}


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def _tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def test_the_fixture_marks_every_shape():
    assert set(marked_lines(APP, "shape")) == set(ENTRIES)
    assert set().union(*REACHED.values()) <= set(marked_lines(APP, "hazard"))


@pytest.mark.parametrize("shape", sorted(ENTRIES))
def test_the_returned_class_is_followed(shape, tmp_path, monkeypatch):
    before = _tree_hash(APP)
    result = scan_copy("scan_returned_builds", tmp_path, "kiln_line", ENTRIES[shape], monkeypatch)
    assert _tree_hash(APP) == before
    reported = {(Path(f.path).name, f.line) for f in result.findings}
    hazards = marked_lines(APP, "hazard")
    assert {hazards[name] for name in REACHED[shape]} <= reported
    others = {site for name, site in hazards.items() if name not in REACHED[shape]}
    assert not others & reported   # neither the other factory's class nor a decoy that defines `estimate`
    call = marked_lines(APP, "shape")[shape]
    assert call not in {(Path(n.path).name, n.line) for n in result.not_followed}
    assert not [b for b in result.bound_calls if "duck typing" in b.how]
