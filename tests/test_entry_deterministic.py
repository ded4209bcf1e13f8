"""Entry ranking does not depend on Python's string hashing: a name rebound to two classes resolves to both."""
from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from test_entry_discovery import tree_hash

from leapp_codemod.analysis.entry.callbacks import callers_of
from leapp_codemod.analysis.flow.dataflow import compute_env
from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.infer.lattice import Facts
from leapp_codemod.analysis.model.leapp_support import load_support
from leapp_codemod.scan.load import load_project

FIXTURE = Path(__file__).parent.parent / "fixtures" / "entry_rebound_name"


def test_a_name_rebound_to_two_networks_runs_either_network():
    project = load_project([str(FIXTURE)]).project
    bench = next(fn for fn, _ in callers_of(project) if fn.id == "filters:<module>")
    ctx = FunctionContext(bench, project.modules[bench.module], project, Facts(), load_support())
    compute_env(ctx)
    calls = [n for n in ast.walk(bench.node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "smoother"]
    assert len(calls) == 2
    for call in calls:
        assert [fn.id for fn in ctx.resolve_call(call)] == ["filters:KalmanSmoother.forward",
                                                            "filters:MedianSmoother.forward"]


def ranked(root: Path, seed: str, cache: Path) -> list:
    env = {**os.environ, "PYTHONHASHSEED": seed, "LEAPP_CODEMOD_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-m", "leapp_codemod", "entrypoints", ".", "--format", "json",
                           "--limit", "0"], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["entrypoints"]


def test_the_ranking_is_the_same_under_any_hash_seed(tmp_path):
    root = tmp_path / "bench"
    shutil.copytree(FIXTURE, root)
    before = tree_hash(root)
    runs = [ranked(root, seed, tmp_path / f"cache{seed}") for seed in ("1", "2", "3", "4")]
    assert tree_hash(root) == before
    assert runs[0] and runs[0][0]["entry"] == "deploy:smooth_reading"
    assert all(run == runs[0] for run in runs[1:]), "the ranking changed with PYTHONHASHSEED"



_SHARED_BLOCK = """
from leapp_codemod.analysis.entry.submodules import below_calling_networks
from leapp_codemod.model import Entrypoint
def head(name, score):
    return Entrypoint("nets", name, "nets.py", 1, score, ())
ranked = [head("Actor.forward", 5), head("Critic.forward", 5), head("Encoder.forward", 5)]
callers = {"nets:Encoder.forward": {"nets:Actor.forward", "nets:Critic.forward"}}
out = below_calling_networks(ranked, callers, lambda fid: True)
print(next(c for c in out if c.qualname == "Encoder.forward").reasons[-1])
"""


def test_a_block_two_equal_networks_call_names_the_same_one_under_any_hash_seed():
    """An encoder an actor and a critic of one score both call: its reason names the same caller every run."""
    said = set()
    for seed in ("1", "2", "3", "4", "5", "6", "7", "8"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", _SHARED_BLOCK], env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        said.add(done.stdout.strip())
    assert said == {"a sub-block of another network: only Actor.forward calls it (ranked below it)"}
