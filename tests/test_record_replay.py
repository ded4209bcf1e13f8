"""`record` then `run --inputs`: trace, export and validate from a recording without the driver.

The generate, `record` and `run --inputs` of fixtures/run_locomotion are the README's (`doc_session`,
tests/conftest.py): they run once per worker, shared with the README example's test (one `xdist_group`).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import inprocess
import pytest
from test_doc_examples import doc_group, find_session

ROOT = Path(__file__).resolve().parents[1]
TOOL = [sys.executable, "-m", "leapp_codemod"]
ENTRY = "loco.policy:LocomotionPolicy.act"

README_RECORD = find_session("fixtures/run_locomotion")   # generate, record, run --inputs (and more)

pytestmark = pytest.mark.e2e


def cli(args, cwd, **env):
    environ = {k: v for k, v in os.environ.items() if k != "LOCO_SIMULATOR"}
    return subprocess.run(TOOL + args, cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
                          env=dict(environ, **env))


def app_hash(work: Path, without_pycache: bool = False) -> dict:
    return {p.relative_to(work).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((work / "loco").rglob("*")) + [work / "main.py"]
            if p.is_file() and not (without_pycache and "__pycache__" in p.parts)}


def one_line_error(proc) -> str:
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and not ln.startswith("[record] ")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


@dataclass
class Recorded:
    app: Path                   # the application's folder (a copy), where every command runs
    work: Path                  # what the README's /tmp/loco became: integration.py, calls.npz, out/
    no_sim: subprocess.CompletedProcess
    rec: subprocess.CompletedProcess
    replay: subprocess.CompletedProcess
    report: dict                # the replay's report.json


@pytest.fixture(scope="module")
def recorded(doc_session):
    ran = doc_session(README_RECORD)
    app, work = ran.cwd, ran.scratch / "loco"
    assert ran.of("leapp-codemod generate loco --entry loco.policy:LocomotionPolicy.act --driver main.py -o "
                  "/tmp/loco/integration.py").returncode == 0
    rec = ran.of("LOCO_SIMULATOR=up leapp-codemod record /tmp/loco/integration.py --out /tmp/loco/calls.npz "
                 "--allow-pickle")
    replay = ran.of("leapp-codemod run /tmp/loco/integration.py --inputs /tmp/loco/calls.npz --allow-pickle "
                    "--out /tmp/loco/out")
    # The driver needs its simulator: without it, `run` cannot work at all.
    no_sim = cli(["run", str(work / "integration.py"), "--out", str(work / "no_sim"), "--format", "json"], app)
    # the session's copy left __pycache__ out: a file compiled into it would show here
    assert app_hash(app) == app_hash(ROOT / "fixtures" / "run_locomotion", without_pycache=True), \
        "generate, record and run (--inputs) must not modify the application"
    return Recorded(app, work, no_sim, rec, replay, json.loads((work / "out" / "report.json").read_text()))


def in_app(recorded: Recorded, *args: str) -> list[str]:
    """`args` with the names of files in the recording's folder (`*.py`, `*.npz`, `--out` folders) made
    absolute there, for a command run in the application's folder."""
    return [str(recorded.work / a) if a.endswith((".py", ".npz")) or previous == "--out" else a
            for previous, a in zip(("",) + args, args)]


# The tests sharing `recorded` run on one worker with the README example's test (tests/conftest.py links
# the tests of one module fixture; this mark links them with the README session).
@pytest.mark.xdist_group(doc_group(README_RECORD))
def test_the_driver_cannot_run_here(recorded):
    no_sim = recorded.no_sim
    assert no_sim.returncode == 1
    assert "simulator not available" in json.loads(no_sim.stdout)["error"]


def test_replay_validates_without_the_driver(recorded):
    import onnx
    import onnxruntime  # noqa: F401 - the validation ran through it

    rec, replay, report = recorded.rec, recorded.replay, recorded.report
    assert "recorded 5 traced + 3 checked calls of loco.policy:LocomotionPolicy.act" in rec.stdout
    assert replay.returncode == 0, report.get("error")
    assert report["status"] == "validated"
    assert report["inputs"]["driver_started"] is False
    assert report["inputs"]["recorded_with"]["leapp"] == "0.7.2"
    onnx.checker.check_model(str(recorded.app / report["models"][0]))
    validation = report["validation"]
    assert [c["ok"] for c in validation["calls"]] == [True, True, True]
    assert validation["calls"][0]["state"] == "set"          # stateful: checks start from the recorded state
    assert validation["rollout_from_reset"]["ok"] and validation["rollout_from_reset"]["steps"] == 8
    assert validation["outputs"]["joint_pos_target"]["max_abs_error"] < 1e-4


def test_recording_format(recorded):
    work = recorded.work
    with zipfile.ZipFile(work / "calls.npz") as archive:
        names = set(archive.namelist())
        meta = json.loads(archive.read("meta.json"))
    assert meta["format"] == "leapp-codemod-calls" and meta["version"] == 1
    assert meta["entry"] == ENTRY and meta["traced"] == 5 and meta["checked"] == 3
    assert meta["state"] == ["last_action"]
    assert {"traced/0/joint_pos.npy", "checked/2/latent.npy", "checked/0/state_before/last_action.npy",
            "objects.pickle.npy"} <= names
    assert meta["arrays"]["traced/0/joint_pos"] == "torch"


def _rewrite_meta(src: Path, dst: Path, change) -> None:
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(dst, "w") as new:
        for item in old.namelist():
            data = old.read(item)
            if item == "meta.json":
                meta = json.loads(data)
                change(meta)
                data = json.dumps(meta).encode()
            new.writestr(item, data)


@pytest.mark.parametrize("change, message", [
    (lambda m: m.update(version=99), "recording format version 99 is not supported"),
    (lambda m: m.update(entry="loco.policy:Other.act"), "recorded for loco.policy:Other.act, not for"),
    (lambda m: m.update(inputs=["obs"]), "records inputs (obs) but"),
])
def test_a_recording_that_does_not_match_is_refused(recorded, change, message):
    work = recorded.work
    _rewrite_meta(work / "calls.npz", work / "bad.npz", change)
    proc = cli(in_app(recorded, "run", "integration.py", "--inputs", "bad.npz", "--out", "bad", "--allow-pickle"),
               recorded.app)
    assert proc.returncode == 2
    assert message in one_line_error(proc)


def test_other_shapes_are_refused(recorded):
    work = recorded.work
    _rewrite_meta(work / "calls.npz", work / "shapes.npz",
                  lambda m: m.update(layout=m["layout"].replace("latent:(1, 8)", "latent:(1, 16)")))
    proc = cli(in_app(recorded, "run", "integration.py", "--inputs", "shapes.npz", "--out", "shapes", "--format",
                      "json", "--allow-pickle"), recorded.app)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert "has input shapes" in report["error"] and "latent:(1, 8)" in report["error"]
    assert report["failed_stage"] == "inputs"


def test_too_few_recorded_calls_and_non_recordings(recorded):
    work = recorded.work
    proc = cli(in_app(recorded, "run", "integration.py", "--inputs", "calls.npz", "--checks", "9", "--out", "few",
                      "--allow-pickle"), recorded.app)
    assert proc.returncode == 2 and "5 + 9 are needed" in one_line_error(proc)
    (work / "junk.npz").write_bytes(b"not a zip")
    proc = cli(in_app(recorded, "run", "integration.py", "--inputs", "junk.npz", "--out", "junk"), recorded.app)
    assert proc.returncode == 2 and "not a leapp-codemod recording" in one_line_error(proc)


def test_a_method_entry_needs_allow_pickle_on_both_sides(recorded):
    work = recorded.work
    proc = cli(in_app(recorded, "record", "integration.py", "--out", "plain.npz"), recorded.app, LOCO_SIMULATOR="up")
    assert proc.returncode == 1 and "--allow-pickle" in one_line_error(proc)
    assert not (work / "plain.npz").exists()
    proc = cli(in_app(recorded, "run", "integration.py", "--inputs", "calls.npz", "--out", "refused"), recorded.app)
    assert proc.returncode == 2 and "pickled Python object" in one_line_error(proc)
    assert "warning" in recorded.rec.stderr and "runs code" in recorded.rec.stderr


def test_record_reports_a_failing_driver_in_one_line(recorded):
    work = recorded.work
    proc = cli(in_app(recorded, "record", "integration.py", "--out", "never.npz"), recorded.app)
    assert proc.returncode == 1
    assert "simulator not available" in one_line_error(proc)
    assert not (work / "never.npz").exists()


def test_numpy_function_entry_round_trips(tmp_path):
    work = tmp_path / "mlp"
    shutil.copytree(ROOT / "fixtures" / "run_mlp_numpy", work)
    assert inprocess.cli(["generate", "mlpapp", "--entry", "mlpapp.pipeline:step", "--driver", "main.py", "-o",
                          "i.py"], work).returncode == 0
    assert cli(["record", "i.py", "--out", "c.npz"], work).returncode == 0
    with zipfile.ZipFile(work / "c.npz") as archive:
        kinds = set(json.loads(archive.read("meta.json"))["arrays"].values())
        assert "objects.pickle.npy" not in archive.namelist()     # a function entry needs no pickle
    proc = cli(["run", "i.py", "--inputs", "c.npz", "--out", "o", "--format", "json"], work)
    report = json.loads(proc.stdout)
    assert proc.returncode == 0, report.get("error")
    assert report["status"] == "validated" and kinds == {"numpy"}
