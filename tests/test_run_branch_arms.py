"""A verdict that names the real cause when the export differs on later calls: the application's branch
that took, on the mismatching calls, an arm no traced call took leads the verdict; a tensor-branch
signal at a library's argument check (its other side only raises) is a one-line note, never "computation
was lost"."""
from __future__ import annotations

import json
import textwrap

import pytest

from leapp_codemod.runner import branch_arms
from tests.test_run import cli, generate, project, tree_hash

SOURCE = textwrap.dedent('''\
    def step(x, limit):
        y = x * 2
        if x > limit:
            y = -y
        while x > 10:
            x = x - 1
        if x < 0:
            y = 0
        else:
            y = y + 1
        return y
    ''')


def test_arms_are_told_from_the_lines_each_call_executed(tmp_path):
    src = tmp_path / "app" / "ctl.py"
    src.parent.mkdir()
    src.write_text(SOURCE)
    path = str(src)
    assert branch_arms.arms_at(path, 3) == (frozenset({4}), frozenset())
    assert branch_arms.arms_at(path, 7) == (frozenset({8}), frozenset({10}))
    assert branch_arms.arms_at(path, 2) is None and branch_arms.arms_at(str(tmp_path / "none.py"), 3) is None
    traced = [{path: [1, 2, 3, 5, 7, 10, 11]}] * 3                 # no traced call took either body
    later = {40: {path: [1, 2, 3, 4, 5, 7, 10, 11]},               # the `if` at 3 fired
             48: {path: [1, 2, 3, 5, 7, 10, 11]},                  # as traced
             56: {path: [1, 2, 3, 5, 6, 7, 8, 11]}}                # the loop ran and the `if` at 7 took its body
    found = branch_arms.flips(["app/ctl.py:3", "app/ctl.py:5", "app/ctl.py:7", "app/ctl.py:2"], traced, later)
    assert [(f["at"], f["calls"], f["traced_arm"], f["other_arm"]) for f in found] == [
        ("app/ctl.py:3", [40], "other", "body"), ("app/ctl.py:5", [56], "other", "body"),
        ("app/ctl.py:7", [56], "other", "body")]
    assert branch_arms.text(found[0]).startswith("the branch at app/ctl.py:3 took the other arm on call 40;")
    both = [{path: [1, 2, 3, 4, 5, 7, 10, 11]}, {path: [1, 2, 3, 5, 7, 10, 11]}]    # the traced calls took both
    assert branch_arms.flips(["app/ctl.py:3"], both, later) == []


@pytest.mark.e2e
def test_a_late_saturation_branch_leads_the_verdict_and_a_library_check_is_only_a_note(tmp_path):
    work = project(tmp_path, "run_branch_arm")
    generate(work, "conveyapp", "conveyapp.belt:BeltController.speed")
    before = tree_hash(work / "conveyapp")
    text = cli(["run", "integration.py", "--out", "out", "--require-format", "onnx"], work)
    report = json.loads((work / "out" / "report.json").read_text())
    assert text.returncode == 1 and report["status"] == "failed" and report["failed_stage"] == "validation"
    later = report["attempts"][0]["validation"]["across_run"]["later_calls"]["calls"]
    bad = [c["call"] for c in later if not c["ok"]]
    assert bad and min(bad) > 20
    assert report["error"].startswith(f"the branch at conveyapp/belt.py:22 took the other arm on call {min(bad)}")
    assert report["branch_flips"][0]["calls"] == bad and report["branch_flips"][0]["traced_arm"] == "other"
    assert "lost_computation" not in report and "computation was lost" not in text.stdout
    assert report["explained_by"][0].startswith("conveyapp/belt.py:22 tensor-branch")
    notes = report["checks_traced"]
    assert len(notes) == 1 and "(called at conveyapp/belt.py:20) is a check whose other side only raises" in notes[0]
    assert text.stdout.startswith("failed: the branch at conveyapp/belt.py:22 took the other arm")
    assert "  note: torch/distributions/" in text.stdout
    assert tree_hash(work / "conveyapp") == before


def test_a_flip_leads_the_error_unless_an_ignored_input_was_named(tmp_path):
    src = tmp_path / "app" / "ctl.py"
    src.parent.mkdir()
    src.write_text(SOURCE)
    data = {"call_lines": {"traced": [{str(src): [1, 2, 3, 5, 7, 10, 11]}],
                           "later": {"40": {str(src): [1, 2, 3, 4, 5, 7, 10, 11]}}}}
    last = {"failed_stage": "validation", "signals": []}
    finding = "app/ctl.py:3 tensor-branch: `if x > limit` decides Python control flow on pipeline data"
    report = {"error": "onnx failed at validation: differs", "explained_by": ["app/ctl.py:9 inplace-state: x", finding]}
    branch_arms.lead_with_flip(report, (finding,), data, last)
    assert report["error"] == ("the branch at app/ctl.py:3 took the other arm on call 40; the export holds the arm of "
                               "the traced calls: onnx failed at validation: differs")
    assert report["explained_by"][0] == finding
    named = {"error": "onnx failed at validation: input `q[3]` is not used", "dropped_element_reads": {"q[3]": ["x"]}}
    branch_arms.lead_with_flip(named, (finding,), data, last)
    assert named["error"].startswith("onnx failed at validation: input `q[3]`")
    assert named["error"].endswith("; also, the branch at app/ctl.py:3 took the other arm on call 40; the export "
                                   "holds the arm of the traced calls")
    untouched = {"error": "onnx failed at tracing: x"}
    branch_arms.lead_with_flip(untouched, (finding,), data, {"failed_stage": "tracing"})
    assert untouched == {"error": "onnx failed at tracing: x"}
