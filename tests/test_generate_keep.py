"""A generated module a repository keeps: ruff-clean output, an edit guard that ignores layout,
hand-written bodies carried over on regeneration, `--check`/`--diff`, and the default driver."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import inprocess

from leapp_codemod.generate.guard import fingerprints

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
ENTRY = "loopapp.policy:LoopPolicy.act"
STUB_LINE = "    raise NotImplementedError(STUB)\n"
HAND_WRITTEN = ("    import torch\n\n"
                "    # written by hand: one scale instead of the loop\n"
                "    return cmd * torch.clamp(limit / cmd.abs().max(), max=1.0)\n")

# every fixture application with its entrypoint and driver
APPS = [
    ("run_mlp_numpy", "mlpapp", "mlpapp.pipeline:step", "main.py"),
    ("run_method", "armapp", "armapp.policy:ArmPolicy.act", "main.py"),
    ("run_patch", "reachapp", "reachapp.policy:ReachPolicy.act", "main.py"),
    ("run_gain", "gainapp", "gainapp.policy:GainPolicy.act", "main.py"),
    ("run_partial", "noiseapp", "noiseapp.policy:NoisyPolicy.act", "main.py"),
    ("run_recurrent", "memapp", "memapp.policy:RecurrentPolicy.act", "main.py"),
    ("run_failures", "failapp", "failapp.pipeline:Pipeline.act", "main_few.py"),
    ("twin_arm", "armtwin", "armtwin.policy:ArmPolicy.act", "main.py"),
    ("run_locomotion", "loco", "loco.policy:LocomotionPolicy.act", "main.py"),
    ("run_rotation", "attitude", "attitude.policy:AttitudePolicy.act", "main.py"),
    ("generate_keep", "loopapp", ENTRY, "drive.py"),
]


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    if args[0] in inprocess.IN_PROCESS:       # what is printed and returned, not the process
        return inprocess.cli(args, cwd)
    return subprocess.run([sys.executable, "-m", "leapp_codemod", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


def ruff(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60, check=False)


def assert_ruff_clean(module: Path, *cwds: Path) -> None:
    """Default settings, from each folder: the application is first-party in one, third-party in another."""
    for cwd in cwds:
        checked = ruff(["check", "--isolated", str(module)], cwd)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        formatted = ruff(["format", "--isolated", "--check", "--diff", str(module)], cwd)
        assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def copy_fixture(tmp_path: Path, name: str) -> Path:
    work = tmp_path / name
    shutil.copytree(FIXTURES / name, work, ignore=shutil.ignore_patterns("__pycache__"))
    return work


@pytest.fixture
def keep(tmp_path):
    """The kept-module fixture, generated once (default driver) into tmp/out/integration.py."""
    work = copy_fixture(tmp_path, "generate_keep")
    proc = cli(["generate", "loopapp", "--entry", ENTRY, "-o", "../out/integration.py"], work)
    assert proc.returncode == 0, proc.stderr
    return work, tmp_path / "out" / "integration.py", proc


def regenerate(work: Path, *extra: str) -> subprocess.CompletedProcess:
    return cli(["generate", "loopapp", "--entry", ENTRY, "-o", "../out/integration.py", *extra], work)


# --------------------------------------------------------------------------- formatted, import-sorted output
@pytest.mark.parametrize("fixture, app, entry, driver", APPS, ids=[a[0] for a in APPS])
def test_every_generated_fixture_module_passes_ruff(tmp_path, fixture, app, entry, driver):
    work = copy_fixture(tmp_path, fixture)
    proc = cli(["generate", app, "--entry", entry, "--driver", driver, "-o", "integration.py"], work)
    assert proc.returncode == 0, proc.stderr
    neutral = tmp_path / "elsewhere"
    neutral.mkdir()
    assert_ruff_clean(work / "integration.py", work, neutral)


def test_golden_modules_pass_ruff(tmp_path):
    goldens = sorted((FIXTURES / "run_golden").glob("*.py"))
    assert len(goldens) >= 3
    for golden in goldens:
        assert_ruff_clean(golden, tmp_path)


# --------------------------------------------------------------------------- the edit guard ignores layout
def test_regenerating_after_ruff_format_is_not_refused_and_changes_nothing(keep):
    work, module, _ = keep
    original = module.read_text()
    for line_length in ("60", "120"):
        assert ruff(["format", "--isolated", "--line-length", line_length, str(module)], work).returncode == 0
        assert module.read_text() != original
        proc = regenerate(work)
        assert proc.returncode == 0, proc.stderr
        assert module.read_text() == original
        assert "kept your version" not in proc.stderr


def test_fingerprints_ignore_layout_quotes_commas_and_comment_placement():
    a = 'def f(x, y):\n    """Doc."""\n    # why\n    return g(x, "a")  # note\n'
    b = "def f(\n    x,\n    y,\n):\n    '''Doc.'''\n    # why\n    return g(\n        x, 'a',  # note\n    )\n"
    assert fingerprints(a) == fingerprints(b)
    assert fingerprints(a) != fingerprints(a.replace('"a"', '"b"'))
    assert fingerprints(a) != fingerprints(a.replace("# note", "# other note"))


# --------------------------------------------------------------------------- hand-written bodies survive
def test_a_hand_written_stub_body_survives_ruff_format_and_regeneration(keep):
    work, module, first = keep
    assert "write the body of shrink_traceable" in first.stderr
    text = module.read_text()
    assert text.count(STUB_LINE) == 1
    module.write_text(text.replace(STUB_LINE, HAND_WRITTEN))
    assert ruff(["format", "--isolated", "--line-length", "70", str(module)], work).returncode == 0

    proc = regenerate(work)
    assert proc.returncode == 0, proc.stderr
    assert "kept your version of shrink_traceable" in proc.stderr
    assert "write the body of shrink_traceable" not in proc.stderr
    kept = module.read_text()
    assert "# written by hand: one scale instead of the loop" in kept
    assert "return cmd * torch.clamp(limit / cmd.abs().max(), max=1.0)" in kept
    assert "raise NotImplementedError(STUB)" not in kept.split("def shrink_traceable")[1].split("\ndef ")[0]
    assert_ruff_clean(module, work)

    again = regenerate(work)                       # idempotent, and CI's --check agrees
    assert again.returncode == 0 and module.read_text() == kept
    assert regenerate(work, "--check").returncode == 0


def test_check_and_diff_report_an_application_change_without_writing(keep):
    work, module, _ = keep
    module.write_text(module.read_text().replace(STUB_LINE, HAND_WRITTEN))
    assert regenerate(work).returncode == 0
    before = module.read_text()
    assert regenerate(work, "--check").returncode == 0

    safety = work / "loopapp" / "safety.py"
    safety.write_text(safety.read_text().replace("2.0 / (peak + 1e-6)", "3.0 / (peak + 1e-6)"))
    check = regenerate(work, "--check")
    assert check.returncode == 1 and "would be rewritten" in check.stderr and check.stdout == ""
    diff = regenerate(work, "--diff")
    assert diff.returncode == 1
    assert re.search(r"^-.*2\.0 / ", diff.stdout, re.M) and re.search(r"^\+.*3\.0 / ", diff.stdout, re.M)
    assert "torch.clamp" not in diff.stdout          # the hand-written body is not part of the change
    assert module.read_text() == before              # neither wrote anything

    proc = regenerate(work)
    assert proc.returncode == 0, proc.stderr
    after = module.read_text()
    assert "3.0 / " in after and "torch.clamp(limit / cmd.abs().max(), max=1.0)" in after


def test_a_conflict_keeps_the_users_version_and_reports_it(keep):
    work, module, _ = keep
    text = module.read_text()
    edited = re.sub(r"(def gain_traceable\(cmd\):\n(?:    .*\n|\n)*?)(    return )", r"\1    # mine\n\2", text,
                    count=1)
    assert edited != text
    module.write_text(edited)
    safety = work / "loopapp" / "safety.py"
    safety.write_text(safety.read_text().replace("2.0 / (peak + 1e-6)", "4.0 / (peak + 1e-6)"))
    proc = regenerate(work)
    assert proc.returncode == 0, proc.stderr
    assert "conflict: gain_traceable" in proc.stderr and "4.0" in proc.stderr   # the generated side is shown
    assert "# mine" in module.read_text() and "4.0 / " not in module.read_text()


def test_a_function_the_user_added_is_kept(keep):
    work, module, _ = keep
    module.write_text(module.read_text() + "\n\ndef my_tool(x):\n    return x + 1\n")
    proc = regenerate(work)
    assert proc.returncode == 0, proc.stderr
    assert "kept my_tool" in proc.stderr
    assert "def my_tool(x):\n    return x + 1\n" in module.read_text()
    assert regenerate(work).returncode == 0 and module.read_text().count("def my_tool") == 1


def test_an_edit_outside_the_functions_is_refused_and_force_replaces(keep):
    work, module, _ = keep
    text = module.read_text()
    edited = text.replace('GRAPH = "loop_policy"', 'GRAPH = "renamed"')
    assert edited != text
    module.write_text(edited)
    proc = regenerate(work)
    assert proc.returncode == 2 and "edited outside its functions" in proc.stderr
    assert proc.stderr.startswith("leapp-codemod: error: ")
    assert module.read_text() == edited
    assert regenerate(work, "--force").returncode == 0 and module.read_text() == text


# --------------------------------------------------------------------------- the default driver
def test_driver_defaults_to_the_script_whose_loop_calls_the_entry(keep, tmp_path):
    _, module, proc = keep
    assert "driver: drive.py (its loop calls LoopPolicy.act at drive.py:8)" in proc.stderr   # module-level loop
    assert 'DRIVER = "../generate_keep/drive.py"' in module.read_text()

    work = copy_fixture(tmp_path, "run_patch")            # a loop inside a function under a main guard
    proc = cli(["generate", "reachapp", "--entry", "reachapp.policy:ReachPolicy.act", "-o", "integration.py"], work)
    assert proc.returncode == 0 and "driver: main.py (its loop calls ReachPolicy.act at main.py:" in proc.stderr
    assert 'DRIVER = "main.py"' in (work / "integration.py").read_text()


def test_a_loop_in_a_module_nobody_runs_is_driven_by_the_script_that_imports_it(tmp_path):
    work = copy_fixture(tmp_path, "driver_through_script")
    proc = cli(["generate", ".", "--entry", "rover.policy:SpeedPolicy.act", "-o", "integration.py"], work)
    assert proc.returncode == 0, proc.stderr
    assert ("driver: scripts/deploy.py (it runs rover/runner.py, whose loop calls SpeedPolicy.act at "
            "rover/runner.py:13)") in proc.stderr
    assert 'DRIVER = "scripts/deploy.py"' in (work / "integration.py").read_text()


def test_generate_without_any_driver_says_so_up_front(tmp_path):
    work = copy_fixture(tmp_path, "run_patch")
    (work / "main.py").unlink()
    proc = cli(["generate", "reachapp", "--entry", "reachapp.policy:ReachPolicy.act", "-o", "integration.py"], work)
    assert proc.returncode == 0
    assert proc.stderr.startswith("leapp-codemod: warning: no script under . calls reachapp.policy:ReachPolicy.act "
                                  "in a loop")
    assert "--driver SCRIPT" in proc.stderr.splitlines()[0]
    assert "DRIVER = None" in (work / "integration.py").read_text()
