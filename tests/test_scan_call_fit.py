"""A call is run only by a candidate that can accept its arguments (fixtures/scan_call_fit): of the subclasses
behind a base-typed attribute, one that would raise `TypeError` on the call's keyword is not followed, so its
hazards are not reported; the one that accepts it is followed."""
from __future__ import annotations

import ast

import pytest
from scanfixture import check_marked

from leapp_codemod.analysis.model.call_fit import accepts

GROUP = "scan_call_fit"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_only_the_subclass_that_takes_the_keyword_is_followed(tmp_path, monkeypatch):
    found = check_marked(GROUP, tmp_path, monkeypatch, "filter_app", "arm:Arm.act")
    assert ("filters.py", 16, "inplace-state") in found


def _fits(source: str, call: str, bound: bool = True) -> bool:
    fn = ast.parse(source).body[0]
    return accepts(fn, ast.parse(call, mode="eval").body, bound)


@pytest.mark.parametrize(("source", "call", "fits"), [
    ("def f(self, x): pass", "o.f(x, mode=1)", False),
    ("def f(self, x, mode=0): pass", "o.f(x, mode=1)", True),
    ("def f(self, x, **kw): pass", "o.f(x, mode=1)", True),
    ("def f(self, x): pass", "o.f(x, y)", False),
    ("def f(self, *xs): pass", "o.f(x, y)", True),
    ("def f(self, x): pass", "o.f(*xs)", True),
    ("def f(self, x): pass", "o.f(**opts)", True),
    ("def f(self, x, /): pass", "o.f(x=1)", False),
    ("def f(self, *, x): pass", "o.f(x=1)", True),
])
def test_accepts(source, call, fits):
    assert _fits(source, call) is fits


def test_a_staticmethod_binds_no_receiver():
    assert _fits("@staticmethod\ndef f(x): pass", "o.f(x)")
    assert not _fits("def f(x): pass", "o.f(x)")
