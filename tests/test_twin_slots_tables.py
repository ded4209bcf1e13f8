"""Twins of tensor branches that write array slots, traced indexes into constant tables, element reads at a
loop's position, `np.clip` with list bounds, and verdicts that name a float32/float64 mix, end to end on four
controllers of their own shape:

* `twin_hexapod`: a six-legged walker whose gait helper fills a per-leg lift array in a loop,
  `if phase[leg] < 0.5: lift[leg] = ... else: lift[leg] = ...`, then a one-armed `if load.min() < 0.05:
  lift[0] = ...`; the twin chooses per slot and validates (the branch flips leg by leg across the run).
* `twin_mower`: a lawn mower that samples a constant grass-height NumPy map at cells computed from its
  position (`GRASS[cells[:, 0], cells[:, 1]]`) and picks a drive command from a constant NumPy table by the
  argmax of a Q-network (and a blade height from a list): the scan flags both reads (LCM106), the twins
  gather on traced constants and validate.
* `twin_crane`: a crane boom whose forward kinematics reads `joint_pos[i]` in a `for i in range(3)` loop
  into Python arithmetic: the scan names that line, the twin keeps the element traced and validates.
* `run_gimbal`: a camera gimbal that clips with list bounds (patched with the `numpy.clip` adapter) and
  smooths gyro samples with float64 FIR taps on float32 samples (`TAPS @ window`): the one-line verdict
  names that line.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from leapp_codemod.adapters import ADAPTERS
from leapp_codemod.generate.twin_helpers import twin_take

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _cli(args, cwd):
    return subprocess.run([sys.executable, "-m", "leapp_codemod", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, check=False)


def _sources(root: Path) -> dict:
    return {p: p.read_bytes() for p in root.rglob("*.py")}


def _generate(tmp_path, name, package, entry):
    work = tmp_path / name
    shutil.copytree(FIXTURES / name, work, ignore=shutil.ignore_patterns("__pycache__"))
    before = _sources(work / package)
    proc = _cli(["generate", package, "--entry", entry, "--driver", "main.py", "-o", "integration.py"], work)
    assert proc.returncode == 0, proc.stderr
    return work, before, (work / "integration.py").read_text()


def _run(work):
    proc = _cli(["run", "integration.py", "--out", "out", "--format", "json"], work)
    assert "Traceback" not in proc.stderr
    return proc, json.loads(proc.stdout)


# ----------------------------------------------------------------------------------- helpers alone
def test_twin_take_gathers_from_numpy_and_list_tables_with_every_index_kind():
    grid = np.arange(12.0).reshape(3, 4)
    rows, cols = np.array([0, 2]), np.array([3, 1])
    assert np.array_equal(twin_take(grid, (rows, cols)), grid[rows, cols])
    assert np.array_equal(twin_take(grid, (np.array(1), slice(None, None, None))), grid[1, :])
    one = twin_take(grid, (np.array(2), np.array(3)))             # one number: a one-element array
    assert one.shape == (1,) and one[0] == grid[2, 3]
    assert twin_take(grid, (1, 2)) == grid[1, 2]                  # Python indexes: as written
    picked = twin_take(grid, torch.tensor(2))                     # a tensor index on an array table: NumPy back
    assert isinstance(picked, np.ndarray) and np.array_equal(picked, grid[2])
    speeds = [0.25, 0.5, 1.0]
    assert twin_take(speeds, torch.tensor(1)).item() == 0.5
    gear = twin_take(speeds, np.array(2))                         # like a Python float in float32 arithmetic
    assert (np.ones(2, np.float32) * gear).dtype == np.float32 and gear[0] == 1.0


@pytest.mark.parametrize("case", range(8))
def test_the_clip_adapter_agrees_with_numpy_on_list_array_and_number_bounds(case):
    rng = np.random.default_rng(case)
    x = (rng.normal(size=(4, 3)) * 2).astype(np.float32)
    args, kwargs = [
        ((x, [-0.5, -1.0, 0.0], [0.5, 1.0, 2.0]), {}),
        ((x, -1.0, 1.0), {}),                                      # float32 with Python scalars stays float32
        ((x, None, (0.5, 1.0, 2.0)), {}),
        ((x[::-1], np.array([-0.5, -1.0, 0.0]), np.array([0.5, 1.0, 2.0])), {}),   # negative strides
        ((x.T[1:], -0.2, None), {}),                                # a sliced transposed view
        ((x.astype(np.float64), [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]), {}),           # crossed bounds: a_max wins
        ((np.arange(6), 1, 4), {}),
        ((x,), {"min": -0.1, "max": [0.1, 0.2, 0.3]}),
    ][case]
    want, got = np.clip(*args, **kwargs), ADAPTERS["numpy.clip"].function(*args, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)


def test_the_clip_adapter_refuses_bounds_that_do_not_broadcast():
    with pytest.raises(ValueError, match="numpy.clip"):
        ADAPTERS["numpy.clip"].function(np.zeros(3), [0.0, 1.0], 2.0)


@pytest.mark.e2e
def test_clip_with_list_bounds_on_traced_views_exports_and_reproduces_numpy(tmp_path):
    from tests.test_adapters_export import export_and_compare

    low, high = [-0.5, -1.0, 0.0], [0.5, 1.0, 2.0]

    def pipeline(clip, x):
        return {"listed": clip(np.flip(x, axis=0), low, high) * 2.0,          # negative strides, list bounds
                "scalars": clip(x.T[1:], -0.4, 0.4) * 1.5,                      # a view, float32 with floats
                "arrays": clip(x, -np.asarray(high), np.asarray(high))}

    rng = np.random.default_rng(5)
    samples = [{"x": (rng.normal(size=(4, 3)) * 2).astype(np.float32)} for _ in range(7)]
    export_and_compare(tmp_path, "clip_views", samples,
                       lambda x: pipeline(ADAPTERS["numpy.clip"].function, x),
                       lambda x: pipeline(np.clip, x), 1e-5, 1e-6)


# ----------------------------------------------------------------------------------- applications
@pytest.mark.e2e
def test_slot_branches_of_a_gait_helper_become_choices_per_slot_and_validate(tmp_path):
    work, before, text = _generate(tmp_path, "twin_hexapod", "hexapod", "hexapod.policy:WalkerPolicy.act")
    assert "raise NotImplementedError(STUB)" not in text
    assert "twin_cond = twin_item(phase, leg) < 0.5" in text
    assert "twin_cond = twin_vector(load.min()) < 0.05" in text       # a reduced comparison stays traced
    assert "twin_where(twin_cond, twin_item(lift, 0) - 0.005, twin_item(lift, 0))" in text  # one-armed
    proc, report = _run(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert report["validation"]["across_run"]["ok"]
    assert all(r["ok"] and r["traced"] for r in report["twin_check"])
    assert _sources(work / "hexapod") == before


@pytest.mark.e2e
def test_traced_indexes_into_constant_numpy_tables_become_gathers_and_validate(tmp_path):
    scanned = tmp_path / "scan_mower"
    shutil.copytree(FIXTURES / "twin_mower", scanned, ignore=shutil.ignore_patterns("__pycache__"))
    findings = json.loads(_cli(["scan", "mower", "--no-cache", "--format", "json"], scanned).stdout)["findings"]
    assert {(f["path"], f["line"]) for f in findings if f["code"] == "LCM106"} == {("mower/field.py", 23),
                                                                                  ("mower/field.py", 30)}
    work, before, text = _generate(tmp_path, "twin_mower", "mower", "mower.agent:MowerAgent.act")
    assert "raise NotImplementedError(STUB)" not in text
    assert "twin_take(GRASS, (cells[:, 0], cells[:, 1]))" in text
    assert "twin_take(DRIVE, action), twin_take(BLADE, mode)" in text
    proc, report = _run(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    rows = {r["patch"]: r for r in report["twin_check"]}
    assert set(rows) == {"mower.agent.grass_ahead", "mower.agent.drive_command"}
    assert all(r["ok"] and r["traced"] for r in rows.values())
    assert report["validation"]["across_run"]["ok"]
    assert _sources(work / "mower") == before


@pytest.mark.e2e
def test_an_element_read_at_a_loop_position_is_named_on_its_line_and_kept_traced(tmp_path):
    work = tmp_path / "scan_crane"
    shutil.copytree(FIXTURES / "twin_crane", work, ignore=shutil.ignore_patterns("__pycache__"))
    scan = _cli(["scan", "crane", "--no-cache", "--format", "json"], work)
    findings = json.loads(scan.stdout)["findings"]
    lines = {(f["path"], f["line"]) for f in findings if f["code"] == "LCM104"}
    assert ("crane/kin.py", 13) in lines, lines                   # `angle = angle + joint_pos[i]`

    work, before, text = _generate(tmp_path, "twin_crane", "crane", "crane.policy:CranePolicy.act")
    assert "angle = angle + twin_item(joint_pos, i)" in text
    proc, report = _run(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert all(r["ok"] and r["traced"] for r in report["twin_check"])
    assert _sources(work / "crane") == before


@pytest.mark.e2e
def test_clip_with_list_bounds_is_patched_and_a_dtype_mix_is_named_in_the_verdict(tmp_path):
    work, before, text = _generate(tmp_path, "run_gimbal", "gimbal", "gimbal.control:GimbalController.rates")
    assert 'ADAPTERS["numpy.clip"].function' in text and "raise NotImplementedError(STUB)" not in text
    proc, report = _run(work)
    assert proc.returncode != 0 and report["status"] == "failed"
    assert report["error"].startswith("float32 and float64 operands of one matrix product at gimbal/control.py:16")
    assert report["dtype_mix"] == ["gimbal/control.py:16"]
    assert all(r["ok"] for r in report["twin_check"])           # the clip adapter itself agrees
    text_proc = _cli(["run", "integration.py", "--out", "out_text"], work)
    first = next(ln for ln in text_proc.stdout.splitlines() if ln.startswith("failed:"))
    assert "gimbal/control.py:16" in first
    assert _sources(work / "gimbal") == before


def test_patch_parity_after_the_export_names_a_dtype_change_the_values_hide():
    """Same values, another dtype: the row fails and says which (the verdict quotes `error`)."""
    from types import SimpleNamespace

    from leapp_codemod.runner.export import check_patch_parity

    def original(x):
        return x * 2.0

    def widened(x):                       # a twin that computes in float64
        return x.astype(np.float64) * 2.0

    def number_as_array(x):               # a Python float returned as a 0-d float64 array
        return np.asarray(float(x.sum()))

    rows = []
    for replacement, reference in ((widened, original), (original, original),
                                   (number_as_array, lambda x: float(x.sum()))):
        patch = SimpleNamespace(module="app.filters", name="smooth", replacement=replacement, hazards=("app.py:3",))
        module = SimpleNamespace(patch_parity=lambda p, args, kwargs, ref=reference: (ref(*args), p.replacement(*args)))
        recorder = SimpleNamespace(patch_calls=[SimpleNamespace(patch=patch, args=(np.ones(3, np.float32),),
                                                                kwargs={})])
        rows.append(check_patch_parity(module, recorder)[0])
    assert not rows[0]["ok"] and "float64[3] array" in rows[0]["error"] and "float32[3] array" in rows[0]["error"]
    assert rows[1]["ok"] and "error" not in rows[1]
    assert not rows[2]["ok"] and "float32 arithmetic downstream gives float64" in rows[2]["error"]
