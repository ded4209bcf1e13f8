"""Rule reach on forms of real deploy code (fixtures/scan_recall_forms): a loop counter behind a progress bar,
elements of a NumPy vector written item by item into message fields or handed to a helper as separate
arguments (one of them returned in a tuple by a helper), and each write into a scratch buffer."""
from __future__ import annotations

import ast

import pytest
from scanfixture import found, scan_copy

from leapp_codemod.source.chains import counter_kind


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("scan_recall_forms", tmp_path, app, entry, monkeypatch)


@pytest.mark.parametrize("text, kind", [("range(3)", "range"), ("tqdm(range(n), desc='x')", "range"),
                                        ("trange(9)", "range"), ("tqdm.tqdm(enumerate(xs))", "enumerate"),
                                        ("tqdm(xs)", None), ("np.arange(3)", None), ("sorted(range(3))", None)])
def test_a_counter_is_seen_through_a_progress_bar(text, kind):
    assert counter_kind(ast.parse(text, mode="eval").body) == kind


def test_a_progress_bar_loop_counter_read_by_an_inline_range_is_a_python_number(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "sweep_app", "sweep.py:13-17", monkeypatch))
    assert ("sweep.py", 14, "LCM103") in hits            # np.sin(tick * 0.05), tick from trange(200)
    assert ("sweep.py", 14, "LCM301") not in hits        # the counter is a Python number, not a traced array
    assert not any(line in (13, 15, 16) for _, line, _ in hits)


def test_numpy_elements_into_item_fields_and_call_arguments_are_extractions(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "servo_app", "servo.rig:Rig.act", monkeypatch))
    assert ("rig.py", 35, "LCM104") in hits     # servos[k].angle = angles[k + self.offset], loop over range
    assert ("rig.py", 37, "LCM104") in hits     # self.aim(head[0], head[1]); head from split()'s returned tuple
    assert ("rig.py", 36, "LCM104") not in hits  # a constant into the field


def test_torch_elements_into_item_fields_and_call_arguments_stay_traced(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "servo_app", "servo.rig:TorchRig.act", monkeypatch))
    assert not any(code == "LCM104" for _, _, code in hits)


def test_a_held_objects_field_rebuilt_from_itself_over_several_lines_is_state(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "relay_app", "relay:Relay.step", monkeypatch))
    assert ("relay.py", 18, "LCM702") in hits    # self.memory.frames = torch.cat((obs, self.memory.frames[...]))


def test_an_import_through_a_folder_the_script_puts_on_sys_path_is_followed(tmp_path, monkeypatch):
    result = scan(tmp_path, "pathed_app", "runner:Runner.step", monkeypatch)
    assert ("shaper.py", 9, "LCM801") in found(result)   # `from lib.shaper import Shaper` after sys.path.insert
    assert not any("shape" in n.text for n in result.not_followed)


def test_a_parameter_annotated_as_a_numpy_array_is_numpy(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "rover_app", "rover:Rover.drive", monkeypatch))
    assert ("rover.py", 12, "LCM104") in hits    # lin, ang = act, with act: npt.NDArray[np.float32]


def test_a_branch_on_a_number_taken_out_of_the_data_is_a_data_branch(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "clamp_app", "clamp:Limiter.act", monkeypatch))
    assert ("clamp.py", 11, "LCM102") in hits    # worst = float(out.abs().max())
    assert ("clamp.py", 12, "LCM201") in hits    # if worst > self.tol


def test_each_write_into_a_read_buffer_is_a_finding_and_a_buffer_nothing_reads_is_none(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "probe_app", "probe:Probe.sample", monkeypatch))
    assert {("probe.py", 14, "LCM703"), ("probe.py", 15, "LCM703")} <= hits   # self.seen, read by the net
    assert ("probe.py", 13, "LCM703") not in hits                             # self.raw: written, never read
