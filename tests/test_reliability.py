"""Hostile input never ends in a traceback: deep expressions, wrong entries, unreadable files, and a
rule that crashes (reported as an internal error naming rule and file, exit 3, the rest analyzed)."""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import inprocess
from leapp_codemod import cli
from leapp_codemod.rules import ALL_RULES

TOOL = [sys.executable, "-m", "leapp_codemod"]
DEPTH = 2000


def tool(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """A fresh process, so the interpreter's default recursion limit applies."""
    return subprocess.run(TOOL + args, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def deep_app(tmp_path_factory) -> Path:
    """Module-level expressions DEPTH operators deep (several shapes) next to an ordinary policy."""
    root = tmp_path_factory.mktemp("deep")
    (root / "dp").mkdir()
    (root / "dp" / "__init__.py").write_text("")
    chains = {"SUM": " + ".join(["1"] * DEPTH), "ALL": " and ".join(["x"] * DEPTH),
              "IDX": "x" + "[0]" * DEPTH, "CMP": " < ".join(["x"] * DEPTH),
              "ONES": " - ".join(["torch.ones(3)"] * DEPTH)}
    body = "".join(f"{name} = {expr}\n" for name, expr in chains.items())
    (root / "dp" / "consts.py").write_text("import torch\n\n" + body)
    (root / "dp" / "policy.py").write_text(
        "import torch\n\nfrom .consts import ONES, SUM\n\n" + body + "\n\nclass Pol(torch.nn.Module):\n"
        "    @torch.no_grad()\n"  # a sign of a model: entrypoint discovery lists it
        "    def forward(self, obs):\n        y = obs * SUM + ONES + " + " + ".join(["obs"] * DEPTH) + "\n"
        "        return y.numpy()[::-1]\n")
    return root


@pytest.mark.parametrize("args", [
    ["scan", "dp", "--entry", "dp.policy:Pol.forward"], ["scan", "dp", "--all"], ["scan", "dp"],
    ["lint", "dp/policy.py", "dp/consts.py"],
])
@pytest.mark.slow
def test_deep_expressions_are_analyzed_without_a_traceback(deep_app, args):
    proc = tool([*args, "--no-cache"], deep_app)
    assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr
    assert proc.returncode == 1, proc.stderr
    assert "dp/policy.py:" in proc.stdout and "LCM501" in proc.stdout


@pytest.mark.slow
def test_deep_expressions_in_entrypoints_and_generate(deep_app, tmp_path):
    listed = tool(["entrypoints", "dp"], deep_app)
    assert listed.returncode == 0 and "dp.policy:Pol.forward" in listed.stdout, listed.stderr
    made = tool(["generate", "dp", "--entry", "dp.policy:Pol.forward", "-o", str(tmp_path / "i.py")], deep_app)
    assert made.returncode == 0 and "Traceback" not in made.stderr, made.stderr


def test_code_nested_beyond_the_bound_is_one_line_and_the_rest_is_analyzed(tmp_path):
    (tmp_path / "abyss.py").write_text("X = " + "-" * 200 + "(" * 150 + "1" + ")" * 150 + "\nY = "
                                       + "+".join(["1"] * 5000) + "\n")
    (tmp_path / "ok.py").write_text("import numpy as np\n\n\ndef step(x):\n    return x[::-1]\n")
    proc = tool(["scan", ".", "--all", "--no-cache"], tmp_path)
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "abyss.py" in line]
    assert lines == ["leapp-codemod: abyss.py: nested more than 3000 levels deep; skipped"]
    assert "ok.py:5" in proc.stdout


@pytest.fixture(scope="module")
def plain_app(tmp_path_factory) -> Path:
    """The same package and policy without the deep expressions: a wrong entry is refused the same way
    in any tree (scanning the deep one first cost 3 CPU-s per case)."""
    root = tmp_path_factory.mktemp("plain")
    (root / "dp").mkdir()
    (root / "dp" / "__init__.py").write_text("")
    (root / "dp" / "policy.py").write_text("import torch\n\n\nclass Pol(torch.nn.Module):\n    @torch.no_grad()\n"
                                          "    def forward(self, obs):\n        return (obs * 2).numpy()[::-1]\n")
    return root


@pytest.mark.parametrize(("entry", "message"), [
    ("nope:Nope", "--entry 'nope:Nope': module 'nope' is not among the scanned files"),
    ("dp.policy:Nope", "--entry 'dp.policy:Nope': no function 'Nope' in dp/policy.py"),
    ("dp.policy", "--entry 'dp.policy' must look like MODULE:QUALNAME"),
])
def test_generate_with_a_wrong_entry_is_one_line_and_exit_2(plain_app, tmp_path, entry, message):
    proc = inprocess.cli(["generate", "dp", "--entry", entry, "-o", str(tmp_path / "i.py")], plain_app)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and message in proc.stderr, proc.stderr
    assert not (tmp_path / "i.py").exists()


@pytest.mark.parametrize("args", [
    ["run", "folder.py"], ["run", "missing.py"], ["lint", "folder.py"], ["entrypoints", "missing"],
    ["generate", "missing", "--entry", "a:b"],
])
def test_unreadable_inputs_are_one_line_and_exit_2(tmp_path, args):
    (tmp_path / "folder.py").mkdir()
    proc = tool(args, tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def _crashing(rule):
    def check(node, ctx):
        raise KeyError("boom")
    return dataclasses.replace(rule, check=check)


def test_a_crashing_rule_is_an_internal_error_and_other_rules_still_report(tmp_path, monkeypatch):
    (tmp_path / "app.py").write_text("import numpy as np\n\n\ndef step(x):\n    y = x.numpy()\n"
                                     "    return y[::-1].astype(np.uint16)\n")
    (tmp_path / "other.py").write_text("def step2(x):\n    return x.numpy()[::-1]\n")
    victim = next(r for r in ALL_RULES if r.category == "numpy-astype")
    rules = tuple(_crashing(r) if r is victim else r for r in ALL_RULES)
    monkeypatch.setattr("leapp_codemod.rules.ALL_RULES", rules)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli.main, ["scan", ".", "--all", "--no-cache", "-j", "1"])
    assert result.exit_code == 3, result.output
    internal = [line for line in result.output.splitlines() if "internal error" in line]
    assert [line.split(":")[1].strip() for line in internal] == ["app.py", "other.py"]     # once per file
    assert all(f"internal error in rule {victim.code} (KeyError: 'boom')" in line for line in internal)
    assert "app.py:6" in result.output and "other.py:2" in result.output     # the other rules and files


def test_an_unexpected_fault_is_one_line_and_exit_3(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("leapp_codemod.report.ruledocs.rules_table", broken)
    result = CliRunner().invoke(cli.main, ["rules"])
    assert result.exit_code == 3
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("leapp-codemod: internal error in `rules`: ZeroDivisionError")


def test_the_generated_module_says_importing_it_runs_the_application(tmp_path):
    from leapp_codemod.scan import scan_project
    from leapp_codemod.generate import Options, render_module

    (tmp_path / "tinyapp").mkdir()
    (tmp_path / "tinyapp" / "__init__.py").write_text("")
    (tmp_path / "tinyapp" / "policy.py").write_text("def step(obs):\n    return obs * 2.0\n")
    opts = Options(app=tmp_path / "tinyapp", entry="tinyapp.policy:step", output=tmp_path / "integration.py")
    text, _ = render_module(scan_project([str(opts.app)], entry=opts.entry), opts)
    doc = " ".join(text.split('"""')[1].split())
    assert "Importing this module imports the application" in doc and "trusted code only" in doc
    assert "safe" not in doc
