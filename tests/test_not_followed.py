"""Calls in the pipeline the scan could not resolve are listed (never a bare "No hazards found"), can be
bound to a class (`--bind`, `[tool.leapp-codemod.bind]`), and can fail the run (`--fail-on not-followed`)."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod.cli import main

FILTERS = '''
import numpy as np


class MedianFilter:
    def apply(self, frame):
        return np.median(frame, axis=0)


class MeanFilter:
    def apply(self, frame):
        return frame.mean(axis=0)
'''

PIPELINE = '''
import importlib

import numpy as np


class Pipeline:
    def __init__(self, settings):
        plugin = importlib.import_module(settings["filter_module"])
        self.filter = plugin.build(settings)

    def step(self, frame):
        smoothed = self.filter.apply(frame)
        return np.tanh(smoothed)
'''

MAIN = '''
import numpy as np

from app.pipeline import Pipeline


def main():
    pipeline = Pipeline({"filter_module": "app.filters"})
    for _ in range(5):
        pipeline.step(np.random.rand(4, 3))


if __name__ == "__main__":
    main()
'''


def write_app(root: Path, pyproject: str = "") -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "filters.py").write_text(textwrap.dedent(FILTERS))
    (root / "app" / "pipeline.py").write_text(textwrap.dedent(PIPELINE))
    (root / "main.py").write_text(textwrap.dedent(MAIN))
    if pyproject:
        (root / "pyproject.toml").write_text(textwrap.dedent(pyproject))
    return root


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan(root: Path, monkeypatch, *args: str):
    monkeypatch.chdir(root)
    return CliRunner().invoke(main, ["scan", ".", "--entry", "app.pipeline:Pipeline.step", *args],
                              catch_exceptions=False)


def test_unresolved_receiver_is_listed_with_its_origin(tmp_path, monkeypatch):
    root = write_app(tmp_path / "proj")
    result = scan(root, monkeypatch, "--format", "json")
    doc = json.loads(result.stdout)
    assert doc["findings"] == []
    [missing] = doc["not_followed"]
    assert (missing["path"], missing["line"]) == ("app/pipeline.py", 13)
    assert missing["text"] == "self.filter.apply(...)"
    assert missing["receiver"] == "self.filter"
    assert "plugin.build" in missing["reason"]
    assert missing["function"] == "app.pipeline:Pipeline.step"


def test_text_never_says_clean_when_calls_were_not_followed(tmp_path, monkeypatch):
    root = write_app(tmp_path / "proj")
    result = scan(root, monkeypatch)
    assert result.exit_code == 0
    text = result.stdout
    assert "No hazards found in the code followed; 1 call not followed" in text
    assert "No hazards found;" not in text
    assert "app/pipeline.py:13: not followed: self.filter.apply(...)" in text
    assert "--bind self.filter=MODULE:CLASS" in text


def test_fail_on_not_followed(tmp_path, monkeypatch):
    root = write_app(tmp_path / "proj")
    assert scan(root, monkeypatch, "--fail-on", "error,not-followed").exit_code == 1
    assert scan(root, monkeypatch, "--fail-on", "not-followed", "--exit-zero").exit_code == 0
    assert scan(root, monkeypatch, "--fail-on", "warning").exit_code == 0
    bad = scan(root, monkeypatch, "--fail-on", "sometimes")
    assert bad.exit_code == 2 and "not-followed" in bad.output


def test_bind_on_the_command_line_follows_the_class(tmp_path, monkeypatch):
    root = write_app(tmp_path / "proj")
    result = scan(root, monkeypatch, "--format", "json", "--bind", "self.filter=app.filters:MedianFilter")
    doc = json.loads(result.stdout)
    assert doc["not_followed"] == []
    assert [(f["path"], f["line"], f["code"]) for f in doc["findings"]] == [("app/filters.py", 7, "LCM301")]
    assert result.exit_code == 1


def test_bind_in_pyproject(tmp_path, monkeypatch):
    root = write_app(tmp_path / "proj", '''
        [tool.leapp-codemod.bind]
        "self.filter" = "app.filters:MeanFilter"
    ''')
    doc = json.loads(scan(root, monkeypatch, "--format", "json").stdout)
    assert doc["not_followed"] == [] and doc["findings"] == []
    assert any(r["targets"] == ["app.filters:MeanFilter.apply"] and "--bind" in r["how"] for r in doc["bound_calls"])


def test_malformed_bind_is_one_line_exit_2(tmp_path, monkeypatch):
    root = write_app(tmp_path / "proj")
    result = scan(root, monkeypatch, "--bind", "self.filter")
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "EXPR=MODULE:CLASS" in result.output


def test_sarif_and_github_carry_the_list(tmp_path, monkeypatch):
    root = write_app(tmp_path / "proj")
    sarif = json.loads(scan(root, monkeypatch, "--format", "sarif").stdout)
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any("not followed: self.filter.apply(...)" in n["message"]["text"] for n in notes)
    assert sarif["runs"][0]["properties"]["notFollowed"][0]["line"] == 13
    github = scan(root, monkeypatch, "--format", "github").stdout
    assert "::warning file=app/pipeline.py,line=13,title=not followed::self.filter.apply(...)" in github
