"""`generate` + `run` on inline entries end to end: real MuJoCo, LEAPP, torch and onnxruntime on CPU.
One run per fixture, shared by the assertions about it."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_doc_examples import doc_group, find_session

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
TOOL = [sys.executable, "-m", "leapp_codemod"]

ENTRIES = {
    "inline_mujoco": "deploy/sim2sim.py:61-66",
    "inline_state": "deploy/play.py:32-36",
    "inline_patch": "deploy/evaluate.py:22-26",
}
# The README's inline example generates and runs inline_mujoco's entry: that run is this module's too.
README_INLINE = find_session("fixtures/inline_mujoco")

pytestmark = pytest.mark.e2e
EACH_FIXTURE = pytest.mark.parametrize("ran", [      # one run per fixture (`ran` is module-scoped)
    pytest.param(name, marks=[pytest.mark.xdist_group(doc_group(README_INLINE))] if name == "inline_mujoco" else [])
    for name in sorted(ENTRIES)], indirect=True)


def tree_hash(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(TOOL + args, cwd=cwd, capture_output=True, text=True, timeout=400, check=False)


def _readme_run(doc_session) -> tuple:
    """inline_mujoco as the README runs it (`doc_session`): generate to ../../demo-out, run there."""
    assert f"generate deploy --entry {ENTRIES['inline_mujoco']} " in README_INLINE.steps[3].command
    before = {path: digest for path, digest in tree_hash(FIXTURES / "inline_mujoco" / "deploy").items()
              if "__pycache__" not in path}
    session = doc_session(README_INLINE)
    gen, proc = session.done[-2:]
    demo = session.cwd.parents[1] / "demo-out"
    report = json.loads((demo / "sim2sim" / "report.json").read_text())
    return "inline_mujoco", session.cwd, before, gen, proc, report, demo / "sim2sim_integration.py"


@pytest.fixture(scope="module")
def ran(request, tmp_path_factory, doc_session):
    fixture = request.param
    if fixture == "inline_mujoco":
        return _readme_run(doc_session)
    work = tmp_path_factory.mktemp(fixture)
    shutil.copytree(FIXTURES / fixture / "deploy", work / "deploy", ignore=shutil.ignore_patterns("__pycache__"))
    before = tree_hash(work / "deploy")
    gen = cli(["generate", "deploy", "--entry", ENTRIES[fixture], "-o", "integration.py"], work)
    assert gen.returncode == 0, gen.stderr
    proc = cli(["run", "integration.py", "--out", "out", "--format", "json"], work)
    report = json.loads(proc.stdout)
    return fixture, work, before, gen, proc, report, work / "integration.py"


@EACH_FIXTURE
def test_inline_pipeline_validates(ran):
    fixture, _, _, _, proc, report, _ = ran
    assert proc.returncode == 0, report.get("error")
    assert report["status"] == "validated" and report["entry"] == ENTRIES[fixture]
    assert report["validation"]["ok"] is True and len(report["validation"]["calls"]) == 3
    assert all(row["max_abs_error"] < 1e-4 for row in report["validation"]["outputs"].values())
    assert any(m.endswith(".onnx") for m in report["models"])


@EACH_FIXTURE
def test_driver_and_application_are_byte_identical_after_run(ran):
    _, work, before, *_ = ran
    after = tree_hash(work / "deploy")
    assert after == before


@EACH_FIXTURE
def test_what_each_fixture_exercises(ran):
    fixture, work, _, gen, _, report, module_path = ran
    module = module_path.read_text()
    assert "import sim2sim" not in module and "import play" not in module and "import evaluate" not in module
    if fixture == "inline_mujoco":
        assert set(report["validation"]["outputs"]) == {"action", "target"}
        assert 'INPUTS = ("qpos", "qvel")' in module and 'STATIC = ("command", "policy")' in module
    if fixture == "inline_state":       # the last action is LEAPP state, checked over a rollout from reset
        assert report["state"] == {"last_action": "self.last_action"}   # the owner path from the holder
        assert report["validation"]["state_inputs"] == {"last_action": "last_action_in"}
        assert report["validation"]["rollout_from_reset"]["ok"] is True
        yaml = (work / report["graph_yaml"]).read_text()
        assert "last_action_in" in yaml and "last_action_out" in yaml
    if fixture == "inline_patch":       # the helper bound in the driver by `from joint_utils import mirror`
        assert "1 function patches (0 to write)" in gen.stderr
        assert report["patch_parity"][0]["patch"] == "__main__.mirror" and report["patch_parity"][0]["ok"]
        assert report["twin_check"][0]["ok"] and report["twin_check"][0]["samples"] > 0


def test_record_refuses_an_inline_entry_in_one_line(tmp_path):
    shutil.copytree(FIXTURES / "inline_state" / "deploy", tmp_path / "deploy")
    assert cli(["generate", "deploy", "--entry", ENTRIES["inline_state"], "-o", "integration.py"],
               tmp_path).returncode == 0
    proc = cli(["record", "integration.py", "--out", "calls.npz"], tmp_path)
    assert proc.returncode != 0 and not (tmp_path / "calls.npz").exists()
    assert "replay function entries only" in proc.stderr
