"""A tensor branch at a check whose other side only raises (an argument check, an `assert`) loses no
computation for the inputs that pass it: the verdict is `validated` with a note naming the check, not
`restricted`, and never advises `torch.where`. One rule with the scan's shape guards."""
from __future__ import annotations

import importlib.util
import json
import logging
import textwrap
from pathlib import Path

import pytest

from leapp_codemod.runner.logcap import Capture
from leapp_codemod.runner.module_info import ModuleInfo
from leapp_codemod.runner.parent import ChildResult, RunOptions
from leapp_codemod.runner.verdict import build_report
from leapp_codemod.source.guards import guard_at
from tests.test_run import cli, generate, project, tree_hash

CHECKS = textwrap.dedent('''\
    def f(x, y):
        if (x < 0).any():
            raise ValueError("negative")
        assert y.all(), "bad y"
        if x.sum() > 0:
            y = y * 2
        if not ok(x):
            z = 1
        else:
            raise RuntimeError("no")
        return y if x.max() > 1 else -y
    ''')


def test_guard_at_names_checks_that_only_raise_and_nothing_else(tmp_path):
    src = tmp_path / "checks.py"
    src.write_text(CHECKS)
    assert guard_at(str(src), 2) == "if (x < 0).any(): raise ValueError(...)"
    assert guard_at(str(src), 4) == "assert y.all()"
    assert guard_at(str(src), 7) == "if not ok(x): ... else: raise RuntimeError(...)"
    assert guard_at(str(src), 5) == ""            # a branch that computes
    assert guard_at(str(src), 11) == ""           # a conditional expression
    assert guard_at(str(src), 3) == ""            # the raise itself is no condition
    assert guard_at(str(tmp_path / "missing.py"), 2) == ""


def _emit_from(path: Path, function: str, capture: Capture, arg) -> None:
    spec = importlib.util.spec_from_file_location("steerlib_validate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    logger = logging.getLogger("leapp.test_guard")
    logger.addHandler(capture)
    try:
        getattr(module, function)(arg, logger)
    finally:
        logger.removeHandler(capture)


def test_a_library_check_that_only_raises_is_captured_as_a_guard(tmp_path):
    """A record raised at a library's argument check (outside the application) carries the check."""
    lib = tmp_path / "site-packages" / "steerlib" / "validate.py"
    lib.parent.mkdir(parents=True)
    lib.write_text(textwrap.dedent('''\
        def check(v, log):
            if log.warning("Attempted to use TracedTensor in a boolean context") or v < 0:
                raise ValueError("negative rate")

        def scale(v, log):
            if log.warning("Attempted to use TracedTensor in a boolean context") or v < 0:
                v = 0
            return v
        '''))
    guarded, plain = Capture(app_root=str(tmp_path / "app")), Capture(app_root=str(tmp_path / "app"))
    _emit_from(lib, "check", guarded, 1)
    _emit_from(lib, "scale", plain, 1)
    assert [s.signal for s in guarded.signals] == ["tensor-branch"]
    assert guarded.signals[0].guard.startswith("if log.warning(") and "raise ValueError" in guarded.signals[0].guard
    assert plain.signals[0].signal == "tensor-branch" and plain.signals[0].guard == ""


def _report(tmp_path: Path, signals: list[dict], unresolved: tuple[str, ...] = ()) -> dict:
    (tmp_path / "integration.py").write_text('ENTRY = "app.step:act"\n')
    info = ModuleInfo(path=tmp_path / "integration.py", entry="app.step:act", app_root=tmp_path, driver=None,
                      graph="g", export_with="onnx", stubs=(), findings=unresolved, host_runtime=(),
                      unresolved=unresolved)
    attempt = {"backend": "onnx", "format": "onnx", "outcome": "validated", "signals": signals, "validation": {}}
    pub = tmp_path / "pub"
    pub.mkdir(exist_ok=True)
    child = ChildResult(data={"attempts": [attempt], "executed": {}, "calls": {}, "graph": "g",
                              "published": str(pub)})
    return build_report(info, RunOptions(file=info.path, out=tmp_path / "out"), child, 1.0)


def _signal(guard: str) -> dict:
    return {"signal": "tensor-branch", "level": "ERROR", "message": "Attempted to use TracedTensor in a boolean "
            "context", "location": "app/step.py:12", "categories": ["tensor-branch"], "adapter": "",
            "library": "steerlib/validate.py:76", **({"guard": guard} if guard else {})}


def test_a_library_guard_gives_validated_with_a_note_and_a_branch_gives_restricted(tmp_path):
    guarded = _report(tmp_path, [_signal("if not ok(v): raise ValueError('bad')")])
    assert guarded["status"] == "validated" and "restricted_domain" not in guarded
    assert guarded["checks_traced"][0].startswith("steerlib/validate.py:76 `if not ok(v)")
    assert "app/step.py:12" in guarded["checks_traced"][0] and "torch.where" not in json.dumps(guarded)
    twice = _report(tmp_path, [_signal("if not ok(v): raise ValueError('bad')")] * 2)   # one check, two signals
    assert twice["checks_traced"] == guarded["checks_traced"]
    branch = _report(tmp_path, [_signal("")])
    assert branch["status"] == "restricted" and "checks_traced" not in branch
    assert branch["restricted_domain"]["because"][0].startswith("app/step.py:12 tensor-branch inside steerlib")


def test_an_unresolved_finding_at_a_check_that_only_raises_restricts_nothing(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "step.py").write_text("def act(x):\n    assert (x > 0).all()\n    if x.sum() > 1:\n"
                                              "        x = x * 2\n    return x\n")
    guard = "app/step.py:2 tensor-branch: `assert (x > 0).all()` decides Python control flow on pipeline data"
    branch = "app/step.py:3 tensor-branch: `if x.sum() > 1` decides Python control flow on pipeline data"
    only_guard = _report(tmp_path, [], (guard,))
    assert only_guard["status"] == "validated" and only_guard["checks_traced"][0].startswith("app/step.py:2 `assert")
    both = _report(tmp_path, [], (guard, branch))
    assert both["status"] == "restricted" and both["restricted_domain"]["because"] == [branch]


@pytest.mark.e2e
def test_checks_that_only_raise_on_tensor_data_leave_the_export_validated(tmp_path):
    work = project(tmp_path, "run_guard")
    generate(work, "armapp", "armapp.arm:ArmPolicy.act")
    before = tree_hash(work / "armapp")
    text = cli(["run", "integration.py", "--out", "out", "--require-format", "onnx"], work)
    report = json.loads((work / "out" / "report.json").read_text())
    assert text.returncode == 0 and report["status"] == "validated", report.get("error")
    notes = report["checks_traced"]
    assert any(n.startswith("armapp/arm.py:14 `if (gains < 0).any(): raise ValueError") for n in notes)
    assert any(n.startswith("armapp/arm.py:17 `assert torch.isfinite(vel).all()`") for n in notes)
    assert text.stdout.startswith("validated: armapp.arm:ArmPolicy.act") and "torch.where" not in text.stdout
    assert "  note: armapp/arm.py:14" in text.stdout
    assert tree_hash(work / "armapp") == before


def test_an_unresolved_io_read_that_ran_restricts_the_domain_and_a_log_call_does_not(tmp_path):
    """Issue 18 item 4: a plain `validated` never stands while an unresolved I/O-read finding remains on a line
    that ran (the export keeps what was read while traced); a report-only call (logging) restricts nothing."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "step.py").write_text("import numpy as np\nimport logging\ndef act(x):\n"
                                              "    trim = np.loadtxt('trim.txt')\n    logging.info('x=%s', x)\n"
                                              "    return x + trim\n")
    read = ("app/step.py:4 io-in-pipeline: `np.loadtxt('trim.txt')` performs I/O inside the pipeline "
            "(numpy.loadtxt); the exported model drops it")
    log = ("app/step.py:5 io-in-pipeline: `logging.info('x=%s', x)` performs I/O inside the pipeline "
           "(logging.info); the exported model drops it")
    only_log = _report(tmp_path, [], (log,))
    assert only_log["status"] == "validated" and "restricted_domain" not in only_log
    both = _report(tmp_path, [], (read, log))
    assert both["status"] == "restricted" and both["restricted_domain"]["because"] == [read]
