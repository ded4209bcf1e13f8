"""A callable handed to a helper that recurses on itself (passing the callable on at several places) is
still what the helper calls: the resolver follows each recursive lap once (fixtures/scan_recursive_callable)."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_callable_passed_through_a_recursive_helper_is_followed(tmp_path, monkeypatch):
    result = scan_copy("scan_recursive_callable", tmp_path, "gripper_app", "gripper:GripperPolicy.forward", monkeypatch)
    assert ("gripper.py", 8, "LCM101") in found(result)
    assert not result.not_followed
