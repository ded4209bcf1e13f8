"""A generated twin that uses the `twin_*` helpers runs in the module `generate` writes: the helpers
test for and build tensors, so the module imports torch (it did not, and the twin raised NameError when
the application's module was the only one importing torch). The twin of a helper returning a NumPy
function of extracted numbers (`np.arccos(float(a) / norm)`, a NumPy float64) returns float64 too."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHECK = """
import json, numpy as np
import integration
from tiltapp.balance import tilt_angle
accel = np.array([0.3, 0.1, 9.7], dtype=np.float32)
got, want = integration.tilt_angle_traceable(accel), tilt_angle(accel)
probe = np.ones(2, np.float32)
print(json.dumps({"got": float(got), "want": float(want), "dtype": str((probe * got).dtype),
                  "want_dtype": str((probe * want).dtype)}))
"""


def test_the_generated_twin_runs_with_the_modules_own_imports(tmp_path):
    work = tmp_path / "app"
    shutil.copytree(ROOT / "fixtures" / "generate_twin_imports", work, ignore=shutil.ignore_patterns("__pycache__"))
    gen = subprocess.run([sys.executable, "-m", "leapp_codemod", "generate", "tiltapp", "--entry",
                          "tiltapp.balance:Balancer.act", "--driver", "main.py", "-o", "integration.py"],
                         cwd=work, capture_output=True, text=True, timeout=120, check=False)
    assert gen.returncode == 0, gen.stderr
    module = (work / "integration.py").read_text()
    assert "\nimport torch\n" in module and "twin_numpy_number(np.arccos(" in module
    proc = subprocess.run([sys.executable, "-c", CHECK], cwd=work, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    assert abs(row["got"] - row["want"]) < 1e-6
    assert row["dtype"] == row["want_dtype"] == "float64"
