"""A MuJoCo sim2sim loop written as deploy scripts are (a step counter driving a gait clock, a frame
history deque, a TorchScript policy, a driver that needs its config file): `generate --entry` on the
whole observation-to-action range, then `run`, validates. Real MuJoCo, LEAPP, torch, onnxruntime."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.test_run_inline import FIXTURES, TOOL, cli, tree_hash

pytestmark = pytest.mark.e2e
RANGE = "deploy/sim2sim.py:61-70"


@pytest.fixture(scope="module")
def gait(tmp_path_factory):
    work = tmp_path_factory.mktemp("inline_gait")
    shutil.copytree(FIXTURES / "inline_gait" / "deploy", work / "deploy", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "export_policy.py", "policy.pt"], cwd=work / "deploy", check=True, timeout=120)
    before = tree_hash(work / "deploy")
    gen = cli(["generate", "deploy", "--entry", RANGE, "-o", "integration.py", "--driver-args", "deploy/walker.yaml"],
              work)
    assert gen.returncode == 0, gen.stderr
    proc = subprocess.run(TOOL + ["run", "integration.py", "--out", "out", "--format", "json"], cwd=work,
                          capture_output=True, text=True, timeout=400, check=False)
    return work, before, (work / "integration.py").read_text(), proc, json.loads(proc.stdout)


def test_the_whole_observation_to_action_range_validates(gait):
    work, before, _, proc, report = gait
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert report["driver_args"] == ["deploy/walker.yaml"]       # from the module's DRIVER_ARGS
    assert report["validation"]["rollout_from_reset"]["ok"] is True
    assert tree_hash(work / "deploy") == before                    # the application is never modified


def test_the_counter_moves_to_the_host_and_the_simulator_state_is_read_per_attribute(gait):
    _, _, module, _, report = gait
    assert 'INPUTS = ("data_qpos", "data_qvel", "clock")' in module
    assert 'DRIVER_ARGS = ("deploy/walker.yaml",)' in module
    assert "line(s) 63, 64 compute from the counter `counter`" in module
    yaml = (gait[0] / report["graph_yaml"]).read_text()
    assert "name: clock" in yaml and "counter" not in yaml


def test_the_frame_history_is_one_stacked_state_port(gait):
    _, _, module, _, report = gait
    assert '"history": ("leapp_codemod.runner.inline:InlineState", "history")' in module
    assert set(report["state"]) == {"history", "last_action"}
    yaml = (gait[0] / report["graph_yaml"]).read_text()
    assert "history_in" in yaml and "shape: [3, 12]" in yaml and "history_0" not in yaml


def test_a_phase_written_into_a_preallocated_buffer_validates(tmp_path):
    """Another shape: the loop index `step` drives the phase, which joins the observation only inside
    `obs[2n:2n+2] = np.array([...])` on a preallocated buffer; a traced TorchScript policy; a JSON
    settings file the driver needs. The lifted expression is the input."""
    work = tmp_path / "pb"
    shutil.copytree(FIXTURES / "inline_phase_buffer" / "deploy", work / "deploy")
    before = tree_hash(work / "deploy")
    gen = cli(["generate", "deploy", "--entry", "deploy/play.py:35-42", "-o", "integration.py",
               "--driver-args", "deploy/trot.json"], work)
    assert gen.returncode == 0, gen.stderr
    module = (work / "integration.py").read_text()
    assert 'INPUTS = ("q", "dq", "host_l39")' in module and "counter `step`" in module
    proc = subprocess.run(TOOL + ["run", "integration.py", "--out", "out", "--format", "json"], cwd=work,
                          capture_output=True, text=True, timeout=400, check=False)
    report = json.loads(proc.stdout)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert "name: host_l39" in (work / report["graph_yaml"]).read_text()
    assert tree_hash(work / "deploy") == before
