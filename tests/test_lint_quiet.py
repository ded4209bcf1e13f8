"""Quiet lint: without a configured entry, `lint` reports what is reachable from the discovered entry, and
exclusions decide what is reported, not what the program is (an excluded driver still shows the entry)."""
import json
import shutil
from pathlib import Path

import inprocess

ROOT = Path(__file__).resolve().parents[1]


def _tool(args, cwd):
    return inprocess.cli([*args, "--no-cache"], cwd)      # what is printed and returned (tests/inprocess.py)


def _copy(tmp_path, fixture):
    work = tmp_path / fixture
    shutil.copytree(ROOT / "fixtures" / fixture, work, ignore=shutil.ignore_patterns("__pycache__"))
    return work


def test_an_excluded_driver_still_names_the_entry(tmp_path):
    work = _copy(tmp_path, "excluded_driver")          # exclude = ["tools"]: the teleop driver
    doc = json.loads(_tool(["scan", ".", "--format", "json"], work).stdout)
    assert doc["entry"] == "arm.reach:Reacher.compute"
    assert any("tools/teleop.py" in reason for reason in doc["entry_detail"]["reasons"])
    assert [(f["line"], f["code"]) for f in doc["findings"]] == [(12, "LCM201")]   # Planner.act is not followed
    assert not any(f["path"].startswith("tools/") for f in doc["findings"])


def test_lint_reports_only_what_the_entry_reaches(tmp_path):
    work = _copy(tmp_path, "hook_after_export")
    files = ["balancer/controller.py", "balancer/estimate.py", "main.py"]
    quiet = json.loads(_tool(["lint", *files, "--format", "json"], work).stdout)["findings"]
    every = json.loads(_tool(["lint", "--all", *files, "--format", "json"], work).stdout)["findings"]
    assert {(f["path"], f["code"]) for f in quiet} == {("balancer/controller.py", "LCM702"),
                                                      ("balancer/estimate.py", "LCM401")}
    # --all also flags the constructor's random draw and the driver's simulated sensors and print
    extra = {(f["path"], f["function"]) for f in every} - {(f["path"], f["function"]) for f in quiet}
    assert ("balancer/controller.py", "balancer.controller:Balancer.__init__") in extra
    assert ("main.py", "main:main") in extra


def test_add_noqa_appends_and_keeps_existing_codes(tmp_path):
    work = _copy(tmp_path, "hook_after_export")
    estimate = work / "balancer" / "estimate.py"
    estimate.write_text(estimate.read_text().replace('[:, :2]\n', '[:, :2]  # noqa: E501\n'))
    files = ["balancer/controller.py", "balancer/estimate.py", "main.py"]
    added = _tool(["lint", *files, "--add-noqa"], work)
    assert added.returncode == 0 and added.stdout.strip() == "Added 2 noqa directives in 2 files.", added
    assert "# noqa: E501, LCM401" in estimate.read_text()
    assert "self.smoothed = 0.8 * self.smoothed + 0.2 * command  # noqa: LCM702" in \
        (work / "balancer" / "controller.py").read_text()
    again = _tool(["lint", *files, "--add-noqa"], work)
    assert again.stdout.strip() == "Added 0 noqa directives."      # the codes are there: nothing to add


def test_noqa_is_honoured_like_leapp_ignore(tmp_path):
    work = _copy(tmp_path, "hook_after_export")
    files = ["balancer/controller.py", "balancer/estimate.py", "main.py"]
    assert _tool(["lint", *files], work).returncode == 1
    assert _tool(["lint", *files, "--add-noqa"], work).returncode == 0
    after = _tool(["lint", *files], work)
    assert after.returncode == 0 and "No hazards found" in after.stdout, after.stdout
    estimate = work / "balancer" / "estimate.py"
    estimate.write_text(estimate.read_text().replace("# noqa: LCM401", "# noqa: E501"))   # another linter's code
    again = _tool(["lint", *files, "--format", "concise"], work)
    assert again.returncode == 1 and "balancer/estimate.py:7:" in again.stdout
