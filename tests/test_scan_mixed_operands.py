"""LCM110 (fixtures/scan_mixed_operands): a torch tensor and a NumPy array in one operation, typed by the data
flow: a module's answer times NumPy limits on `self`, an augmented add and a comparison; a traced NumPy array
minus a torch constant; a NumPy matrix times a tensor; an inline range's NumPy input and a module global. The
converted forms on the same lines' neighbours stay clean."""
from __future__ import annotations

import pytest
from scanfixture import check_marked


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_module_answer_with_numpy_limits_held_on_self(tmp_path, monkeypatch):
    found = check_marked("scan_mixed_operands", tmp_path, monkeypatch, "crane_app", "crane:CraneController.command")
    assert {line for _, line, _ in found} == {26, 28, 29}


def test_a_traced_array_with_a_torch_constant_and_a_numpy_matrix_times_a_tensor(tmp_path, monkeypatch):
    found = check_marked("scan_mixed_operands", tmp_path, monkeypatch, "sorter_app", "sorter:sort_step")
    assert {line for _, line, _ in found} == {10, 13}


def test_an_inline_range_input_and_a_module_global(tmp_path, monkeypatch):
    found = check_marked("scan_mixed_operands", tmp_path, monkeypatch, "drone_app", "hover.py:18-22")
    assert {line for _, line, _ in found} == {19, 22}


def test_attributes_rebound_from_themselves_are_typed_once(tmp_path, monkeypatch):
    found = check_marked("scan_mixed_operands", tmp_path, monkeypatch, "winch_app", "winch:Winch.pull")
    assert {line for _, line, _ in found} == {13}
