"""The published pre-commit hook, installed by the real `pre-commit` tool into a scratch repository.

The hook repository is a throw-away git repository holding a copy of this project's source at one
commit; pre-commit clones it and builds the hook's own virtualenv from it with pip.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ["pyproject.toml", ".pre-commit-hooks.yaml", "README.md", "LICENSE", "MANIFEST.in", "setup.cfg",
          "leapp_codemod", "templates"]
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
GIT = ["git", "-c", "user.name=leapp-codemod tests", "-c", "user.email=tests@leapp-codemod.invalid",
       "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]

HAZARD = '''\
import torch


def step(obs: torch.Tensor) -> torch.Tensor:
    gain = obs.abs().max().item()
    return obs / gain
'''

CLEAN = '''\
import torch


def step(obs: torch.Tensor) -> torch.Tensor:
    return torch.where(obs.sum() > 0, obs * 2.0, obs)
'''


def run(args, cwd, env=None, timeout=120, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{args} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def test_hook_manifest_declares_the_lint_hook():
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook == {
        "id": "leapp-codemod", "name": "leapp-codemod",
        "description": "Find LEAPP trace hazards in PyTorch policy pipelines.",
        "entry": "leapp-codemod lint", "language": "python", "types": ["python"],
        "pass_filenames": True, "require_serial": True,   # one analysis of the whole change, one summary
    }


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A scratch repository whose .pre-commit-config.yaml uses the hook from a copy of this project."""
    hook_repo = tmp_path_factory.mktemp("hook-repo")
    for name in SOURCE:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, hook_repo / name, ignore=IGNORE)
        elif src.is_file():
            shutil.copy2(src, hook_repo / name)
    run(GIT + ["init", "-q"], hook_repo)
    run(GIT + ["add", "-A"], hook_repo)
    run(GIT + ["commit", "-q", "-m", "hook source"], hook_repo)
    rev = run(["git", "rev-parse", "HEAD"], hook_repo).stdout.strip()

    work = tmp_path_factory.mktemp("scratch")
    run(GIT + ["init", "-q"], work)
    (work / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook_repo}\n    rev: {rev}\n    hooks:\n      - id: leapp-codemod\n")
    (work / "hazard.py").write_text(HAZARD)
    (work / "clean.py").write_text(CLEAN)
    run(GIT + ["add", "-A"], work)

    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home")),
           "PRE_COMMIT_COLOR": "never", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("VIRTUAL_ENV", None)
    pre_commit = [sys.executable, "-m", "pre_commit"]
    run(pre_commit + ["install", "--install-hooks"], work, env=env, timeout=900)
    return work, env, pre_commit


def test_run_fails_on_a_hazard_with_the_finding(scratch):
    work, env, pre_commit = scratch
    proc = run(pre_commit + ["run", "leapp-codemod", "--files", "hazard.py"], work, env=env, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "leapp-codemod" in out and "Failed" in out
    assert "hazard.py:5:" in out, out
    assert "[scalar-extraction]" in out, out


def test_run_passes_on_clean_code(scratch):
    work, env, pre_commit = scratch
    proc = run(pre_commit + ["run", "leapp-codemod", "--files", "clean.py"], work, env=env, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Passed" in out, out


def test_installed_git_hook_blocks_the_hazard_and_lets_clean_code_through(scratch):
    work, env, _ = scratch
    run(GIT + ["reset", "-q"], work)
    run(GIT + ["add", ".pre-commit-config.yaml", "clean.py"], work)
    run(GIT + ["commit", "-q", "-m", "clean"], work, env=env, timeout=300)
    run(GIT + ["add", "hazard.py"], work)
    blocked = run(GIT + ["commit", "-q", "-m", "hazard"], work, env=env, timeout=300, check=False)
    assert blocked.returncode != 0
    assert "hazard.py:5:" in blocked.stdout + blocked.stderr
    log = run(["git", "log", "--format=%s"], work).stdout.split()
    assert log == ["clean"]
