"""LCM114 (fixtures/scan_plain_index_write): writes into pipeline data through an index that is a plain NumPy
array (settings kept as an array on self, an unmapped NumPy function's mask and its inverse, a comparison of a
constant table, a module-level index array in an inline range); reads through them, list keys, masks computed
from the data and buffers allocated from constants stay clean."""
from __future__ import annotations

import pytest
from scanfixture import check_marked


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))



def test_joint_ids_kept_as_an_array_on_self(tmp_path, monkeypatch):
    found = check_marked("scan_plain_index_write", tmp_path, monkeypatch, "gripper_app", "gripper:GraspPolicy.act")
    assert {line for _, line, _ in found} == {14}


def test_an_unmapped_mask_its_inverse_and_a_constant_comparison(tmp_path, monkeypatch):
    found = check_marked("scan_plain_index_write", tmp_path, monkeypatch, "sorter_app", "conveyor:classify")
    assert {line for _, line, _ in found} == {10, 12, 13}


def test_a_module_index_array_in_an_inline_range(tmp_path, monkeypatch):
    found = check_marked("scan_plain_index_write", tmp_path, monkeypatch, "hexapod_app", "gait.py:19-22")
    assert {line for _, line, _ in found} == {21}
