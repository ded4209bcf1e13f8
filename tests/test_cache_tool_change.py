"""The cache key covers the tool's own files: an edited rule in a copy of the package gives a fresh
result, not the one cached by the unedited tool."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import leapp_codemod
from leapp_codemod.source.cache import tool_files

PACKAGE = Path(leapp_codemod.__file__).resolve().parent
TEMPLATES = Path(str(__import__("importlib.resources").resources.files("leapp_codemod.templates")))


def scan(tool_root: Path, app: Path, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tool_root), "LEAPP_CODEMOD_CACHE_DIR": str(cache)}
    code = ("import sys, leapp_codemod; assert leapp_codemod.__file__.startswith(sys.argv[1]); "
            "from leapp_codemod.cli import main; sys.argv[1:2] = []; main()")
    return subprocess.run([sys.executable, "-c", code, str(tool_root), "lint", "app.py"], cwd=app, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_an_edited_rule_invalidates_the_cache(tmp_path):
    tool = tmp_path / "tool"
    shutil.copytree(PACKAGE, tool / "leapp_codemod", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(TEMPLATES, tool / "leapp_codemod" / "templates", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    app, cache = tmp_path / "app", tmp_path / "cache"
    app.mkdir()
    (app / "app.py").write_text("def step(x):\n    return x.numpy()[::-1]\n")

    first = scan(tool, app, cache)
    assert first.returncode == 1 and "negative-stride view" in first.stdout, first.stderr
    assert list(cache.rglob("*.json"))
    assert scan(tool, app, cache).stdout == first.stdout            # served from the cache

    rule = tool / "leapp_codemod" / "rules" / "negative_stride.py"
    rule.write_text(rule.read_text().replace("negative-stride view", "reversed view"))
    fresh = scan(tool, app, cache)
    assert fresh.returncode == 1 and "reversed view" in fresh.stdout and "negative-stride view" not in fresh.stdout


def test_the_digest_covers_rules_tables_and_templates():
    names = {p.relative_to(PACKAGE).as_posix() if p.is_relative_to(PACKAGE) else p.name for p in tool_files()}
    assert "rules/negative_stride.py" in names and "data/adapters.json" in names
    assert "integration.py.j2" in names and not any("__pycache__" in n for n in names)
