"""A hazard inside an installed library the pipeline calls: `generate` patches the callee where the
library looks it up (here `expit`, imported by the library's own module) and `run` validates it."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = [sys.executable, "-m", "leapp_codemod"]

pytestmark = pytest.mark.e2e

LIBRARY = {
    "fakesquash/__init__.py": "",
    "fakesquash/core.py": "import torch\nfrom scipy.special import expit\n\n\n"
                          "def squash(x):\n    return torch.from_numpy(expit(x.numpy()))\n",
}
APP = {
    "libuser/__init__.py": "",
    "libuser/policy.py": "import torch\nfrom fakesquash.core import squash\n\n\nclass Pol:\n"
                         "    def __init__(self):\n        torch.manual_seed(0)\n"
                         "        self.net = torch.nn.Linear(3, 3)\n\n    @torch.no_grad()\n"
                         "    def act(self, obs):\n        return squash(self.net(obs))\n",
    "main.py": "import torch\n\nfrom libuser.policy import Pol\n\npolicy = Pol()\ngen = torch.Generator().manual_seed(1)\n"
               "for _ in range(10):\n    policy.act(torch.randn(1, 3, generator=gen))\n",
}


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("libpatch")
    write(root / "site-packages", LIBRARY)        # found like an installed package, never imported by scan
    write(root / "app", APP)
    env = {**os.environ, "PYTHONPATH": str(root / "site-packages")}
    gen = subprocess.run(TOOL + ["generate", "libuser", "--entry", "libuser.policy:Pol.act", "--driver", "main.py",
                                 "-o", "../integration.py"], cwd=root / "app", env=env, capture_output=True,
                         text=True, timeout=300)
    return root, env, gen


def test_generate_patches_the_callee_where_the_library_looks_it_up(generated):
    root, _, gen = generated
    assert gen.returncode == 0, gen.stderr
    assert "1 function patches (0 to write), 0 unresolved findings" in gen.stderr
    text = re.sub(r"\s+", " ", (root / "integration.py").read_text())   # calls may be wrapped by the formatter
    assert '"fakesquash.core", "expit", expit_traceable, "scipy.special:expit"' in text
    assert 'hazards=("libuser/policy.py:12 foreign-library",)' in text


def test_the_library_patch_validates_end_to_end(generated):
    root, env, _ = generated
    proc = subprocess.run(TOOL + ["run", "integration.py", "--out", "out", "--format", "json"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    report = json.loads(proc.stdout)
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert [(p["patch"], p["ok"]) for p in report["patch_parity"]] == [("fakesquash.core.expit", True)]
