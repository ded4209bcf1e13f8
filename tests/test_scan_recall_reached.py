"""Rule gaps on reached code (fixtures/scan_recall_reached, issue 20 item 4): a buffer made by arithmetic on an
allocator, data carried through `.tolist()`, one entry of a dict attribute written before another entry is read,
a simulator's live state kept in a module global, PIL images read or received in the step, and writes into arrays of objects a library made or the caller hands in (LCM902)."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("scan_recall_reached", tmp_path, app, entry, monkeypatch)


def test_a_buffer_made_by_arithmetic_on_an_allocator_is_still_a_scratch_buffer(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "scaled_app", "gripper:ForceHold.forward", monkeypatch))
    assert ("gripper.py", 15, "LCM703") in hits     # wrench = np.zeros(6) + BIAS; wrench[:3] = force
    assert ("gripper.py", 16, "LCM703") in hits
    assert ("gripper.py", 17, "LCM703") in hits     # self.cmd = -np.ones(3) * GAIN, filled by the step
    assert not {line for _, line, code in hits if line == 19}   # torch.zeros(2) * GAIN: a torch buffer traces


def test_the_numbers_tolist_returns_stay_pipeline_data(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "listed_app", "sorter:route", monkeypatch))
    assert ("sorter.py", 8, "LCM101") in hits
    assert ("sorter.py", 9, "LCM201") in hits       # a branch on the list's first number
    assert ("sorter.py", 12, "LCM101") in hits      # the array rebuilt from the list is data: its tolist() too


def test_a_write_into_one_dict_entry_does_not_hide_the_history_in_another(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "keyed_app", "fusion:ImuWindow.step", monkeypatch))
    assert ("fusion.py", 10, "LCM701") in hits      # the gyro window shifted in place: read before written
    assert ("fusion.py", 11, "LCM701") in hits


def test_a_simulator_state_in_a_module_global_is_pipeline_data(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "sim_app", "swing:swing", monkeypatch))
    assert ("swing.py", 20, "LCM201") in hits       # physics = mujoco.MjData(MODEL) at module level
    assert ("swing.py", 22, "LCM102") in hits
    assert not {line for _, line, _ in hits if line == 19}   # MODEL.opt.timestep: the static model
    hits = found(scan(tmp_path / "again", "sim_app", "swing:balance", monkeypatch))
    assert ("swing.py", 28, "LCM201") in hits       # cart = mujoco.MjData(MODEL) under `global cart`


def test_pil_methods_on_an_image_read_in_the_step_are_native_calls(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "pil_app", "inspect:WeldInspector.grade", monkeypatch))
    assert ("inspect.py", 13, "LCM901") in hits     # Image.open: the read itself
    assert ("inspect.py", 23, "LCM401") in hits     # frame.crop in a helper the image is handed to
    assert ("inspect.py", 25, "LCM401") in hits     # box.resize on the image crop returned
    assert ("inspect.py", 15, "LCM401") in hits     # patch.convert on what the helper returns
    assert ("inspect.py", 16, "LCM401") in hits     # np.array(gray): the pixels copied out of PIL
    assert not {line for _, line, _ in hits if line in (20, 22)}   # the image's size: its fixed shape


def test_writes_into_arrays_of_objects_the_step_does_not_own(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "actuate_app", "hover:Hover.tick", monkeypatch))
    assert ("hover.py", 22, "LCM902") in hits       # a simulator's MjData bound under `global` in a setup function
    assert ("hover.py", 23, "LCM902") in hits       # scaled in place
    assert ("hover.py", 24, "LCM902") in hits       # an object passed in
    assert ("hover.py", 25, "LCM902") in hits       # an object the constructor was handed, kept on self
    assert ("hover.py", 26, "LCM703") in hits and ("hover.py", 26, "LCM902") not in hits   # the step's own buffer
    assert not {line for _, line, _ in hits if line == 27}   # a constant written into the simulator
