"""A driver that needs arguments (a config file, an option): `run FILE -- ARGS` passes them, and a
module's DRIVER_ARGS keeps them for the next run."""
from __future__ import annotations

import pytest

from tests.test_run import cli, generate, project, run_json


@pytest.mark.e2e
def test_the_drivers_arguments_are_passed_after_a_double_dash(tmp_path):
    work = project(tmp_path, "run_driver_args")
    module = generate(work, "droneapp", "droneapp.rates:RateController.motors", driver="fly.py")
    bare = cli(["run", "integration.py", "--out", "out0", "--require-format", "onnx-torchscript"], work)
    assert bare.returncode == 1 and "the driver exited with status 2" in bare.stdout.splitlines()[0]
    proc, report = run_json(work, "integration.py", "--require-format", "onnx-torchscript", "--",
                            "flight.json", "--steps", "12")
    assert proc.returncode == 0 and report["status"] == "validated", report.get("error")
    assert report["driver_args"] == ["flight.json", "--steps", "12"]
    assert report["calls"]["seen"] == 12         # --steps reached the driver
    module.write_text(module.read_text() + '\nDRIVER_ARGS = ("flight.json",)\n')
    kept = cli(["run", "integration.py", "--out", "out2", "--require-format", "onnx-torchscript"], work)
    assert kept.returncode == 0 and kept.stdout.startswith("validated:"), kept.stdout
