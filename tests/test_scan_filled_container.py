"""A container on self that a method fills with what its callers hand it (`chain.register(make_clip(2.0))`,
`self.stages.append(stage)`): the step's calls of its items run the closures and functions the wiring code
registers (fixtures/scan_filled_container)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_the_items_a_register_method_stores_are_followed_into_what_its_callers_pass(tmp_path, monkeypatch):
    marked = check_marked("scan_filled_container", tmp_path, monkeypatch, "chain_app", "chain:Chain.run")
    # a returned closure and a module function, both handed to `register`
    assert {(path, category) for path, _, category in marked} == {
        ("stages.py", "scalar-extraction"), ("stages.py", "unmapped-numpy")}


def test_nothing_is_left_unfollowed_when_every_registered_item_is_known(tmp_path, monkeypatch):
    result = scan_copy("scan_filled_container", tmp_path, "chain_app", "chain:Chain.run", monkeypatch)
    assert not result.not_followed
