"""Loop-carried values of inline ranges (fixtures/scan_recall15): a first-pass initialiser under a test on the
namespace (`if "x" not in globals():`) runs once, so the rebinding after it still reads the previous
iteration's value; a value the loop rebinds after the range from the range's outputs is carried too. And a mapped NumPy call given `dtype=` a type object, which raises under LEAPP."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_filter_initialised_under_a_namespace_test_is_carried_state(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall15", tmp_path, "winch_app", "winch.py:8-13", monkeypatch))
    assert ("winch.py", 12, "LCM702") in hits          # pull_avg = pull_avg * 0.9 + pull * 0.1
    assert not any(line in (8, 9, 13) for _, line, _ in hits)


def test_a_value_the_loop_rebinds_after_the_range_from_its_outputs_is_carried(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall15", tmp_path, "winch_app", "arm.py:14-16", monkeypatch))
    assert ("arm.py", 18, "LCM705") in hits            # u_prev = clip(u, ...) * 0.5, read by the range at line 14
    # `q` is rebound after the range too, but by the robot's reading (`self.robot.move`): an input
    assert not any(line in (14, 15, 16, 17) for _, line, _ in hits)
    assert [code for _, _, code in hits].count("LCM705") == 1


def test_a_type_object_as_dtype_of_a_mapped_numpy_call_is_reported(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall15", tmp_path, "winch_app", "mix:Mixer.blend", monkeypatch))
    assert ("mix.py", 9, "LCM301") in hits             # np.stack(..., dtype=np.float64): raises under LEAPP
    assert not any(line in (10, 11) for _, line, _ in hits)   # a string dtype traces


def test_a_property_read_on_a_project_object_runs_its_getter(tmp_path, monkeypatch):
    hits = found(scan_copy("scan_recall15", tmp_path, "rollout_app", "rollout:act", monkeypatch))
    assert ("rollout.py", 11, "LCM201") in hits        # the getter of `roll.scaled` branches on the data
