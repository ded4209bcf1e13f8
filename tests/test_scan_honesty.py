"""Calls the scan cannot resolve are listed, with a reason that names where the receiver came from;
random draws from distributions; settings the callers pass as constants; `self.training` branches."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def scan_json(tmp_path, monkeypatch, app: str, entry: str) -> dict:
    root = tmp_path / app
    shutil.copytree(FIXTURES / app, root)
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["scan", ".", "--entry", entry, "--format", "json"], catch_exceptions=False)
    return json.loads(result.stdout)


def test_method_of_an_untyped_entry_parameter_is_listed(tmp_path, monkeypatch):
    doc = scan_json(tmp_path, monkeypatch, "honest_receivers", "rig.runner:run_policy")
    [missing] = doc["not_followed"]
    assert (missing["path"], missing["line"], missing["text"]) == ("rig/runner.py", 11, "agent.choose_action(...)")
    assert "`agent` is a parameter of run_policy" in missing["reason"]


def test_tensor_methods_on_parameters_are_not_listed(tmp_path, monkeypatch):
    doc = scan_json(tmp_path, monkeypatch, "honest_receivers", "rig.runner:run_scaled")
    assert doc["not_followed"] == []


def test_library_object_passed_to_a_helper_is_named_as_one(tmp_path, monkeypatch):
    doc = scan_json(tmp_path, monkeypatch, "honest_receivers", "rig.diffuse:Denoiser.forward")
    [missing] = doc["not_followed"]
    assert missing["text"] == "sched.step(...)"
    reason = missing["reason"]
    assert "passed `self.scheduler` by Denoiser.forward" in reason
    assert "diffusers.schedulers.scheduling_ddim.DDIMScheduler" in reason
    assert "no caller in the scanned code passes" not in reason


def lines(doc: dict) -> set[tuple[str, int, str]]:
    return {(f["path"], f["line"], f["code"]) for f in doc["findings"]}


def test_distribution_subclass_from_a_forward_is_a_draw(tmp_path, monkeypatch):
    doc = scan_json(tmp_path, monkeypatch, "honest_eval_gate", "app.controller:GraspController.command")
    assert ("app/controller.py", 22, "LCM801") in lines(doc)


def test_parameters_the_driver_passes_as_python_values_are_settings(tmp_path, monkeypatch):
    doc = scan_json(tmp_path, monkeypatch, "honest_eval_gate", "app.controller:GraspController.command")
    found = {(path, line) for path, line, _ in lines(doc)}
    assert ("app/controller.py", 15) not in found     # `tick` is an enumerate index, annotated Tensor
    assert ("app/controller.py", 18) not in found     # `greedy` is always True ...
    assert ("app/controller.py", 21) not in found     # ... so the sampling branch is not the pipeline


def test_training_only_code_is_not_the_export_path(tmp_path, monkeypatch):
    doc = scan_json(tmp_path, monkeypatch, "honest_eval_gate", "app.controller:GraspController.command")
    assert not {(p, n) for p, n, _ in lines(doc) if p == "app/heads.py"}


def test_only_the_draw_on_the_export_path_is_reported(tmp_path, monkeypatch):
    doc = scan_json(tmp_path, monkeypatch, "honest_eval_gate", "app.controller:GraspController.command")
    assert lines(doc) == {("app/controller.py", 22, "LCM801")}
    assert doc["not_followed"] == []
