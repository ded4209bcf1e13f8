"""A new user's path end to end: `scan` -> `generate` (no flags) -> `run` (validated) -> `git commit` through
the real pre-commit hook. The commit passes with no suppression written by hand (the generated module
resolves the findings); a hazard added afterwards fails the commit on exactly that hazard."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import inprocess
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
TOOL = [sys.executable, "-m", "leapp_codemod"]
GIT = ["git", "-c", "user.name=leapp-codemod tests", "-c", "user.email=tests@leapp-codemod.invalid",
       "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]

pytestmark = pytest.mark.e2e


def _run(args, cwd, env=None, timeout=600):
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _app_hash(work: Path) -> str:
    files = sorted([*work.joinpath("balancer").rglob("*.py"), work / "main.py"])
    return hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()


def _local_hook_config() -> str:
    """The published hook (.pre-commit-hooks.yaml) as a `repo: local` hook running this checkout's tool."""
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    local = {**hook, "language": "system", "entry": f"{sys.executable} -m leapp_codemod lint"}
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]})


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    work = tmp_path_factory.mktemp("hook") / "balance"
    shutil.copytree(ROOT / "fixtures" / "hook_after_export", work, ignore=shutil.ignore_patterns("__pycache__"))
    before = _app_hash(work)
    scan = inprocess.cli(["scan", ".", "--format", "json"], work)         # what they print and return
    generate = inprocess.cli(["generate", "."], work)                     # (tests/inprocess.py)
    run = _run(TOOL + ["run", "leapp_integration.py", "--format", "json"], work)
    return work, before, scan, generate, run


def test_scan_generate_run_with_no_flags(exported):
    work, before, scan, generate, run = exported
    assert scan.returncode == 1
    assert {f["category"] for f in json.loads(scan.stdout)["findings"]} == {"inplace-state", "foreign-library"}
    assert generate.returncode == 0, generate.stderr
    assert "next: leapp-codemod run leapp_integration.py" in generate.stderr
    assert (work / "leapp_integration.py").is_file()
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout)
    assert report["status"] == "validated"
    # the tool's own SciPy adapter ran on traced arrays: LEAPP reported nothing inside it
    assert "leapp_codemod.adapters" not in run.stdout + run.stderr
    assert _app_hash(work) == before


def test_commit_passes_then_fails_on_exactly_the_added_hazard(exported, tmp_path):
    work, before, *_ = exported
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    (work / ".pre-commit-config.yaml").write_text(_local_hook_config())
    (work / ".gitignore").write_text("leapp-out/\n__pycache__/\n.leapp-codemod-cache/\n")
    for step in (GIT + ["init", "-q"], [sys.executable, "-m", "pre_commit", "install"], GIT + ["add", "-A"]):
        done = _run(step, work, env)
        assert done.returncode == 0, done.stderr
    committed = _run(GIT + ["commit", "-q", "-m", "export"], work, env)
    assert committed.returncode == 0, committed.stdout + committed.stderr

    controller = work / "balancer" / "controller.py"
    text = controller.read_text()
    controller.write_text(text.replace("        command = self.net(",
                                       "        angles = angles / angles.abs().max().item()\n"
                                       "        command = self.net("))
    line = controller.read_text().splitlines().index("        angles = angles / angles.abs().max().item()") + 1
    _run(GIT + ["add", "-A"], work, env)
    blocked = _run(GIT + ["commit", "-q", "-m", "hazard"], work, env)
    out = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, out
    reported = [row for row in out.splitlines() if ": LCM" in row and "resolved by" not in row]
    assert len(reported) == 1 and reported[0].startswith(f"balancer/controller.py:{line}:"), out
    assert "[scalar-extraction]" in reported[0]
    assert "Found 1 hazard" in out and "resolved by leapp_integration.py" in out
