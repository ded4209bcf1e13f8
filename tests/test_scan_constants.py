"""Values fixed for the exported program are settings, not data (fixtures/scan_constants): locals folded from
module tables, defaults no caller overrides, constant helpers and `self.training`; the blocks they rule out are
dead and report nothing."""
from __future__ import annotations

import pytest
from scanfixture import found, scan_copy


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(tmp_path, app: str, entry: str, monkeypatch):
    return scan_copy("scan_constants", tmp_path, app, entry, monkeypatch)


def test_locals_unpacked_from_a_module_table_by_a_default_key_decide_their_blocks(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "gait_table_app", "gaits:Stepper.forward", monkeypatch))
    assert ("gaits.py", 25, "LCM201") not in hits   # `if mirrored:` -- 0 for "TROT"
    assert ("gaits.py", 28, "LCM102") not in hits   # `if grouped < 2:` -- 2 for "TROT"
    assert ("gaits.py", 30, "LCM002") not in hits   # `if _smoothing_on():` -- returns SMOOTHING (False)
    assert ("gaits.py", 43, "LCM801") not in hits   # `noisy = self.training and ...`: eval mode


def test_the_same_table_read_with_a_key_that_selects_the_block_keeps_its_findings(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "live_gait_app", "gaits:Stepper.forward", monkeypatch))
    assert ("gaits.py", 25, "LCM201") in hits       # "GALLOP": mirrored = 1
    assert ("gaits.py", 28, "LCM102") in hits       # grouped = 1 < 2
    assert ("gaits.py", 30, "LCM002") not in hits   # the helper still returns False


def test_dtype_facts_are_not_numpy_computations_on_the_data(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "quat_norm_app", "quat:Orienter.step", monkeypatch))
    assert ("quat.py", 6, "LCM301") not in hits    # `np.finfo(norm).eps`: machine epsilon of the dtype
    assert ("quat.py", 8, "LCM201") in hits        # `if norm < tiny:` still branches on the data
    assert ("quat.py", 10, "LCM301") in hits       # `np.cbrt(norm)`: a NumPy computation on the data


def test_empty_containers_made_on_the_first_call_are_setup_and_the_appends_are_state(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "lazy_history_app", "stacker:FrameStacker.act", monkeypatch))
    assert ("stacker.py", 16, "LCM701") not in hits   # `self.frames[name] = deque(maxlen=...)`: nothing stored
    assert ("stacker.py", 18, "LCM701") in hits       # `self.frames[name].append(obs[name])`: the data


def test_text_annotated_inputs_formatted_into_strings_are_not_pipeline_data(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "caption_app", "captioner:Captioner.forward", monkeypatch))
    assert ("captioner.py", 7, "LCM102") not in hits    # `f"{marker * repeat}[{label}]"`: a name from `names`
    assert ("captioner.py", 11, "LCM102") in hits       # `f"{label}={score}"`: `score` is `logits.max()`


def test_settings_passed_through_forwarding_subclass_constructors_decide_the_base_branches(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "forwarded_setting_app", "agents:Explorer.act", monkeypatch))
    assert ("agents.py", 13, "LCM801") not in hits   # no construction site selects "uniform"
    assert ("agents.py", 15, "LCM801") in hits       # "gauss" (passed, and the default) adds the noise


def test_a_forwarded_site_that_selects_the_branch_keeps_it(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "forwarded_any_app", "agents:Explorer.act", monkeypatch))
    assert ("agents.py", 13, "LCM801") in hits
    assert ("agents.py", 15, "LCM801") in hits


def test_a_number_every_config_gives_decides_the_branch_it_selects(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "config_noise_app", "walker:Walker.act", monkeypatch))
    assert ("walker.py", 13, "LCM801") not in hits   # eval_noise is 0 in every config


def test_a_number_one_config_sets_otherwise_keeps_the_branch(tmp_path, monkeypatch):
    hits = found(scan(tmp_path, "config_noise_live_app", "walker:Walker.act", monkeypatch))
    assert ("walker.py", 13, "LCM801") in hits       # one config gives 0.05
