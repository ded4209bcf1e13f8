"""Values the pipeline's callers decide, one call level up (fixtures/scan_caller_fixed and small variants of
it): a helper's parameter every call passes a setting for is no data where it is read before the helper rebinds
it; `**kwargs` keys no pipeline call passes (or spelled like a parameter) rule out the blocks that test them.
Whenever a call passes data, or spreads a dict whose keys are unknown, the analysis stays as it was."""
from __future__ import annotations

import shutil

import pytest
from scanfixture import FIXTURES, found, scan_copy

from leapp_codemod.scan import scan_project

ENTRY = "app.policy:ArmPolicy.act"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def variant(tmp_path, monkeypatch, old: str, new: str, module: str = "app/policy.py"):
    """Scan a copy of the fixture whose `module` (the entry's by default) has `old` replaced by `new`."""
    root = tmp_path / "variant"
    shutil.copytree(FIXTURES / "scan_caller_fixed", root)
    path = root / module
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    monkeypatch.chdir(root)
    return found(scan_project(["."], entry=ENTRY))


def test_the_fixture_keeps_what_callers_leave_open_and_drops_what_they_fix(tmp_path, monkeypatch):
    hits = found(scan_copy("", tmp_path, "scan_caller_fixed", ENTRY, monkeypatch))
    assert ("shaping.py", 12, "LCM201") in hits      # `bound`: the call passes data for `limit`
    assert ("shaping.py", 19, "LCM201") in hits      # `settle`: the loop brings the rebinding round
    assert ("shaping.py", 41, "LCM201") in hits      # `gain`: a key the call passes
    assert ("shaping.py", 5, "LCM201") not in hits   # `deadband`: the caller's setting, read before rebinding
    assert not {line for name, line, _ in hits if name == "shaping.py" and 31 <= line <= 38}   # keys no call passes
    assert ("policy.py", 23, "LCM201") in hits       # `rig.offset`: a method sets it from its argument
    assert ("policy.py", 21, "LCM201") not in hits   # `rig.mirrored`: `Rig` sets it only when it is built
    assert ("policy.py", 19, "LCM001") not in hits   # `active`: the driver passes an item of its config


def test_a_caller_passing_data_keeps_the_parameter_data(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "soften(raw, self.settings.deadband)", "soften(raw, q.abs().mean())")
    assert ("shaping.py", 5, "LCM201") in hits


def test_a_key_one_call_passes_keeps_its_block(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "gain=q.abs() + 1.0)", "gain=q.abs() + 1.0, wrist=q * 0.1)")
    assert ("shaping.py", 33, "LCM201") in hits
    assert ("shaping.py", 36, "LCM102") not in hits   # `bias` is still passed by no call


def test_a_spread_of_unknown_keys_keeps_every_keyed_block(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "gain=q.abs() + 1.0)",
                   'gain=q.abs() + 1.0, **dict(zip(("wrist", "bias", "offset"), q.chunk(3))))')
    assert {("shaping.py", 33, "LCM201"), ("shaping.py", 36, "LCM102")} <= hits
    # a key spelled like a parameter never lands in `**extra`: only `offset` keeps that block open
    assert ("shaping.py", 38, "LCM102") in hits


def test_a_spread_literal_names_its_keys(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "raw = self.mixer(q, gain=q.abs() + 1.0)",
                   'raw = self.mixer(q, **{"bias": q * 0.0})')
    assert ("shaping.py", 36, "LCM102") in hits       # passed: the block runs
    assert ("shaping.py", 33, "LCM201") not in hits   # `wrist`: still no call passes it
    assert ("shaping.py", 41, "LCM201") not in hits   # neither `gain` now


def test_a_declared_field_a_method_also_sets_stays_data(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "self.offset = offset", "self.offset = offset\n        self.mirrored = offset is not None",
                   module="app/rig.py")
    assert ("policy.py", 21, "LCM201") in hits


def test_a_rebound_parameter_is_not_what_its_annotation_says(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "q = torch.as_tensor(obs)\n", "q = torch.as_tensor(obs)\n        rig = rig.pick(q)\n")
    assert ("policy.py", 22, "LCM201") in hits


def test_a_driver_argument_bound_from_data_stays_data(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "policy.act(obs, rig, active)", "policy.act(obs, rig, list(obs[:3]))",
                   module="main.py")
    assert ("policy.py", 19, "LCM001") in hits


def test_a_config_name_the_driver_also_fills_stays_data(tmp_path, monkeypatch):
    hits = variant(tmp_path, monkeypatch, "for step in range(20):\n", "for step in range(20):\n    active.append(step)\n",
                   module="main.py")
    assert ("policy.py", 19, "LCM001") in hits
