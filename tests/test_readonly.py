"""`scan`, `lint` and `entrypoints` never write into the tree they analyze."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
APP = FIXTURES / "scan_arm_policy"
CONFIG = '[tool.leapp-codemod]\nentry = "app.policy:ArmPolicy.act"\n'


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every path under root (folders too) -> (sha256 or 'dir', permission bits)."""
    out = {}
    for current, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(current, name)
            rel = path.relative_to(root).as_posix()
            digest = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
            out[rel] = (digest, path.stat().st_mode)
    return out


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(APP, root)
    (root / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    return root


def commands(extra: list[str]) -> list[list[str]]:
    files = ["app/policy.py", "app/helpers.py"]
    return [
        ["scan", ".", *extra], ["scan", ".", "--format", "json", *extra], ["scan", ".", "--format", "sarif", *extra],
        ["scan", ".", "--format", "github", *extra], ["scan", ".", "--all", *extra],
        ["scan", "app", "--entry", "app.policy:ArmPolicy.act", *extra],
        ["lint", *files, *extra], ["lint", "--entry", "app.policy:ArmPolicy.act", *files, *extra],
        ["entrypoints", "."], ["entrypoints", ".", "--format", "json"],
    ]


def run_all(root: Path, extra: list[str]) -> None:
    old = os.getcwd()
    os.chdir(root)
    try:
        for args in commands(extra):
            result = CliRunner().invoke(main, args, catch_exceptions=False)
            assert result.exit_code in (0, 1), (args, result.stderr)
    finally:
        os.chdir(old)


def test_no_cache_run_leaves_tree_byte_identical(tree, monkeypatch):
    monkeypatch.delenv("LEAPP_CODEMOD_CACHE_DIR", raising=False)
    before = snapshot(tree)
    run_all(tree, ["--no-cache"])
    assert snapshot(tree) == before


def test_cache_directory_outside_the_tree_leaves_tree_byte_identical(tree, tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "elsewhere"))
    before = snapshot(tree)
    run_all(tree, [])
    run_all(tree, [])  # warm cache
    assert snapshot(tree) == before
    assert (tmp_path / "elsewhere").is_dir()


def test_default_run_adds_only_its_self_ignoring_cache_folder(tree, monkeypatch):
    """Application files stay byte-identical; the one addition is .leapp-codemod-cache/, git-ignored from inside."""
    monkeypatch.delenv("LEAPP_CODEMOD_CACHE_DIR", raising=False)
    before = snapshot(tree)
    run_all(tree, [])
    after = snapshot(tree)
    added = {path for path in after if path not in before}
    assert {path: after[path] for path in before} == before
    assert added and all(path.startswith(".leapp-codemod-cache") for path in added)
    assert (tree / ".leapp-codemod-cache" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_real_process_writes_no_bytecode_or_files(tree, tmp_path):
    """The scanner never imports the scanned code: no __pycache__ even when bytecode writing is on."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env["LEAPP_CODEMOD_CACHE_DIR"] = str(tmp_path / "cache")
    before = snapshot(tree)
    for args in (["scan", "."], ["lint", "app/policy.py"], ["entrypoints", "."]):
        proc = subprocess.run([sys.executable, "-m", "leapp_codemod", *args], cwd=tree, env=env,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode in (0, 1), proc.stderr
    assert snapshot(tree) == before
    assert not list(tree.rglob("__pycache__"))
