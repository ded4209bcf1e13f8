#!/usr/bin/env python3
"""Wall time of `leapp-codemod generate` + `run` against a hand-written LEAPP script that does the
same work (trace 5 calls, export ONNX with validation and a graph PNG, check 3 fresh calls with
InferenceManager) on the bundled quickstart pipeline. Each variant runs in fresh processes.

    python benchmarks/run_overhead.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "quickstart"
ENTRY = "robot.policy:NavigationPolicy.act"

HAND_WRITTEN = '''
import sys
import numpy as np
import torch
import leapp
from leapp import annotate, InferenceManager
sys.path.insert(0, ".")
from robot.policy import NavigationPolicy

def observations(n, seed=1):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        lidar = rng.uniform(0.2, 6.0, (1, 16)).astype(np.float32)
        imu = rng.normal(0, 1, (1, 4)).astype(np.float32)
        out.append((lidar, imu))
    return out

policy = NavigationPolicy()
samples = observations(8)
leapp.start("navigation_policy", save_path=sys.argv[1], max_cached_io=5)
try:
    for lidar, imu in samples[:5]:
        lidar_t, imu_t = annotate.input_tensors("navigation_policy", {"lidar": lidar.copy(), "imu": imu.copy()})
        out = policy.act(lidar_t, imu_t)
        annotate.output_tensors("navigation_policy", {"wheel_speeds": out}, export_with="onnx")
finally:
    leapp.stop()
result = leapp.compile_graph(visualize=True, validate=True, strict=False)
assert all(v is True for v in result.values()), result
im = InferenceManager(f"{sys.argv[1]}/navigation_policy/navigation_policy.yaml")
for lidar, imu in samples[5:]:
    got = im.run_policy({"navigation_policy/lidar": torch.from_numpy(lidar),
                         "navigation_policy/imu": torch.from_numpy(imu)})
    err = np.abs(got["navigation_policy/wheel_speeds"].numpy() - policy.act(lidar, imu)).max()
    assert err < 1e-4, err
'''


def timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    tool = [sys.executable, "-m", "leapp_codemod"]
    rows: dict[str, list[float]] = {"generate": [], "run": [], "generate + run": [], "hand-written LEAPP": []}
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="leapp-bench-") as tmp:
            work = Path(tmp) / "quickstart"
            shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns("__pycache__"))
            gen = timed(tool + ["generate", "robot", "--entry", ENTRY, "--driver", "main.py", "-o", "integ.py"],
                        work)
            run = timed(tool + ["run", "integ.py", "--out", "out"], work)
            script = work / "hand_written.py"
            script.write_text(HAND_WRITTEN)
            hand = timed([sys.executable, str(script), str(Path(tmp) / "hand-out")], work)
        rows["generate"].append(gen)
        rows["run"].append(run)
        rows["generate + run"].append(gen + run)
        rows["hand-written LEAPP"].append(hand)
    base = statistics.median(rows["hand-written LEAPP"])
    print(f"{'step':22s} {'median s':>9s} {'min s':>7s} {'max s':>7s} {'vs hand':>8s}")
    for name, values in rows.items():
        med = statistics.median(values)
        print(f"{name:22s} {med:9.2f} {min(values):7.2f} {max(values):7.2f} {med / base:7.2f}x")
    print(f"({args.repeat} repeats, fresh processes; pipeline {ENTRY} from examples/quickstart)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
