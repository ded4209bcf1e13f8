"""Reads inside the step that return numbers instead of an array (`json.load(f)["gain"]`, a list of
trims) are inputs the host feeds, one per float or list of numbers; a read that returns neither is
refused naming its line, never exported as the constant it was while traced."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from leapp_codemod.runner.draws import (
    READ_PREFIX,
    Draws,
    carried_leaves,
    opened_for,
    ports,
    refused_read,
    report,
    varied_reads,
)
from tests.test_run import assert_validated, generate, project, run_json, tree_hash


def test_numbers_a_read_returns_become_float32_ports_and_are_fed_back_in_the_kind_read():
    d = Draws(kinds=(READ_PREFIX,))
    seq = iter([{"gain": 0.8, "trim": [0.1, -0.2], "label": "arm", "legs": 4}, 2.5, [[1, 0.5], [0, 1.0]]])
    read = d._wrap(lambda *a, **k: next(seq), "load", READ_PREFIX)
    with d.recording() as got:
        first, second, third = read("a.json"), read("b.txt"), read("c.yaml")
    assert first["gain"] == 0.8 and second == 2.5 and third == [[1, 0.5], [0, 1.0]]
    got_ports = ports(got)
    assert list(got_ports) == ["io_0_load_gain", "io_0_load_trim", "io_1_load", "io_2_load"]
    assert got_ports["io_0_load_gain"].shape == (1,) and got_ports["io_0_load_gain"].dtype == np.float32
    assert got_ports["io_2_load"].shape == (2, 2)
    with d.replaying(got):
        d.active = True
        fed = read("a.json")
    assert fed == {"gain": 0.8, "trim": [0.1, -0.2], "label": "arm", "legs": 4} and fed is not got[0][2]
    assert refused_read(d) == "" and "host_reads_not_carried" not in report(d)
    varied = varied_reads(got, [got, got], seed=1)
    assert isinstance(varied[0][2]["gain"], float) and varied[0][2]["label"] == "arm"
    assert isinstance(varied[2][2], list) and len(varied[2][2]) == 2


def test_integers_and_strings_are_not_carried_and_a_read_of_only_those_is_refused_by_line():
    assert carried_leaves({"mode": "walk", "legs": 4, "ids": [1, 2]}, "p") == {}
    assert list(carried_leaves({"ids": [1, 2.0]}, "p")) == ["p_ids"]
    d = Draws(kinds=(READ_PREFIX,))
    read = d._wrap(lambda *a, **k: {"mode": "walk"}, "safe_load", READ_PREFIX)
    with d.recording() as got:
        read("mode.yaml")
    assert got == []
    line = refused_read(d)
    assert re.match(r"\S*test_run_config_read\.py:\d+: ", line)      # the line that made the read
    assert "`safe_load`" in line and "neither an array nor numbers" in line and "\n" not in line


def test_the_open_whose_file_a_carried_read_takes_is_found(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text("import json\n\ndef f(p, q):\n    with open(p) as fh:\n        cfg = json.load(fh)\n"
                                     "    g = open(q)\n    x = json.load(g)\n    log = open(q)\n    return cfg, x\n")
    assert opened_for({"app.py:5", "app.py:7"}) == {"app.py:4": "app.py:5", "app.py:6": "app.py:7"}
    assert opened_for({"app.py:5"}) == {"app.py:4": "app.py:5"}


@pytest.mark.e2e
def test_a_tuning_file_read_inside_the_step_is_a_host_fed_input_and_validates(tmp_path):
    """The driver rewrites the tuning file at call 14: the calls sampled after it validate only
    because the gain and the trims are inputs fed with what the application read on each call."""
    work = project(tmp_path, "run_config_read")
    before = tree_hash(work / "trimapp")
    generate(work, "trimapp", "trimapp.policy:TrimmedPolicy.act")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["host_read_inputs"] == {"io_0_load_gain": "trimapp/policy.py:19 load",
                                          "io_0_load_trim": "trimapp/policy.py:19 load"}
    assert "restricted_domain" not in report and "host_reads_not_carried" not in report
    later = report["validation"]["across_run"]["later_calls"]["calls"]
    assert any(c["call"] > 14 for c in later) and all(c["ok"] for c in later)
    yaml = (work / report["graph_yaml"]).read_text()
    assert "name: io_0_load_gain\n      dtype: float32\n      shape: [1]" in yaml
    assert tree_hash(work / "trimapp") == before


@pytest.mark.e2e
def test_a_read_returning_a_mode_name_is_refused_naming_its_line(tmp_path):
    work = project(tmp_path, "run_mode_read")
    before = tree_hash(work / "modeapp")
    generate(work, "modeapp", "modeapp.gait:GaitController.step")
    proc, report = run_json(work)
    assert proc.returncode == 1 and report["status"] == "partial" and report["failed_stage"] == "host-read"
    assert report["error"].startswith("partial pipeline: modeapp/gait.py:19: the step reads `load` and gets "
                                      "neither an array nor")
    assert any(h.startswith("modeapp/gait.py:19 io-in-pipeline") for h in report["host_runtime"])
    assert not report["models"]
    assert tree_hash(work / "modeapp") == before
    assert json.loads((work / "out" / "report.json").read_text()) == report


@pytest.mark.e2e
def test_a_file_text_turned_into_a_number_inside_the_step_is_refused_naming_its_line(tmp_path):
    """`float(open(p).read())`: no read function returns the number, so nothing can carry it; before
    this was refused the export kept the cap read while traced as a constant."""
    work = project(tmp_path, "run_text_read")
    before = tree_hash(work / "speedapp")
    generate(work, "speedapp", "speedapp.limiter:SpeedLimited.command")
    proc, report = run_json(work)
    assert proc.returncode == 1 and report["status"] == "partial" and not report["models"]
    assert report["error"].startswith("partial pipeline: speedapp/limiter.py:16: the step reads a file's text "
                                      "(`read()`)")
    assert report["proposed_split"] and any(h.startswith("speedapp/limiter.py:16 ") for h in report["host_runtime"])
    assert tree_hash(work / "speedapp") == before
