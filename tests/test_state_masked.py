"""State whose effect a call masks (`torch.where(touching, smooth(old), raw)` in the air): changing it moves
nothing on those calls, yet the call reads it by value, so it is kept as state (with the calls that masked it
named); a value read only to update itself (a peak for a log) and one written before it is read (a cache)
stay out. Probed on copies of the application's objects (no LEAPP)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from leapp_codemod.runner.intercept import Recorder, intercepted, resolve_entry
from leapp_codemod.runner.state_observe import describe_path
from leapp_codemod.runner.stateplan import plan_state

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "run_masked_state"


@pytest.fixture
def footf(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE))
    import footf.contact as module
    yield module
    for name in [n for n in sys.modules if n == "footf" or n.startswith("footf.")]:
        sys.modules.pop(name)


def _plan(entry_name: str, obj):
    entry = resolve_entry(entry_name)
    recorder = Recorder(entry=entry, input_names=("raw", "touching"), static_names=(), n_trace=3, n_check=3)
    gen = torch.Generator().manual_seed(1)

    with intercepted(entry, recorder):   # the foot is in the air on every observed call: the gate masks the state
        for _ in range(5):
            getattr(obj, entry_name.rpartition(".")[2])(torch.randn(1, 3, generator=gen), torch.zeros(1))
    return plan_state({}, recorder)


def test_state_masked_on_the_observed_calls_is_kept_and_the_masking_calls_are_named(footf):
    plan = _plan("footf.contact:ContactFilter.update", footf.ContactFilter())
    assert [describe_path(path) for _, path in plan.entries] == ["self.force"]
    notes = "\n".join(plan.notes)
    probed = ", ".join(map(str, plan.probed_calls))
    assert f"self.force: kept as state: call(s) {probed} read its old value but mask its effect" in notes
    for left_out in ("self.peak", "self.cache"):
        assert f"{left_out}: its old value never reaches the outputs" in notes
        assert f"on the probed call(s) {probed}: not state" in notes


def test_state_masked_to_a_constant_is_state_not_a_host_set_flag(footf):
    plan = _plan("footf.contact:SwingClock.tick", footf.SwingClock())
    assert [describe_path(path) for _, path in plan.entries] == ["self.phase"]
    assert not plan.host and "self.phase: kept as state" in "\n".join(plan.notes)
