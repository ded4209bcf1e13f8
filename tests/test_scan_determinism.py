"""The scan's output does not depend on Python's hash seed: a reason naming one of several callers names the
same one on every run (the callers are a set)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

APP = textwrap.dedent('''
    import numpy as np


    def wait_for(node, topic):
        box = []
        node.create_subscription(topic, box.append)
        return np.asarray(box[-1])


    class Arm:
        def __init__(self, policy):
            self.policy = policy

        def pose_a(self):
            return wait_for(self, "/a")

        def pose_b(self):
            return wait_for(self, "/b")

        def pose_c(self):
            return wait_for(self, "/c")

        def step(self, obs):
            q = np.concatenate([self.pose_a(), self.pose_b(), self.pose_c(), obs])
            return self.policy(q)
''')


def _scan(root, seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed, "LEAPP_CODEMOD_CACHE_DIR": str(root / f"cache{seed}")}
    done = subprocess.run([sys.executable, "-m", "leapp_codemod", "scan", ".", "--entry", "arm:Arm.step",
                           "--format", "concise", "--exit-zero", "--no-cache"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_reasons_name_the_same_caller_whatever_the_hash_seed(tmp_path):
    (tmp_path / "arm.py").write_text(APP)
    outputs = {_scan(tmp_path, seed) for seed in ("1", "2", "3", "4")}
    assert len(outputs) == 1
    assert "not followed: node.create_subscription(...)" in next(iter(outputs))
