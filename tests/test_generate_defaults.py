"""`generate` with no flags on the folder `scan` was given: scan's entry, the driver that calls it, a module
written next to the driver outside the application package, and the `run` command to type next. Three
layouts: a package with its driver beside it, a `src/` layout, a single script. Plus: refusals name the
command that would succeed, and the module keeps the project's own formatter configuration."""
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import inprocess

ROOT = Path(__file__).resolve().parents[1]
TOOL = [sys.executable, "-m", "leapp_codemod"]


def _copy(tmp_path: Path, fixture: str) -> Path:
    work = tmp_path / fixture
    shutil.copytree(ROOT / "fixtures" / fixture, work, ignore=shutil.ignore_patterns("__pycache__"))
    return work


def _tool(args, cwd: Path) -> subprocess.CompletedProcess:
    return inprocess.cli(args, cwd)      # what is printed and returned, not the process (tests/inprocess.py)


def _sources(work: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(work.rglob("*.py"))
                                   if p.name != "leapp_integration.py")).hexdigest()


@pytest.mark.parametrize(("fixture", "app", "entry", "driver"), [
    ("hook_after_export", ".", "balancer.controller:Balancer.act", "main.py"),
    ("hook_after_export", "balancer", "balancer.controller:Balancer.act", "main.py"),
    ("layout_src", ".", "rover.steer:Steering.forward", "drive.py"),
    ("layout_src", "src/rover", "rover.steer:Steering.forward", "drive.py"),
    ("layout_script", ".", "hover:Hover.thrust", "hover.py"),
    ("layout_script", "hover.py", "hover:Hover.thrust", "hover.py"),
])
def test_generate_with_no_flags(tmp_path, fixture, app, entry, driver):
    work = _copy(tmp_path, fixture)
    before = _sources(work)
    done = _tool(["generate", app], work)
    assert done.returncode == 0, done.stderr
    assert f"entry: {entry} " in done.stderr
    assert f"driver: {driver} " in done.stderr
    module = work / Path(driver).parent / "leapp_integration.py"
    assert module.is_file()
    assert f'ENTRY = "{entry}"' in module.read_text()
    scanned = _tool(["scan", app, "--format", "json", "--no-cache"], work)
    assert json.loads(scanned.stdout)["entry"] == entry      # the entry `scan` chose
    assert done.stderr.rstrip().splitlines()[-1] == "next: leapp-codemod run leapp_integration.py" or \
        "next: leapp-codemod run leapp_integration.py" in done.stderr
    assert _sources(work) == before                      # the application is not modified
    assert _tool(["generate", app, "--check"], work).returncode == 0


def test_a_refused_output_names_the_command_that_succeeds(tmp_path):
    work = _copy(tmp_path, "hook_after_export")
    refused = _tool(["generate", ".", "-o", "balancer/integration.py"], work)
    assert refused.returncode == 2
    assert not (work / "balancer" / "integration.py").exists()
    line = refused.stderr.strip().splitlines()[-1]
    assert "inside the application package balancer" in line
    suggested = line.split("`")[1]
    assert suggested.startswith("leapp-codemod generate . --entry balancer.controller:Balancer.act -o ")
    again = _tool(suggested.split()[1:], work)
    assert again.returncode == 0, again.stderr
    assert (work / "leapp_integration.py").is_file()


def _longest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_the_projects_line_length_is_kept_and_check_agrees_with_the_write(tmp_path):
    pytest.importorskip("ruff")
    work = _copy(tmp_path, "hook_after_export")
    (work / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n")
    assert _tool(["generate", "."], work).returncode == 0
    module = work / "leapp_integration.py"
    wide = module.read_text()
    assert 88 < _longest(wide) <= 120
    ruff = [sys.executable, "-m", "ruff", "format", "--config", str(work / "pyproject.toml")]
    assert subprocess.run([*ruff, "--check", str(module)], capture_output=True).returncode == 0

    (work / "pyproject.toml").write_text("[tool.ruff]\nline-length = 60\n")
    subprocess.run([*ruff, str(module)], capture_output=True, check=True)
    formatted = module.read_text()
    assert _longest(formatted) < _longest(wide)
    check = _tool(["generate", ".", "--check"], work)
    assert check.returncode == 0 and "up to date" in check.stderr
    assert _tool(["generate", "."], work).returncode == 0
    assert module.read_text() == formatted               # the write agrees with --check: nothing to change


def test_without_a_formatter_configuration_ruff_defaults_apply(tmp_path):
    pytest.importorskip("ruff")
    work = _copy(tmp_path, "hook_after_export")
    assert _tool(["generate", "."], work).returncode == 0
    assert _longest((work / "leapp_integration.py").read_text()) <= 88 + 12   # comments may run past 88


@pytest.mark.parametrize(("args", "prepare"), [
    (["generate", "."], "foreign"),                      # a file generate did not write is in the way
    (["generate", ".", "--driver", "nowhere.py"], None),  # a driver that does not exist
    (["generate", "balancr"], None),                     # a mistyped application path
])
def test_every_refusal_names_a_command_that_succeeds(tmp_path, args, prepare):
    work = _copy(tmp_path, "hook_after_export")
    if prepare == "foreign":
        (work / "leapp_integration.py").write_text("# my own notes\n")
    refused = _tool(args, work)
    assert refused.returncode == 2, refused.stderr
    line = refused.stderr.strip().splitlines()[-1]
    suggested = line.split("`")[1]
    assert suggested.startswith("leapp-codemod generate ")
    if "balancr" in args:
        work = work / "balancer" / ".."                 # "from the folder scan was given"
    again = _tool(suggested.split()[1:], work)
    assert again.returncode == 0, again.stderr
    written = Path(suggested.split(" -o ")[1].split()[0]) if " -o " in suggested else work / "leapp_integration.py"
    assert (work / written).read_text().startswith("# leapp-codemod-generated")
    if prepare == "foreign":     # the user's own file is never replaced
        assert (work / "leapp_integration.py").read_text() == "# my own notes\n"


def test_the_configured_entry_is_used_as_scan_uses_it(tmp_path):
    work = _copy(tmp_path, "excluded_driver")
    (work / "pyproject.toml").write_text('[tool.leapp-codemod]\nentry = "arm.reach:Planner.act"\n')
    done = _tool(["generate", ".", "-o", "planner_integration.py"], work)
    assert done.returncode == 0, done.stderr
    assert 'ENTRY = "arm.reach:Planner.act"' in (work / "planner_integration.py").read_text()
