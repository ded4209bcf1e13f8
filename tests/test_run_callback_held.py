"""An input a listener thread fills (LCM903, severity info): `scan` reports it as an input of the step, not a
hazard; `generate` declares it in HELD (neither left out of the export nor unresolved); `run` serves it before
each call, traces it as an input, and the export validates on fresh calls and across the run, where the goal
changes every tick (a constant baked in while tracing would fail there)."""
from __future__ import annotations

import json

import pytest
from test_run import assert_validated, cli, generate, project, run_json, tree_hash

ENTRY = "rover.node:RoverNode.control"


@pytest.mark.e2e
def test_a_field_a_listener_thread_fills_is_served_as_a_held_input_and_the_export_validates(tmp_path):
    work = project(tmp_path, "run_callback_held")
    before = tree_hash(work / "rover")
    scan = cli(["scan", ".", "--entry", ENTRY, "--format", "json", "--no-cache"], work, 120)
    findings = json.loads(scan.stdout)["findings"]
    assert scan.returncode == 0 and [(f["code"], f["severity"], f["line"]) for f in findings] == [("LCM903", "info", 29)]
    module = generate(work, "rover", ENTRY).read_text()
    assert '"goal": "goal",  # read at node.py:29' in module
    assert "filled outside the step" not in module.partition("LEFT_OUT")[2]     # served, not left out
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["held_inputs"] == {"goal": "self.goal"}
    later = report["validation"]["across_run"]["later_calls"]
    assert report["validation"]["across_run"]["ok"] and later["ok"] and len(later["calls"]) >= 8
    assert "goal" in (work / report["graph_yaml"]).read_text()
    assert tree_hash(work / "rover") == before
