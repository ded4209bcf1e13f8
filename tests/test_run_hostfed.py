"""I/O reads inside the step are inputs the host feeds: the draws' mechanism carries each array read
(`np.fromfile`, `np.loadtxt`, ...) out as `io_<i>_<function>`, recorded on every call, replayed and
varied in validation; the exported model takes the read value as an input instead of a constant."""
from __future__ import annotations

import types

import numpy as np
import pytest

from leapp_codemod.runner.draws import (
    READ_PREFIX,
    Draws,
    for_module,
    ports,
    report,
    varied_reads,
)
from tests.test_run import generate, project, run_json, tree_hash

READ = ("imuapp/balance.py:20 io-in-pipeline: `np.fromfile(p)` performs I/O inside the pipeline "
        "(`numpy.fromfile`); the exported model drops it")
PRINT = "imuapp/balance.py:24 io-in-pipeline: `print(x)` performs I/O inside the pipeline (`print()`); dropped"


def test_a_left_out_read_turns_the_read_wrappers_on_a_print_does_not():
    module = types.SimpleNamespace(HOST_RUNTIME=(), LEFT_OUT=(READ, PRINT))
    d = for_module(module)
    assert d is not None and d.kinds == (READ_PREFIX,)
    assert for_module(types.SimpleNamespace(HOST_RUNTIME=(), LEFT_OUT=(PRINT,))) is None


def test_reads_and_draws_share_one_queue_with_ports_numbered_per_kind():
    d = Draws(kinds=("noise", READ_PREFIX))
    seq = iter([np.full(3, 1.0), np.full(3, 2.0), np.full(2, 3.0)])
    read = d._wrap(lambda *a, **k: next(seq), "fromfile", READ_PREFIX)
    draw = d._wrap(lambda *a, **k: next(seq), "normal")
    loads = d._wrap(lambda *a, **k: {"mode": "walk", "legs": 4}, "load", READ_PREFIX)
    with d.recording() as got:
        read("a.bin")
        draw()
        read("b.bin")
        loads("cal.json")                       # neither an array nor a float: not carried
    assert list(ports(got)) == ["io_0_fromfile", "noise_0_normal", "io_1_fromfile"]
    assert ports(got)["io_1_fromfile"].tolist() == [3.0, 3.0]
    with d.replaying(got):
        d.active = True
        assert read("a.bin").tolist() == [1.0, 1.0, 1.0]  # replayed, the file is not read again
    rep = report(d)
    assert rep["host_read_inputs"] == {} and rep["noise_inputs"] == {}    # nothing traced yet
    assert len(rep["host_reads_not_carried"]) == 1 and rep["host_reads_not_carried"][0].endswith(" load")
    assert "noise_not_carried" not in rep


def test_varied_reads_change_the_reads_and_keep_the_draws():
    one = (("fromfile", "s:1", np.array([0.0, 1.0], np.float32), READ_PREFIX),
           ("normal", "s:2", np.array([5.0]), "noise"))
    two = (("fromfile", "s:1", np.array([0.5, 2.0], np.float32), READ_PREFIX),
           ("normal", "s:2", np.array([6.0]), "noise"))
    out = varied_reads(one, [one, two], seed=3)
    assert out[1][2].tolist() == [5.0] and out[1][3] == "noise"
    assert not np.array_equal(out[0][2], one[0][2]) and out[0][2].dtype == np.float32
    assert 0.0 <= out[0][2][0] <= 0.5 and 1.0 <= out[0][2][1] <= 2.0


@pytest.mark.e2e
def test_a_sensor_bias_read_inside_the_step_is_a_graph_input_the_host_feeds(tmp_path):
    """The driver rewrites the bias file at call 26: the calls sampled after it validate only
    because the read is an input fed with what the application read on each call. A second read
    feeds only a log line: the graph does not use it, it is named and dropped (not a domain limit)."""
    work = project(tmp_path, "run_hostfed_offset")
    before = tree_hash(work / "imuapp")
    generate(work, "imuapp", "imuapp.balance:BalanceController.step", driver="run_balance.py")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert report["host_read_inputs"] == {"io_0_fromfile": "imuapp/balance.py:20 fromfile"}
    assert report["host_reads_not_reaching_outputs"] == ["imuapp/balance.py:23 loadtxt"]   # only logged
    later = report["validation"]["across_run"]["later_calls"]["calls"]
    assert any(c["call"] > 26 for c in later) and all(c["ok"] for c in later)
    assert report["validation"]["across_run"]["perturbed"]["ok"] is True
    yaml = (work / report["graph_yaml"]).read_text()
    assert "name: io_0_fromfile" in yaml
    assert "restricted_domain" not in report
    assert tree_hash(work / "imuapp") == before
