"""A random draw inside the step that does not reach the outputs (a Gaussian actor's sample computed
next to the mean the deploy returns): `run` carries draws out as host-fed inputs, but this one is no
input of the exported graph, so the report must not tell the host to feed it (real LEAPP, torch,
onnxruntime). Before, the verdict listed `noise input ...: fed by the host` for an input the YAML
does not have."""
from __future__ import annotations

import pytest
import yaml
from test_run import cli, project, run_json

pytestmark = pytest.mark.e2e


def test_a_draw_that_does_not_reach_the_outputs_is_not_reported_as_a_fed_input(tmp_path):
    work = project(tmp_path, "run_unused_draw")
    gen = cli(["generate", "arm", "--entry", "arm.actor:ArmDeploy.act", "--driver", "main.py", "-o",
               "integration.py"], work)
    assert gen.returncode == 0, gen.stderr
    proc, report = run_json(work)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    doc = yaml.safe_load((work / report["graph_yaml"]).read_text())
    graph_inputs = {t["name"] for m in doc["models"].values() for t in m.get("inputs") or []}
    assert not set(report.get("noise_inputs") or {}) - graph_inputs
    assert [s.split(" ")[0] for s in report["noise_not_reaching_outputs"]] == ["arm/actor.py:14"]
    text = cli(["run", "integration.py", "--out", "out_text"], work)
    assert "arm/actor.py:14 randn_like: does not reach the outputs" in text.stdout
    assert "fed by the host" not in text.stdout
