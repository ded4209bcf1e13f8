"""Install metadata and docs: SPDX license without setuptools warnings, install lines that work without a
registry release, a pre-commit `rev` that is a release tag, set-up commands on the README's first screen."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from leapp_codemod import __version__

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
DOCS = {"README.md": (ROOT / "README.md").read_text(), "docs/ci.md": (ROOT / "docs" / "ci.md").read_text()}


def test_license_is_an_spdx_string_with_its_file():
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"
    assert all((ROOT / name).is_file() for name in project["license-files"])
    assert "Apache License" in (ROOT / "LICENSE").read_text()[:200]
    requires = PYPROJECT["build-system"]["requires"]
    assert any(re.fullmatch(r"setuptools>=(7[7-9]|[89]\d)(\.\d+)*", r) for r in requires), requires


def test_metadata_builds_without_setuptools_warnings(tmp_path):
    import setuptools
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"setuptools {setuptools.__version__} predates SPDX license strings (the build uses >=77)")
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".venv", ".git", "*.egg-info", "__pycache__",
                                                                 "fixtures", "tests", "benchmarks", "examples",
                                                                 "demo-out", ".leapp-codemod-cache"))
    (tmp_path / "meta").mkdir()
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-c",
         "import sys, setuptools.build_meta as b; print(b.prepare_metadata_for_build_wheel(sys.argv[1]))",
         str(tmp_path / "meta")], cwd=source, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Warning" not in proc.stderr, proc.stderr[-2000:]
    metadata = next((tmp_path / "meta").glob("*.dist-info")).joinpath("METADATA").read_text()
    assert "License-Expression: Apache-2.0" in metadata and "License-File: LICENSE" in metadata
    assert f"Version: {__version__}" in metadata


@pytest.mark.parametrize("name", sorted(DOCS))
def test_install_lines_use_the_repository_not_a_registry(name):
    text = DOCS[name]
    lines = [line for line in text.splitlines() if "pip install" in line and "leapp-codemod" in line]
    assert lines, f"{name} has no install line"
    for line in lines:   # only main is published: no release tag to name
        assert re.search(r'"leapp-codemod(\[run\])? @ git\+<repository URL>"', line), line
    assert "<URL of" not in text and "<tag or commit>" not in text and "leapp-codemod@v" not in text


@pytest.mark.parametrize("name", sorted(DOCS))
def test_pre_commit_examples_pin_a_commit_of_main_not_a_tag(name):
    revs = re.findall(r"^\s*rev:\s*(.+?)\s*(?:#.*)?$", DOCS[name], re.M)
    assert revs and set(revs) == {"<commit of main>"}


def test_readme_first_screen_keeps_the_two_set_up_commands():
    first_screen = DOCS["README.md"].splitlines()[:10]
    assert any(line.startswith("make demo ") for line in first_screen)
    assert any(line.startswith("make test ") for line in first_screen)


def test_make_setup_prints_one_line_per_stage():
    dry = subprocess.run(["make", "-n", "-B", "setup"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert dry.returncode == 0, dry.stderr
    stages = re.findall(r'echo "setup (\d)/4: ', dry.stdout)
    assert stages == ["1", "2", "3", "4"]
    installs = [line for line in dry.stdout.splitlines() if "pip install" in line]
    assert installs and all(" -q " in line for line in installs)   # pip's own chatter stays quiet
