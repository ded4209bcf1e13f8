"""`run` end to end on the fixtures: real LEAPP, torch and onnxruntime on CPU."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import inprocess

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
TOOL = [sys.executable, "-m", "leapp_codemod"]

pytestmark = pytest.mark.e2e


def cli(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(TOOL + args, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


def tree_hash(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def verdicts(doc) -> list[bool]:
    """The verdicts an external scorer reads from the JSON report (keys anywhere in it)."""
    found = []
    if isinstance(doc, dict):
        for key, value in doc.items():
            k = str(key).lower()
            if k in ("validated", "validation_passed", "valid", "passed") and isinstance(value, bool):
                found.append(value)
            elif k in ("status", "result", "validation") and isinstance(value, str):
                v = value.lower()
                if v in ("validated", "passed", "pass", "ok", "success"):
                    found.append(True)
                elif v in ("failed", "fail", "error", "not_validated", "mismatch"):
                    found.append(False)
            found += verdicts(value)
    elif isinstance(doc, list):
        for item in doc:
            found += verdicts(item)
    return found


def project(tmp_path: Path, fixture: str) -> Path:
    work = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, work, ignore=shutil.ignore_patterns("__pycache__"))
    return work


def generate(work: Path, app: str, entry: str, driver: str = "main.py", out: str = "integration.py") -> Path:
    proc = inprocess.cli(["generate", app, "--entry", entry, "--driver", driver, "-o", out], work)   # no process
    assert proc.returncode == 0, proc.stderr
    return work / out


def run_json(work: Path, module: str = "integration.py", *extra: str, timeout: float = 300):
    proc = cli(["run", module, "--out", "out", "--format", "json", *extra], work, timeout)
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1, f"stdout must be one JSON object, got: {proc.stdout[:500]}"
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    return proc, json.loads(lines[0])


def assert_validated(proc, report, work: Path) -> None:
    assert proc.returncode == 0, report.get("error")
    assert report["status"] == "validated"
    assert all(verdicts(report)), "a successful report must not carry a failing verdict"
    assert (work / report["graph_yaml"]).is_file()
    assert report["models"] and all((work / m).is_file() for m in report["models"])
    assert json.loads((work / "out" / "report.json").read_text()) == report
    assert report["validation"]["ok"] is True and report["validation"]["outputs"]
    for row in report["validation"]["outputs"].values():
        assert row["calls"] == 3 and row["max_abs_error"] < 1e-4


@pytest.mark.real_spawn    # a fresh interpreter for the child, as users run it (tests/conftest.py)
def test_mlp_with_numpy_preprocessing_validates_and_leaves_the_app_untouched(tmp_path):
    work = project(tmp_path, "run_mlp_numpy")
    before = tree_hash(work)
    module = generate(work, "mlpapp", "mlpapp.pipeline:step")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["format"] == "onnx" and report["backend"] == "onnx" and report["substitute"] is False
    assert list(report["validation"]["outputs"]) == ["command"]
    assert report["calls"]["traced"] == [1, 2, 3, 4, 5] and report["calls"]["checked"] == [6, 7, 8]
    assert sorted(p.suffix for p in (work / "out" / "step").iterdir()) == [".onnx", ".png", ".txt", ".yaml"]
    after = tree_hash(work)
    for rel in before:
        assert after[rel] == before[rel], f"{rel} changed"
    assert not [p for p in after if p not in before and not p.startswith("out/") and p != module.name]


def test_method_entry_with_two_outputs_and_a_required_format(tmp_path):
    work = project(tmp_path, "run_method")
    generate(work, "armapp", "armapp.policy:ArmPolicy.act")
    proc, report = run_json(work, "integration.py", "--require-format", "jit-script")
    assert_validated(proc, report, work)
    assert report["requested_format"] == "jit" and report["format"] == "jit"
    assert [a["backend"] for a in report["attempts"]] == ["jit-script"]
    assert sorted(report["validation"]["outputs"]) == ["grip", "targets"]


def test_patch_twin_validates_a_stub_refuses_and_a_wrong_body_is_refused_before_tracing(tmp_path):
    work = project(tmp_path, "run_patch")
    module = generate(work, "reachapp", "reachapp.policy:ReachPolicy.act")
    text = module.read_text()
    body = "    dist = twin_scalar(delta.norm())\n    return twin_min(1.0, dist / radius)\n"
    assert "def speed_scale_traceable(delta, radius):" in text and body in text     # a traceable twin
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    parity = report["patch_parity"]
    assert parity[0]["patch"] == "reachapp.policy.scale_for" and parity[0]["ok"] and parity[0]["calls"] == 3
    assert report["twin_check"][0]["ok"] and report["twin_check"][0]["samples"] > 0

    shutil.rmtree(work / "out")
    module.write_text(text.replace(body, "    raise NotImplementedError(STUB)\n"))     # what a refused twin leaves
    proc, report = run_json(work)
    assert proc.returncode == 1 and report["status"] == "failed"
    stub = report["stubs"][0]
    assert stub["function"] == "speed_scale_traceable" and stub["patches"] == ["reachapp.policy.scale_for"]
    assert re.fullmatch(r"integration\.py:\d+", stub["at"])
    assert stub["hazards"][0].startswith("reachapp/shaping.py:3 scalar-extraction")
    assert "speed_scale_traceable" in proc.stderr and "reachapp/shaping.py:3" in proc.stderr
    assert not (work / "out" / "attempts").exists()           # refused before running anything

    module.write_text(text.replace("twin_min(1.0, dist / radius)", "twin_min(0.1, dist / radius)"))  # a wrong body
    proc, report = run_json(work)
    assert proc.returncode == 1 and report["status"] == "failed" and report["failed_stage"] == "twin-check"
    assert not report["twin_check"][0]["ok"] and not (work / "out" / "attempts").exists()
    assert "scale_for" in report["error"] and "reachapp/shaping.py:3" in report["error"]


def test_recurrent_state_validates_over_steps_and_after_reset(tmp_path):
    work = project(tmp_path, "run_recurrent")
    module = generate(work, "memapp", "memapp.policy:RecurrentPolicy.act")
    assert '"memory_h": ("memapp.model:Memory", "h")' in module.read_text()
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["state"] == {"memory_h": "self.memory.h", "prev_action": "self.prev_action"}
    assert [o["explained_by"].startswith("STATE[") for o in report["state_observed"]] == [True, True]
    # check calls 6, 7, 8: synced from the app, then the driver's reset before call 7, then carried
    assert [c["state"] for c in report["validation"]["calls"]] == ["set", "reset", "carried"]
    rollout = report["validation"]["rollout_from_reset"]
    assert rollout["ok"] and rollout["steps"] == 8


def test_a_preallocated_observation_buffer_is_declared_as_state_and_validates(tmp_path):
    """`self.obs = np.zeros(n)` filled slice by slice each step (LCM703): untraced as written; declared as
    LEAPP state by the generated module, the writes trace and the export matches on fresh calls."""
    work = project(tmp_path, "run_buffer")
    before = tree_hash(work)
    module = generate(work, "legapp", "legapp.controller:Controller.step")
    assert '"obs": ("legapp.controller:Controller", "obs")' in module.read_text()
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["state"] == {"obs": "self.obs"}
    after = tree_hash(work)
    assert all(after[rel] == before[rel] for rel in before)


def test_recurrent_state_the_module_does_not_declare_is_found_by_observation(tmp_path):
    work = project(tmp_path, "run_recurrent")
    module = generate(work, "memapp", "memapp.policy:RecurrentPolicy.act")
    text = re.sub(r"STATE: dict\[str, tuple\[str, str\]\] = \{.*?\n\}", "STATE = {}", module.read_text(),
                  flags=re.DOTALL)
    module.write_text(text)
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["state"] == {"memory_h": "self.memory.h", "prev_action": "self.prev_action"}
    rows = {o["owner_path"]: o for o in report["state_observed"]}
    assert rows["self.memory.h"]["shape"] == [1, 16] and rows["self.memory.h"]["dtype"] == "torch.float32"
    assert all(o["explained_by"] != "" for o in rows.values())
    assert report["validation"]["rollout_from_reset"]["ok"]


@pytest.mark.parametrize(("driver", "entry", "message"), [
    ("main_crash.py", "Pipeline.act", r"the driver crashed at main_crash\.py:10: RuntimeError: sensor bus lost"),
    ("main_few.py", "Pipeline.act", r"called failapp\.pipeline:Pipeline\.act 3 times .* 8 are needed"),
    ("main_never.py", "Pipeline.act", r"the driver never called failapp\.pipeline:Pipeline\.act"),
    ("main_gain.py", "Pipeline.act_scaled", (r"argument 'gain' of Pipeline\.act_scaled holds values that are not "
                                             r"tensors or arrays and change between calls \(0\.5 then 1\.0\)")),
])
def test_bad_situations_fail_with_one_clear_line(tmp_path, driver, entry, message):
    work = project(tmp_path, "run_failures")
    before = tree_hash(work)
    generate(work, "failapp", f"failapp.pipeline:{entry}", driver=driver)
    proc = cli(["run", "integration.py", "--out", "out"], work)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    first = proc.stdout.splitlines()[0]
    assert re.search(message, first), first
    report = json.loads((work / "out" / "report.json").read_text())
    assert report["status"] == "failed"
    after = tree_hash(work)
    assert all(after[rel] == digest for rel, digest in before.items())


def test_export_failure_points_at_the_responsible_line(tmp_path):
    """One run answers both: the one clear line of a failed export (as the bad situations above) and the
    report's evidence for the line responsible."""
    work = project(tmp_path, "run_failures")
    before = tree_hash(work)
    module = generate(work, "failapp", "failapp.pipeline:Pipeline.solve", driver="main_solve.py")
    proc, report = run_json(work)            # `svd` has no adapter: its stub stops `run` before tracing
    assert proc.returncode == 1 and report["error"].startswith("stub not written: failapp/pipeline.py:16 ")
    text = module.read_text()                # without the stub's patch, the untraced call fails the export
    module.write_text(re.sub(r"PATCHES: tuple\[Patch, \.\.\.\] = \(\n(    .*\n)*\)\n", "PATCHES: tuple = ()\n", text))
    shutil.rmtree(work / "out")
    proc = cli(["run", "integration.py", "--out", "out"], work)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    first = proc.stdout.splitlines()[0]
    assert re.search(r"computation was lost while tracing: .*received non-traced tensors.*first line that can "
                     r"explain it: failapp/pipeline\.py:16 unmapped-numpy", first), first
    report = json.loads((work / "out" / "report.json").read_text())
    assert report["status"] == "failed"
    after = tree_hash(work)
    assert all(after[rel] == digest for rel, digest in before.items())
    assert {a["failed_stage"] for a in report["attempts"]} == {"tracing"}
    confirmed = report["findings_confirmed"]
    assert confirmed and confirmed[0]["finding"].startswith("failapp/pipeline.py:16 unmapped-numpy")
    assert confirmed[0]["evidence"][0]["at"] == "failapp/pipeline.py:16"


def test_fresh_input_check_catches_a_branch_leapp_validation_misses(tmp_path):
    work = project(tmp_path, "run_gain")
    generate(work, "gainapp", "gainapp.policy:GainPolicy.act")
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert proc.returncode == 1 and report["status"] == "failed"
    first = report["attempts"][0]
    assert first["leapp_validation"] == {"gain_policy": True}      # every traced call took the same branch
    assert first["failed_stage"] == "validation" and first["validation"]["ok"] is False
    assert report["validation"]["outputs"]["output"]["max_abs_error"] > 0.1
    confirmed = report["findings_confirmed"][0]
    assert confirmed["finding"].startswith("gainapp/policy.py:12 tensor-branch")
    assert confirmed["evidence"][0] == {"signal": "tensor-branch", "at": "gainapp/policy.py:12", "match": "line",
                                        "message": confirmed["evidence"][0]["message"]}
    assert report["explained_by"][0].startswith("gainapp/policy.py:12")
    # the branch was baked into the trace: no other exporter can recover it, so none is tried
    assert len(report["attempts"]) == 1 and report["failed_stage"] == "validation"
    lost = report["lost_computation"]
    assert lost["reason"].startswith("LEAPP tensor-branch signal at gainapp/policy.py:12")
    assert lost["explained_by"][0].startswith("gainapp/policy.py:12")
    assert report["error"].startswith("computation was lost while tracing")


def test_a_random_draw_in_the_step_becomes_a_noise_input_the_host_feeds(tmp_path):
    work = project(tmp_path, "run_partial")
    module = generate(work, "noiseapp", "noiseapp.policy:NoisyPolicy.act")
    assert "random-in-pipeline" in module.read_text()
    proc, report = run_json(work, "integration.py", "--require-format", "onnx")
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert report["noise_inputs"] == {"noise_0_randn_like": "noiseapp/policy.py:13 randn_like"}
    assert "noise_0_randn_like" in (work / report["graph_yaml"]).read_text()


@pytest.mark.real_spawn    # a fresh interpreter for the child, as users run it (tests/conftest.py)
def test_timeout_stops_the_run(tmp_path):
    work = project(tmp_path, "run_failures")
    generate(work, "failapp", "failapp.pipeline:Pipeline.act", driver="main_slow.py")
    proc = cli(["run", "integration.py", "--out", "out", "--timeout", "3"], work, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0].startswith("failed: timed out after 3 s")


def test_usage_errors_exit_2(tmp_path):
    (tmp_path / "plain.py").write_text("print('not an integration module')\n")
    proc = cli(["run", "plain.py"], tmp_path)
    assert proc.returncode == 2 and "not an integration module" in proc.stderr
    proc = cli(["run", "missing.py", "--format", "json"], tmp_path)
    assert proc.returncode == 2 and json.loads(proc.stdout)["status"] == "failed"


def _children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.real_spawn    # a fresh interpreter for the child, as users run it (tests/conftest.py)
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_run_stops_the_drivers_whole_process_group(tmp_path, signum):
    work = project(tmp_path, "run_failures")
    generate(work, "failapp", "failapp.pipeline:Pipeline.act", driver="main_spin.py")
    proc = subprocess.Popen(TOOL + ["run", "integration.py", "--out", "out"], cwd=work, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    log = work / "out" / "run.log"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (log.is_file() and "driver loop started" in log.read_text()):
        time.sleep(0.2)
    assert "driver loop started" in log.read_text()
    (child,) = [p for p in _children_of(proc.pid) if "runner.child" in Path(f"/proc/{p}/cmdline").read_text()]
    assert _group_alive(child) and len([p for p in _children_of(child)]) == 1   # the driver's own helper
    proc.send_signal(signum)
    stopped = time.monotonic()
    while _group_alive(child) and time.monotonic() - stopped < 5:
        time.sleep(0.1)
    assert not _group_alive(child), "the child's process group survived the signal"
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum
    assert f"interrupted by {signal.Signals(signum).name}" in err and "Traceback" not in err
    assert json.loads((work / "out" / "report.json").read_text())["failed_stage"] == "interrupted"
