"""Entry ranking: a library function never stands for a project method of the same name; ties between
near-copies of one script are broken by a signal the reasons name."""
from __future__ import annotations

import sys

import pytest
from test_entry_ranking import app, by_id, ranked

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def expected(name: str) -> dict:
    return tomllib.loads((FIXTURES / name / "expected.toml").read_text(encoding="utf-8"))


def test_a_library_call_never_drives_a_project_method_of_the_same_name(tmp_path, monkeypatch):
    want = expected("entry_library_namesake")
    candidates = ranked(app(tmp_path, "entry_library_namesake"), monkeypatch)
    assert candidates[0]["entry"] == want["entry"]
    namesake = by_id(candidates).get(want["namesake"])
    if namesake is not None:     # it may be listed for its network call, never as driven by `shlex.split`
        assert not any("called in a loop" in r for r in namesake["reasons"])
        assert namesake["score"] < candidates[0]["score"]
