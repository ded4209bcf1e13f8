"""`entrypoints --driver`: ranking from an observed run (pure part), and real observed runs."""
from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from leapp_codemod.analysis.inline.suggest import suggest_range
from leapp_codemod.analysis.entry.observed import rank_observed

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
TOOL = [sys.executable, "-m", "leapp_codemod"]


def record(file, line, qualname, calls, distinct, module, ancestors=(), returns=True, chain=()):
    return {"file": str(file), "line": line, "qualname": qualname, "calls": calls, "distinct_inputs": distinct,
            "array_args": distinct > 0, "returns_array": returns, "reaches_module": module,
            "chain": [list(c) for c in chain], "ancestors": list(ancestors), "order": 0}


def test_the_outermost_function_that_runs_a_module_on_changing_inputs_ranks_first(tmp_path):
    f = tmp_path / "policy.py"
    f.write_text("")
    act = record(f, 10, "Policy.act", 30, 30, True, chain=[(tmp_path / "main.py", 7, "run")])
    forward = record(f, 3, "Net.forward", 30, 30, True, ancestors=[f"{f}:10:Policy.act"])
    helper = record(f, 20, "normalize", 30, 30, False)                     # no module inside
    constant = record(f, 25, "Policy.reset", 30, 1, True)                 # inputs never change
    once = record(tmp_path / "main.py", 5, "run", 1, 1, True)             # the driver loop itself
    ranked = rank_observed({"functions": [forward, helper, constant, once, act], "sites": []})
    assert [e.entry for e in ranked] == ["policy:Policy.act", "policy:Net.forward"]
    assert ranked[0].score > ranked[1].score and "outermost" in " ".join(ranked[0].reasons)
    assert ranked[0].chain[-1].endswith("policy.py:10 Policy.act") and "main.py:7 run" in ranked[0].chain[0]


def test_a_module_called_from_a_loop_frame_is_an_inline_candidate_with_its_range(tmp_path):
    shutil.copy(FIXTURES / "inline_mujoco" / "deploy" / "sim2sim.py", tmp_path / "sim2sim.py")
    main = record(tmp_path / "sim2sim.py", 45, "main", 1, 0, True)
    pd = record(tmp_path / "sim2sim.py", 41, "pd_control", 80, 80, False)
    site = {"file": str(tmp_path / "sim2sim.py"), "line": 65, "count": 20, "frame": "main",
            "frame_key": f"{tmp_path / 'sim2sim.py'}:45:main"}
    ranked = rank_observed({"functions": [main, pd], "sites": [site]})
    assert len(ranked) == 1 and ranked[0].kind == "inline"
    assert (ranked[0].start, ranked[0].end) == (61, 66) and ranked[0].entry.endswith("sim2sim.py:61-66")
    assert any("--entry" in r for r in ranked[0].reasons)


SUGGEST = '''import numpy as np

def loop(env, policy, n):
    prev = np.zeros(2)
    q = np.zeros(2)
    for i in range(n):
        raw = env.read()
        q = q + raw
        feats = np.concatenate([q, prev])
        feats = feats / 2
        out = policy(feats)
        cmd = out * 3
        prev = cmd
        q = q - cmd
        env.write(cmd)
'''


def test_suggested_range_stops_at_the_simulator_and_the_loop_update():
    found = suggest_range(ast.parse(SUGGEST), 11)
    assert (found.start, found.end) == (9, 13)      # not `q = q + raw` (carried), not `q = q - cmd` (update)
    assert suggest_range(ast.parse(SUGGEST), 4) is None                     # outside any loop


# --------------------------------------------------------------------------- real observed runs
def tree_hash(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


OBSERVED = {   # fixture folder, app path, driver, expected first entry
    "inline_mujoco": ("deploy", "deploy/sim2sim.py", "deploy/sim2sim.py:61-66"),
    "inline_state": ("deploy", "deploy/play.py", "deploy/play.py:32-36"),
    "inline_patch": ("deploy", "deploy/evaluate.py", "deploy/evaluate.py:22-26"),
    "run_recurrent": ("memapp", "main.py", "memapp.policy:RecurrentPolicy.act"),
}


@pytest.mark.e2e
@pytest.mark.parametrize("fixture", sorted(OBSERVED))
def test_entrypoints_by_observation_rank_the_right_entry_first(fixture, tmp_path):
    app, driver, expected = OBSERVED[fixture]
    work = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, work, ignore=shutil.ignore_patterns("__pycache__"))
    before = tree_hash(work)
    proc = subprocess.run(TOOL + ["entrypoints", app, "--driver", driver, "--format", "json"], cwd=work,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    ranked = json.loads(proc.stdout)["entrypoints"]
    assert ranked[0]["entry"] == expected
    assert ranked[0]["kind"] == ("inline" if expected.endswith(tuple("0123456789")) else "function")
    assert ranked[0]["chain"] and ranked[0]["reasons"]
    assert tree_hash(work) == before          # the application is never modified


SLEEPER = "import os, sys, time\nopen(sys.argv[0] + '.pid', 'w').write(str(os.getpid()))\ntime.sleep(120)\n"


@pytest.mark.real_spawn        # the observer as users start it (PR_SET_PDEATHSIG), not forked by the test session's server
def test_the_observed_driver_dies_with_its_parent(tmp_path):
    driver = tmp_path / "sleeper.py"
    driver.write_text(SLEEPER)
    code = ("import sys; from pathlib import Path; from leapp_codemod.runner.observe import observe_driver; "
            f"observe_driver([Path({str(tmp_path)!r})], Path({str(driver)!r}), Path({str(tmp_path)!r}), 5, 300)")
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path)
    pid_file = Path(str(driver) + ".pid")
    deadline = time.monotonic() + 60
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    child = int(pid_file.read_text())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the observed driver outlived its parent")


# --------------------------------------------------------------------------- generate without --entry
def generate(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(TOOL + ["generate", *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.mark.e2e
def test_generate_asks_the_driver_and_says_which_entry_it_chose(tmp_path):
    work = tmp_path / "inline_state"
    shutil.copytree(FIXTURES / "inline_state", work, ignore=shutil.ignore_patterns("__pycache__"))
    proc = generate(["deploy", "--driver", "deploy/play.py", "-o", "integration.py"], work)
    assert proc.returncode == 0, proc.stderr
    assert 'ENTRY = "deploy/play.py:32-36"' in (work / "integration.py").read_text()
    chosen = [ln for ln in proc.stderr.splitlines() if ln.startswith("entry: ")]
    assert chosen == [chosen[0]] and "deploy/play.py:32-36" in chosen[0] and "seen while deploy/play.py ran" in chosen[0]
    assert "written inline" in chosen[0]


def test_generate_static_choice_and_the_driver_beside_it(tmp_path):
    work = tmp_path / "quickstart"
    shutil.copytree(ROOT / "examples" / "quickstart", work, ignore=shutil.ignore_patterns("__pycache__"))
    proc = generate(["robot", "--static", "-o", str(tmp_path / "a.py")], work)
    assert proc.returncode == 0, proc.stderr
    assert "entry: robot.policy:NavigationPolicy.act (the entry scan chooses" in proc.stderr
    assert "static ranking" in proc.stderr
    assert 'ENTRY = "robot.policy:NavigationPolicy.act"' in (tmp_path / "a.py").read_text()
    proc = generate(["robot", "-o", str(tmp_path / "b.py")], work)   # no flags: scan's entry, the driver calling it
    assert proc.returncode == 0, proc.stderr
    assert "driver: main.py" in proc.stderr and 'ENTRY = "robot.policy:NavigationPolicy.act"' in (tmp_path / "b.py").read_text()
    (work / "main.py").unlink()    # no script calls the entry: the module is written, with the command that adds one
    proc = generate(["robot", "-o", str(tmp_path / "c.py")], work)
    assert proc.returncode == 0 and "--driver SCRIPT" in proc.stderr and "warning: no script" in proc.stderr


def test_a_driver_that_runs_too_long_is_stopped_with_one_line(tmp_path):
    (tmp_path / "slow.py").write_text("import time\ntime.sleep(60)\n")
    started = time.monotonic()
    proc = subprocess.run(TOOL + ["entrypoints", ".", "--driver", "slow.py", "--timeout", "2"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and time.monotonic() - started < 30
    assert proc.stderr.strip().splitlines() == ["leapp-codemod: error: slow.py: timed out after 2 s"]
