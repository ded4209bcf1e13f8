"""Traceable twins: every rewrite rule checked against the original helper on random data, the
refusals (each naming the line that blocked it), and `run`'s check of every replacement before
tracing."""
from __future__ import annotations

import importlib
import itertools
import json
import math
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import inprocess
import numpy as np
import pytest
import torch

from leapp_codemod.scan import scan_project
from leapp_codemod.generate import Options, render_module
from leapp_codemod.generate.derive import helper_sources, make_twin
from leapp_codemod.generate.twin import Blocked
from leapp_codemod.generate.twin_helpers import twin_max, twin_min, twin_scalar
from leapp_codemod.model import Finding
from leapp_codemod.runner import values
from leapp_codemod.runner.intercept import PatchCall
from leapp_codemod.runner.module_info import read_module
from leapp_codemod.runner.twincheck import check_patch, refusal

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
_COUNTER = itertools.count()


@pytest.fixture
def app(tmp_path, monkeypatch):
    """Writes a helper module into a fresh package and builds its twin from the given flags."""
    monkeypatch.syspath_prepend(str(tmp_path))
    created = []

    def build(source: str, name: str, *flags: tuple[str, str]):
        pkg = f"twinpkg{next(_COUNTER)}"
        created.append(pkg)
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
        text = textwrap.dedent(source)
        (tmp_path / pkg / "helpers.py").write_text(text)
        findings = [_finding(text, pkg, name, category, snippet) for category, snippet in flags]
        result = make_twin(tmp_path, f"{pkg}.helpers:{name}", f"{name}_twin", findings, set())
        return SimpleNamespace(pkg=pkg, result=result, name=name)

    yield build
    importlib.invalidate_caches()
    for name in [m for m in sys.modules if m.split(".")[0] in created]:
        del sys.modules[name]


def _finding(text: str, pkg: str, name: str, category: str, snippet: str) -> Finding:
    for line_no, line in enumerate(text.splitlines(), 1):
        col = line.find(snippet)
        if col >= 0:
            return Finding(f"{pkg}/helpers.py", line_no, col + 1, line_no, col + 1 + len(snippet), "T000", category,
                           "error", "hazard", "fix", f"{pkg}.helpers:{name}")
    raise AssertionError(f"{snippet!r} not in the source")


def load(built):
    """(original, twin) as callables; the twin runs with only the imports `generate` gives it."""
    assert not isinstance(built.result, Blocked), built.result
    original = getattr(importlib.import_module(f"{built.pkg}.helpers"), built.name)
    namespace: dict = {}
    code = "\n".join(["import numpy as np", "import torch", *built.result.imports, "",
                      helper_sources(built.result.helpers), "", built.result.source])
    exec(compile(code, "<twin>", "exec"), namespace)
    return original, namespace[f"{built.name}_twin"]


def assert_same(original, twin, *args):
    problem, _ = values.mismatch(original(*args), twin(*args), rtol=1e-5, atol=1e-6)
    assert problem is None, f"{problem} on {args}"


RNG = np.random.default_rng(0)


def rand(*shape, scale=1.0) -> torch.Tensor:
    return torch.from_numpy(RNG.normal(0.0, scale, size=shape).astype(np.float32))


# ------------------------------------------------------------------------------ scalar extraction
def test_item_then_min_max_stays_a_tensor(app):
    built = app("""\
        def speed(delta, radius, floor):
            # distance to the goal, as a number
            dist = delta.norm().item()
            return max(floor, min(1.0, dist / radius))
        """, "speed", ("scalar-extraction", "delta.norm().item()"))
    original, twin = load(built)
    assert ".item()" not in built.result.source and "# distance to the goal, as a number" in built.result.source
    for scale in (0.01, 0.1, 0.3, 1.0):
        for _ in range(20):
            delta = rand(1, 3, scale=scale)
            assert_same(original, twin, delta, 0.2, 0.25)
            assert isinstance(twin(delta, 0.2, 0.25), torch.Tensor)


def test_int_of_a_comparison_then_torch_full(app):
    built = app("""\
        import torch


        def grip(delta, close_at, opened, closed):
            near = int(delta.norm() < close_at)
            width = opened + near * (closed - opened)
            return torch.full((1, 1), width)
        """, "grip", ("scalar-extraction", "int(delta.norm() < close_at)"))
    original, twin = load(built)
    assert "twin_full((1, 1), width)" in built.result.source
    for _ in range(40):
        delta = rand(1, 3, scale=0.1)
        assert_same(original, twin, delta, 0.15, 0.08, 0.0)
        assert twin(delta, 0.15, 0.08, 0.0).dtype == torch.float32


def test_float_in_arithmetic(app):
    built = app("""\
        def soften(x, gain):
            peak = float(x.abs().max())
            return x / (1.0 + peak * gain)
        """, "soften", ("scalar-extraction", "float(x.abs().max())"))
    original, twin = load(built)
    for _ in range(20):
        assert_same(original, twin, rand(2, 5, scale=3.0), 0.7)


def test_elementwise_tolist_loop_becomes_tensor_arithmetic(app):
    built = app("""\
        import torch


        def integrate(pos, step, lower, upper):
            out = []
            # one target per joint
            for p, s, lo, hi in zip(pos[0].tolist(), step[0].tolist(), lower, upper):
                out.append(min(max(p + 0.5 * s, lo), abs(hi)))
            return torch.tensor([out], dtype=torch.float32)
        """, "integrate", ("scalar-extraction", "pos[0].tolist()"))
    original, twin = load(built)
    assert ".tolist()" not in built.result.source.split('"""')[-1] and "# one target per joint" in built.result.source
    lower, upper = (-1.0, -0.2, -0.5, 0.0), (1.0, 0.3, 0.5, 2.0)
    for _ in range(30):
        pos, step = rand(1, 4), rand(1, 4)
        assert_same(original, twin, pos, step, lower, upper)
    assert_same(original, twin, rand(1, 4), rand(1, 4), lower[:3], upper)   # zip stops at the shortest


def test_elementwise_loop_whose_min_max_the_scan_flagged_too(app):
    # The scan also flags `min`/`max` of the numbers `.tolist()` gives (tensor-branch): the call is made
    # elementwise before the loop is mapped, and the loop mapping must take it as it is.
    built = app("""\
        import torch


        def clipped_rates(rates, floor):
            kept = []
            for r in rates.tolist():
                kept.append(2.0 * max(r, floor) - min(r, 1.0))
            return torch.tensor(kept)
        """, "clipped_rates", ("scalar-extraction", "rates.tolist()"), ("tensor-branch", "max(r, floor)"),
        ("tensor-branch", "min(r, 1.0)"))
    original, twin = load(built)
    assert ".tolist()" not in built.result.source.split('"""')[-1]
    for _ in range(20):
        assert_same(original, twin, rand(6, scale=2.0), -0.3)


def test_single_sequence_tolist_loop_without_dtype(app):
    built = app("""\
        import torch


        def doubled(x):
            out = []
            for v in x.tolist():
                out.append(abs(v) * 2.0)
            return torch.tensor(out)
        """, "doubled", ("scalar-extraction", "x.tolist()"))
    original, twin = load(built)
    assert_same(original, twin, rand(5))
    assert twin(rand(5)).dtype == torch.float32


# ---------------------------------------------------------------------------------- branches
def test_ternary_between_numbers_becomes_where(app):
    built = app("""\
        def gain(vel, switch, high, low):
            return high if vel.norm() > switch else low
        """, "gain", ("tensor-branch", "vel.norm() > switch"))
    original, twin = load(built)
    for scale in (0.1, 1.0, 3.0):
        assert_same(original, twin, rand(1, 3, scale=scale), 1.0, 2.5, 0.5)


def test_early_return_with_later_assignments_becomes_where(app):
    built = app("""\
        import torch


        def guard(cmd, tilt, limit):
            \"\"\"Stop when tilted.\"\"\"
            if tilt.abs().max() > limit:
                return torch.zeros_like(cmd)
            scaled = cmd * 2.0
            return scaled
        """, "guard", ("tensor-branch", "tilt.abs().max() > limit"))
    original, twin = load(built)
    for scale in (0.1, 0.5, 2.0):
        assert_same(original, twin, rand(1, 2), rand(1, 3, scale=scale), 0.6)


def test_assignments_in_both_branches_become_where(app):
    built = app("""\
        def pick(x, thr):
            if x.sum() > thr:
                y = x * 2.0
                z = x + 1.0
            else:
                y = -x
                z = x
            return y + z
        """, "pick", ("tensor-branch", "x.sum() > thr"))
    original, twin = load(built)
    for _ in range(20):
        assert_same(original, twin, rand(2, 3), 0.0)


def test_returned_tuples_are_chosen_element_by_element(app):
    built = app("""\
        def split(x, thr):
            if x.max() > thr:
                return x * 0.0, x.sum()
            return x, -x.sum()
        """, "split", ("tensor-branch", "x.max() > thr"))
    original, twin = load(built)
    assert "return (twin_where(x.max() > thr, x * 0.0, x), twin_where(x.max() > thr" in built.result.source
    for _ in range(10):
        assert_same(original, twin, rand(2, 3), 0.5)


def test_values_chosen_by_a_branch_stay_tensors_downstream(app):
    built = app("""\
        import torch


        def width(d, thr):
            if d.norm() > thr:
                w = 0.08
            else:
                w = 0.0
            return torch.full((1, 1), w)
        """, "width", ("tensor-branch", "d.norm() > thr"))
    original, twin = load(built)
    assert "twin_full((1, 1), w)" in built.result.source
    for scale in (0.05, 1.0):
        assert_same(original, twin, rand(1, 3, scale=scale), 0.3)


def test_numpy_ternary_uses_numpy_where(app):
    built = app("""\
        def shift(a):
            return a * 2.0 if a.sum() > 0 else a - 1.0
        """, "shift", ("tensor-branch", "a.sum() > 0"))
    original, twin = load(built)
    for _ in range(10):
        a = RNG.normal(size=(3,))
        assert_same(original, twin, a)
        assert isinstance(twin(a), np.ndarray) and twin(a).dtype == np.float64


# ------------------------------------------------------------------------- NumPy and libraries
@pytest.mark.parametrize("expr", ["a[::-1]", "a[..., ::-1]", "a[::-1, ::-1]", "a[1:, ::-1]", "a[0, ::-1]",
                                  "a[:, None, ::-1]"])
def test_negative_stride_becomes_flip(app, expr):
    built = app(f"import numpy as np\n\n\ndef rev(a):\n    return {expr} * 1.0\n", "rev",
                ("numpy-negative-stride", expr))
    original, twin = load(built)
    assert "::-1" not in built.result.source and "np.flip" in built.result.source
    a = np.arange(24.0).reshape(2, 3, 4)
    assert np.array_equal(original(a), twin(a))


def test_unsigned_astype_becomes_signed_with_the_same_values(app):
    built = app("import numpy as np\n\n\ndef mm(d):\n    return (d * 100.0).astype(np.uint16)\n", "mm",
                ("numpy-astype", "(d * 100.0).astype(np.uint16)"))
    original, twin = load(built)
    d = np.array([0.0, 0.014, 1.2345, 3.999, 600.0], dtype=np.float32)
    assert twin(d).dtype == np.int32 and np.array_equal(twin(d), original(d))


def test_library_calls_become_torch_adapters(app):
    built = app("""\
        import numpy as np
        from scipy.spatial.transform import Rotation
        from scipy.special import expit as squash

        DOWN = np.array([0.0, 0.0, -1.0])


        def gravity(q, x):
            return Rotation.from_quat(q).inv().apply(DOWN) * squash(x)
        """, "gravity", ("foreign-library", "Rotation.from_quat(q)"), ("foreign-library", "squash(x)"))
    original, twin = load(built)
    assert 'ADAPTERS["scipy.spatial.transform.Rotation"].function.from_quat(q)' in built.result.source
    assert 'ADAPTERS["scipy.special.expit"].function(x)' in built.result.source
    for _ in range(10):
        q = RNG.normal(size=(3, 4))
        assert_same(original, twin, q, RNG.normal(size=(3, 1)))


# ---------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(("source", "flags", "line", "reason"), [
    ("def shrink(cmd, limit):\n    while cmd.abs().max() > limit:\n        cmd = cmd * 0.9\n    return cmd\n",
     [("tensor-branch", "cmd.abs().max() > limit")], 2, "`while` loop whose trip count depends on pipeline data"),
    ("def f(x):\n    return x.add_(1.0) if x.sum() > 0 else x\n",
     [("tensor-branch", "x.sum() > 0")], 2, "changes a value in place"),
    ("def f(x, seen):\n    return x if x.sum() > 0 else seen.append(x)\n",
     [("tensor-branch", "x.sum() > 0")], 2, "`seen.append(x)` changes a value in place"),
    ("def f(x, log):\n    if x.sum() > 0:\n        y = log(x)\n    else:\n        y = x\n    return y\n",
     [("tensor-branch", "x.sum() > 0")], 2, "calls `log(...)`, which may have side effects"),
    ("def f(x):\n    if x.sum() > 0:\n        raise ValueError('bad')\n    return x\n",
     [("tensor-branch", "x.sum() > 0")], 2, "does more than assign names"),
    ("from scipy.linalg import expm\n\n\ndef f(a):\n    return expm(a)\n",
     [("foreign-library", "expm(a)")], 5, "no torch adapter"),
    ("import math\n\n\ndef f(t):\n    d = t.item()\n    return math.factorial(d)\n",
     [("scalar-extraction", "t.item()")], 6, "reaches `math.factorial(...)`, which needs a Python number"),
    ("import torch\n\n\ndef f(x):\n    out = []\n    for v in x.tolist():\n        if v > 0:\n"
     + "            out.append(v)\n    return torch.tensor(out)\n",
     [("scalar-extraction", "x.tolist()")], 6, "may only assign names and append once"),
    ("def f(x):\n    out = []\n    for v in x.tolist():\n        out.append(v * 2)\n    return out\n",
     [("scalar-extraction", "x.tolist()")], 3, "used as a Python list after it"),
    ("def f(x, n):\n    for _ in range(int(x.sum())):\n        n = n + 1\n    return n\n",
     [("scalar-extraction", "int(x.sum())")], 2, "reaches `range(...)`"),
    ("import torch\n\n\ndef f(x):\n    return torch.zeros(int(x.sum()))\n",
     [("scalar-extraction", "int(x.sum())")], 5, "reaches `torch.zeros(...)`, which needs a Python number"),
    ("def f(self_buf, x):\n    self_buf.copy_(x)\n    return x\n",
     [("inplace-state", "self_buf.copy_(x)")], 2, "no rewrite rule for inplace-state"),
])
def test_refusals_name_the_blocking_line(app, source, flags, line, reason):
    built = app(source, "f" if "def f(" in source else "shrink", *flags)
    assert isinstance(built.result, Blocked), built.result
    assert built.result.line == line and reason in built.result.reason, built.result


def test_a_refused_twin_is_a_stub_that_names_file_line_and_why(tmp_path, monkeypatch):
    pkg = tmp_path / "loopapp"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "safety.py").write_text("def shrink(cmd, limit):\n    while cmd.abs().max() > limit:\n"
                                   "        cmd = cmd * 0.9\n    return cmd\n")
    (pkg / "policy.py").write_text("from .safety import shrink\n\n\ndef step(cmd):\n    return shrink(cmd * 2, 1.0)\n")
    monkeypatch.chdir(tmp_path)
    scan = scan_project(["loopapp"], entry="loopapp.policy:step")
    text, spec = render_module(scan, Options(app=Path("loopapp"), entry="loopapp.policy:step",
                                             output=tmp_path / "integration.py"))
    assert spec.replacements[0].is_stub
    joined = re.sub(r"\n\s*# ", " ", text)
    assert ("No traceable twin was generated: loopapp/safety.py:2: a `while` loop whose trip count depends on "
            "pipeline data cannot be traced as a fixed graph.") in joined
    module = tmp_path / "integration.py"
    module.write_text(text)
    stub = read_module(module).stubs[0]           # what `run` reports before refusing
    assert stub.function == "shrink_traceable"
    assert stub.blocked == ("loopapp/safety.py:2: a `while` loop whose trip count depends on pipeline data cannot "
                            "be traced as a fixed graph.")


# ------------------------------------------------------------------------------- twin helpers
@pytest.mark.parametrize(("a", "b"), [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0), (float("nan"), 1.0), (1.0, float("nan")),
                                      (-0.0, 0.0)])
def test_twin_min_max_choose_as_python_does(a, b):
    for fn, ref in ((twin_min, min), (twin_max, max)):
        got, want = float(fn(torch.tensor(a, dtype=torch.float64), b)), ref(a, b)
        assert (math.isnan(got) and math.isnan(want)) or (got == want and math.copysign(1, got) == math.copysign(1, want))


def test_twin_scalar_fails_like_item_for_several_elements():
    with pytest.raises(RuntimeError):
        twin_scalar(torch.ones(2))
    assert twin_scalar(torch.tensor([[2.7]]), "int").item() == 2 and twin_scalar(torch.tensor([-2.7]), "int") == -2


# ---------------------------------------------------------------------- run: check before trace
def _patch(replacement, original_name="scipy.special:expit"):
    return SimpleNamespace(module="app.policy", name="sigmoid", replacement=replacement, original=original_name,
                           hazards=("app/policy.py:29 foreign-library",))


def test_pre_trace_check_accepts_the_adapter_and_catches_a_wrong_one():
    from scipy.special import expit

    from leapp_codemod.adapters import ADAPTERS

    calls = [PatchCall(None, (RNG.normal(size=(2, 4)),), {}) for _ in range(3)]
    good = _patch(ADAPTERS["scipy.special.expit"].function)
    row = check_patch(good, expit, [PatchCall(good, c.args, c.kwargs) for c in calls])
    assert row["ok"] and row["samples"] == 12

    wrong = _patch(lambda x: 1.0 / (1.0 + np.exp(-1.02 * x)))
    row = check_patch(wrong, expit, [PatchCall(wrong, c.args, c.kwargs) for c in calls])
    assert not row["ok"] and row["input"].startswith("recorded call 1 (x=float64[2, 4] array)")
    assert "differs: max abs error" in row["error"]
    line = refusal(row)
    assert "\n" not in line and line.startswith("FunctionPatch app.policy.sigmoid (<lambda>) disagrees with the "
                                                "original scipy.special:expit on recorded call 1")

    float32 = _patch(lambda x: expit(x).astype(np.float32))
    row = check_patch(float32, expit, [PatchCall(float32, c.args, c.kwargs) for c in calls])
    assert not row["ok"] and "is float32[2, 4] array where the original returns float64[2, 4] array" in row["error"]


def test_pre_trace_check_finds_a_branch_only_perturbations_reach():
    def original(v):      # NumPy numbers: promoted as the 0-d arrays of np.where are
        return np.float64(2.0) if float(np.abs(v).sum()) > 1.0 else np.float64(0.5)

    def twin_wrong_branch(v):
        return np.where(np.abs(v).sum() > 1.5, 2.0, 0.5)

    patch = _patch(twin_wrong_branch, "app.gains:gain")
    row = check_patch(patch, original, [PatchCall(patch, (np.array([0.2, 0.2, 0.2, 0.2, 0.195]),), {})])
    assert not row["ok"] and "perturbed copy" in row["input"]


def test_pre_trace_check_fails_when_no_recorded_input_exercised_the_replacement():
    def original(v):
        raise ValueError("sensor offline")

    patch = _patch(lambda v: v, "app.gains:gain")
    row = check_patch(patch, original, [PatchCall(patch, (np.ones(3),), {}) for _ in range(2)])
    assert not row["ok"] and row["samples"] == 0
    assert "checked on zero samples" in row["error"] and row["input"] == "2 recorded call(s)"


# ------------------------------------------------------------------------------------- e2e
def _cli(args, cwd, timeout=300):
    return subprocess.run([sys.executable, "-m", "leapp_codemod", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False)


@pytest.fixture
def arm(tmp_path):
    work = tmp_path / "twin_arm"
    shutil.copytree(FIXTURES / "twin_arm", work, ignore=shutil.ignore_patterns("__pycache__"))
    proc = inprocess.cli(["generate", "armtwin", "--entry", "armtwin.policy:ArmPolicy.act", "--driver", "main.py",
                          "-o", "integration.py"], work)
    assert proc.returncode == 0, proc.stderr
    return work


@pytest.mark.e2e
def test_helpers_needing_twins_validate_end_to_end(arm):
    before = {p: p.read_bytes() for p in (arm / "armtwin").rglob("*.py")}
    text = (arm / "integration.py").read_text()
    assert "raise NotImplementedError(STUB)" not in text and "twin_zip(" in text
    proc = _cli(["run", "integration.py", "--out", "out", "--format", "json"], arm)
    report = json.loads(proc.stdout)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    rows = {r["patch"]: r for r in report["twin_check"]}
    assert set(rows) == {"armtwin.policy.clamp_to_limits", "armtwin.limits.grip_width", "armtwin.policy.gain_for"}
    assert all(r["ok"] and r["recorded_calls"] == 5 and r["samples"] == 20 for r in rows.values())
    assert all(p.read_bytes() == data for p, data in before.items())


@pytest.mark.e2e
def test_a_wrong_twin_is_refused_before_tracing(arm):
    module = arm / "integration.py"
    text = module.read_text()
    assert "twin_max(p + s, lo)" in text
    module.write_text(text.replace("twin_max(p + s, lo)", "twin_max(p + 1.5 * s, lo)"))
    proc = _cli(["run", "integration.py", "--out", "out"], arm)
    assert proc.returncode == 1
    first = proc.stdout.splitlines()[0]
    assert first.startswith("failed: FunctionPatch armtwin.policy.clamp_to_limits (integrate_traceable) disagrees "
                            "with the original armtwin.limits:integrate on recorded call 1 (pos=float32[1, 3] tensor")
    assert "; not traced; hazards: armtwin/limits.py:8 scalar-extraction" in first
    report = json.loads((arm / "out" / "report.json").read_text())
    assert report["status"] == "failed" and report["failed_stage"] == "twin-check"
    bad = [r for r in report["twin_check"] if not r["ok"]]
    assert [r["patch"] for r in bad] == ["armtwin.policy.clamp_to_limits"] and "differs" in bad[0]["error"]
    assert not (arm / "out" / "attempts").exists()


def test_pre_trace_check_accepts_the_signed_dtype_that_holds_an_unsigned_result():
    def original(d):
        return (d * 100.0).astype(np.uint16)

    # its own generator: the shared RNG's state depends on which tests ran before in this process
    calls = [(np.random.default_rng(0).uniform(0.0, 3.0, size=(1, 4)).astype(np.float32),)]
    signed = _patch(lambda d: (d * 100.0).astype(np.int32), "app.servo:ticks")
    assert check_patch(signed, original, [PatchCall(signed, a, {}) for a in calls])["ok"]
    narrow = _patch(lambda d: (d * 100.0).astype(np.int16), "app.servo:ticks")
    row = check_patch(narrow, original, [PatchCall(narrow, a, {}) for a in calls])
    assert not row["ok"] and "int16[1, 4] array where the original returns uint16[1, 4] array" in row["error"]


def test_every_flag_on_a_line_must_be_rewritten(app):
    built = app("def f(a, b):\n    return a.item() + b.tolist()[0]\n", "f",
                ("scalar-extraction", "a.item()"), ("scalar-extraction", "b.tolist()"))
    assert isinstance(built.result, Blocked) and built.result.line == 2
    assert "scalar extraction is not in a form" in built.result.reason


def test_a_numpy_function_of_extracted_numbers_returns_numpys_float64(app):
    """`np.arccos(float(a) / norm)` is a NumPy float64 in the original (a NumPy function of Python
    numbers), which makes the float32 arithmetic downstream float64; the twin's 0-d values keep the
    float32 of the array they came from, so the twin casts the function's result as NumPy does."""
    built = app("""\
        import numpy as np


        def tilt(accel):
            norm = float(np.sqrt(np.sum(accel * accel)))
            return np.arccos(float(np.sum(accel[2:3])) / norm)
        """, "tilt", ("scalar-extraction", "float(np.sqrt(np.sum(accel * accel)))"),
        ("scalar-extraction", "float(np.sum(accel[2:3]))"))
    original, twin = load(built)
    assert "twin_numpy_number(np.arccos(" in built.result.source
    from leapp_codemod.runner.twincheck import promotion
    # near vertical the arccos of the twin's float32 ratio loses digits (its slope grows without bound), so
    # the tilts are kept above 0.1 rad and drawn from a generator of their own (the shared one's state depends
    # on which tests ran before on the worker)
    rng = np.random.default_rng(11)
    for _ in range(10):
        accel = (rng.normal(0.0, 1.0, 3) + np.array([0.0, 0.0, 9.8])).astype(np.float32)
        accel[:2] += np.sign(accel[:2]) * 1.0
        assert_same(original, twin, accel)
        assert promotion(original(accel), twin(accel)) is None
        assert (np.ones(2, np.float32) * twin(accel)).dtype == (np.ones(2, np.float32) * original(accel)).dtype
