"""`scan --driver` / `scan --inputs`: pipelines assembled at run time, found by watching them run.

Each fixture marks its hazards in the source (`# expect: CATEGORY[, CATEGORY]`, `; static only` for a
block guarded by data that did not run) and the lines that must not be flagged (`# clean`: blocks ruled
out by observed settings, or code the observed run never reached)."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import inprocess
import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
TOOL = [sys.executable, "-m", "leapp_codemod"]

CASES = {   # fixture: (driver, the file:line of the call only the observation resolves)
    "observed_yaml_target": ("main.py", "ctrl/pipeline.py", "return self.policy.act(x)"),
    "observed_importlib_plugin": ("main.py", "runner.py", "return self.policy.predict(obs)"),
    "observed_jit_wrapped": ("deploy/run.py", "deploy/wrapper.py", "x = self.pre(obs)"),
    "observed_env_registry": ("main.py", "robot/controller.py", "action = self.policy.compute(obs)"),
    "observed_middleware_callback": ("main.py", "app/policy.py", "x = self.filter(obs)"),
}
# the fixtures where a static scan lists that call as not followed (the others resolve it some other way;
# `getattr(filters, name)()` resolves statically to every class of that module)
NOT_FOLLOWED = ("observed_yaml_target",)
EXPECT = re.compile(r"#\s*expect:\s*([a-z0-9, -]+?)(;\s*static only)?\s*$")


def markers(app: Path) -> tuple[dict, set]:
    """({(path, line): (categories, seen)}, {(path, line)} clean)."""
    expected, clean = {}, set()
    for path in sorted(app.rglob("*.py")):
        rel = path.relative_to(app).as_posix()
        for number, text in enumerate(path.read_text().splitlines(), 1):
            m = EXPECT.search(text)
            if m:
                cats = frozenset(c.strip() for c in m.group(1).split(","))
                expected[(rel, number)] = (cats, "static only" if m.group(2) else "seen running")
            elif text.rstrip().endswith("# clean"):
                clean.add((rel, number))
    return expected, clean


def tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and ".leapp-codemod" not in p.parts and "__pycache__" not in p.parts:
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def scan(work: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    """`scan` in its own process when it runs the driver (`--driver`, `--inputs`: the observer's child);
    a static scan in this process (tests/inprocess.py: what it prints and returns, without a start-up)."""
    command = ["scan", ".", "--format", "json", "--no-cache", *args]
    if {"--driver", "--inputs"} & set(args):
        proc = subprocess.run(TOOL + command, cwd=work, capture_output=True, text=True, timeout=300, check=False)
    else:
        proc = inprocess.cli(command, work)
    assert proc.returncode in (0, 1), proc.stderr
    return proc, json.loads(proc.stdout)


def found(document: dict) -> dict:
    out: dict = {}
    for f in document["findings"]:
        cats, seen = out.get((f["path"], f["line"]), (frozenset(), set()))
        out[(f["path"], f["line"])] = (cats | {f["category"]}, seen | {f.get("seen")})
    return out


def copy(name: str, tmp_path: Path) -> Path:
    work = tmp_path / name
    shutil.copytree(FIXTURES / name, work, ignore=shutil.ignore_patterns("__pycache__", ".leapp-codemod"))
    return work


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_driver_shows_every_hazard_of_a_pipeline_assembled_at_run_time(name, tmp_path):
    work = copy(name, tmp_path)
    driver, call_file, call_text = CASES[name]
    expected, clean = markers(work)
    assert expected and clean
    before = tree_hash(work)

    _, static = scan(work)
    static_found = found(static)
    # the static scan alone misses the observed code, or (resolving a registry by every class it may hold)
    # also reports code the observed run rules out
    assert not (set(expected) <= set(static_found)) or set(static_found) & clean
    assert not (work / ".leapp-codemod").exists()
    call_line = next(i for i, t in enumerate((work / call_file).read_text().splitlines(), 1) if call_text in t)
    if name in NOT_FOLLOWED:        # without the driver the call it resolves is listed as not followed
        assert any(n["path"] == call_file and n["line"] == call_line for n in static["not_followed"])

    proc, observed = scan(work, "--driver", driver)
    got = found(observed)
    assert {k: v[0] for k, v in got.items()} == {k: v[0] for k, v in expected.items()}
    for where, (_, seen) in expected.items():
        assert got[where][1] == {seen}, where
    assert not clean & set(got)
    note = observed["observed_note"]
    assert re.match(rf"observed: 3 calls of \S+ from {re.escape(driver)}, \d+ functions, [1-9]\d* resolved by "
                    r"observation only$", note), note
    assert tree_hash(work) == before                      # the application is never modified
    saved = json.loads((work / ".leapp-codemod" / "observed.json").read_text())
    assert saved["schema"] == "leapp-codemod-observed" and str(work) not in json.dumps(saved)
    assert any(e["caller"].startswith(f"{call_file}:") and e["line"] == call_line for e in saved["edges"])

    if name in NOT_FOLLOWED:        # with it, not any more
        assert not any(n["path"] == call_file and n["line"] == call_line for n in observed["not_followed"])

    # the saved observation is used while fresh: the same findings without running anything
    _, again = scan(work)
    assert found(again) == got and again["observed_note"] == note


def test_text_output_names_the_observation_and_each_finding_says_whether_it_ran(tmp_path):
    work = copy("observed_yaml_target", tmp_path)
    proc = subprocess.run(TOOL + ["scan", ".", "--driver", "main.py", "--no-cache", "--observe-calls", "2"],
                          cwd=work, capture_output=True, text=True, timeout=300, check=False)
    lines = proc.stdout.splitlines()
    assert lines[1] == ("observed: 2 calls of ctrl.pipeline:Pipeline.step from main.py, 2 functions, "
                        "1 resolved by observation only")
    assert any(ln.endswith("(seen running)") for ln in lines) and any(ln.endswith("(static only)") for ln in lines)


def test_a_stale_observation_is_ignored_with_a_note(tmp_path):
    work = copy("observed_importlib_plugin", tmp_path)
    _, observed = scan(work, "--driver", "main.py")
    assert any(f["path"] == "plugins/leaky.py" for f in observed["findings"])
    leaky = work / "plugins" / "leaky.py"
    leaky.write_text(leaky.read_text() + "\n# edited\n")
    _, stale = scan(work)
    assert stale["observed_note"] == (".leapp-codemod/observed.json: stale (plugins/leaky.py changed since it "
                                      "was observed); ignored (run scan --driver again)")
    assert not any(f["path"] == "plugins/leaky.py" for f in stale["findings"])
    assert all("seen" not in f for f in stale["findings"])


def test_lint_uses_a_fresh_observation_and_runs_nothing(tmp_path):
    work = copy("observed_importlib_plugin", tmp_path)   # the plugin module is named on the command line
    lint = ["lint", "plugins/leaky.py", "--format", "json", "--no-cache"]      # in this process: it runs nothing
    before = inprocess.cli(lint, work)
    assert not any(f.get("seen") == "seen running" for f in json.loads(before.stdout)["findings"])   # no observation
    scan(work, "--driver", "main.py")
    (work / "main.py").write_text("raise SystemExit('lint must not run the driver')\n")   # not a covered file
    started = time.monotonic()
    after = inprocess.cli(lint, work)
    assert after.returncode == 1, after.stderr
    findings = json.loads(after.stdout)["findings"]
    assert sorted(f["code"] for f in findings) == ["LCM101", "LCM102", "LCM201", "LCM501", "LCM702"]
    assert "seen running" in {f["seen"] for f in findings} and time.monotonic() - started < 30
    (work / "plugins" / "leaky.py").write_text((work / "plugins" / "leaky.py").read_text() + "\n")
    stale = inprocess.cli(lint, work)
    assert not any(f.get("seen") == "seen running" for f in json.loads(stale.stdout)["findings"])
    assert "stale (plugins/leaky.py changed" in stale.stderr


@pytest.mark.e2e
@pytest.mark.parametrize("name", ["observed_yaml_target", "observed_middleware_callback"])
def test_replaying_a_recording_gives_the_findings_of_the_driver(name, tmp_path):
    work = copy(name, tmp_path)
    driver, _, _ = CASES[name]
    entry = next(ln.split('"')[1] for ln in (work / "pyproject.toml").read_text().splitlines() if ln.startswith("entry"))
    out = tmp_path / "out"
    generated = inprocess.cli(["generate", ".", "--entry", entry, "--driver", driver, "-o",
                               str(out / "integration.py")], work)
    assert generated.returncode == 0, generated.stderr
    rec = subprocess.run(TOOL + ["record", str(out / "integration.py"), "--out", str(out / "calls.npz"),
                                 "--allow-pickle"], cwd=work,
                         capture_output=True, text=True, timeout=300, check=False)
    assert rec.returncode == 0, rec.stderr
    _, by_driver = scan(work, "--driver", driver)
    shutil.rmtree(work / ".leapp-codemod")
    _, by_inputs = scan(work, "--inputs", str(out / "calls.npz"), "--allow-pickle")
    assert found(by_inputs) == found(by_driver) and by_driver["findings"]
    assert by_inputs["observed_note"].startswith("observed: 3 calls of ")


def test_generate_uses_a_fresh_observation(tmp_path):
    work = copy("observed_importlib_plugin", tmp_path)
    out = tmp_path / "out"

    def generate() -> str:
        proc = inprocess.cli(["generate", ".", "--entry", "runner:Runner.step", "--driver", "main.py", "-o",
                              str(out / "integration.py"), "--force"], work)
        assert proc.returncode == 0, proc.stderr
        return (out / "integration.py").read_text()

    assert "plugins/leaky.py" not in generate()
    scan(work, "--driver", "main.py")
    assert "plugins/leaky.py:21" in generate()          # the negative stride the observation reached
