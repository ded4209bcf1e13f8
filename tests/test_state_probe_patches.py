"""The state probe runs the step with the integration module's FunctionPatch replacements in place,
as tracing will: a number state whose only refusing reader is a helper the module replaces is
carried, not refused for what the original helper does with it (no LEAPP)."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from leapp_codemod.runner.errors import RunnerError
from leapp_codemod.runner.intercept import Recorder, intercepted, resolve_entry
from leapp_codemod.runner.stateplan import plan_state

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "run_probe_patches"


@dataclass(frozen=True)
class _Patch:     # the fields of the integration module's Patch the probe reads
    module: str
    name: str
    replacement: object


@pytest.fixture
def tiltctl(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE))
    import tiltctl.controller as module
    yield module
    for name in [n for n in sys.modules if n == "tiltctl" or n.startswith("tiltctl.")]:
        sys.modules.pop(name)


def _record(module) -> Recorder:
    entry = resolve_entry("tiltctl.controller:TiltController.step")
    recorder = Recorder(entry=entry, input_names=("angles",), static_names=(), n_trace=3, n_check=3)
    ctl = module.TiltController()
    with intercepted(entry, recorder):
        angles = np.zeros(2, dtype=np.float32)
        for _ in range(5):        # fewer than traced + checked: the recorder stops the driver at the sixth
            angles = (0.9 * angles + 0.05 * ctl.step(angles) + 0.01).astype(np.float32)
    assert recorder.error is None and len(recorder.checks) == 2
    return recorder


def test_the_original_helper_refuses_both_kinds_of_the_clock(tiltctl):
    with pytest.raises(RunnerError) as info:
        plan_state({}, _record(tiltctl))
    assert str(info.value).startswith("self.t is a Python number the outputs depend on")
    assert "as a shape-(1,) NumPy array the call raises at" in str(info.value)
    assert "tiltctl/features.py:8" in str(info.value)


def test_with_the_replacement_in_place_the_clock_is_state_carried_as_an_array(tiltctl):
    from tiltctl import features

    recorder = _record(tiltctl)
    patch = _Patch("tiltctl.controller", "tilt_row", features.tilt_row_twin)
    before = tiltctl.tilt_row
    plan = plan_state({}, recorder, patches=(patch,))
    # `t` is a torch operator's name (a graph value may be named so): the port is `t_state` (boundary.fresh_port)
    assert [(name, path) for name, path in plan.entries] == [("t_state", ("self", ("attr", "t")))]
    assert plan.kinds == {"t_state": "numpy"}
    assert tiltctl.tilt_row is before, "the binding in place before the probe is put back"


def test_a_bound_adapter_that_calls_the_function_it_replaces_reaches_the_original():
    import numpy as np

    from leapp_codemod.runner.intercept import replaced

    def norm_adapter(x, *args, **kwargs):      # an adapter: on a value it does not trace, the library's own
        return np.linalg.norm(x, *args, **kwargs)

    original = np.linalg.norm
    with replaced((_Patch("numpy.linalg", "norm", norm_adapter),)):
        assert np.linalg.norm is not original
        assert np.linalg.norm(np.array([3.0, 4.0])) == 5.0       # no recursion into the adapter
    assert np.linalg.norm is original
