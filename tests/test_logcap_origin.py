"""LEAPP records raised inside leapp-codemod's own adapters are attributed to the adapter and to the
application call that used it; they never confirm a scan finding on that application line."""
from __future__ import annotations

import logging
import os

from leapp_codemod.runner.logcap import ADAPTERS_DIR, Capture
from leapp_codemod.runner.summary import summary_lines
from leapp_codemod.runner.verdict import confirm_findings

WARNING = "No torch equivalent for numpy function interp; the value is a constant"


def _logger(capture: Capture) -> logging.Logger:
    logger = logging.getLogger(f"leapp-test-{id(capture)}")
    logger.propagate = False
    logger.addHandler(capture)
    return logger


def _app(tmp_path, body: str) -> dict:
    """An application module on disk whose functions run with the given `adapter` callable."""
    app = tmp_path / "app"
    app.mkdir()
    path = app / "pipeline.py"
    path.write_text(body)
    namespace: dict = {}
    exec(compile(body, str(path), "exec"), namespace)
    return namespace


def _adapter(logger: logging.Logger):
    """A function whose code lives in leapp-codemod's adapters package (as the real adapters do)."""
    source = "def resize(x):\n    logger.warning(WARNING)\n    return x\n"
    namespace = {"logger": logger, "WARNING": WARNING}
    exec(compile(source, os.path.join(ADAPTERS_DIR, "cv2.py"), "exec"), namespace)
    return namespace["resize"]


def test_a_record_inside_an_adapter_names_the_adapter_and_the_calling_line(tmp_path):
    capture = Capture(app_root=str(tmp_path / "app"), cwd=str(tmp_path))
    logger = _logger(capture)
    app = _app(tmp_path, "def step(x, adapter):\n    y = x + 1\n    return adapter(y)\n")
    app["step"](1, _adapter(logger))
    (signal,) = capture.signals
    assert signal.adapter == "leapp_codemod.adapters.cv2.resize"
    assert signal.location == "app/pipeline.py:3"              # the call of the adapter, not another line
    assert signal.to_json()["adapter"] == "leapp_codemod.adapters.cv2.resize"


def test_a_record_raised_by_application_code_has_no_adapter(tmp_path):
    capture = Capture(app_root=str(tmp_path / "app"), cwd=str(tmp_path))
    logger = _logger(capture)
    app = _app(tmp_path, "def step(x, logger, text):\n    logger.warning(text)\n    return x\n")
    app["step"](1, logger, WARNING)
    (signal,) = capture.signals
    assert signal.adapter == "" and signal.location == "app/pipeline.py:2"


def test_adapter_records_confirm_no_finding_and_read_as_the_adapters():
    finding = "app/pipeline.py:3 foreign-library: `cv2.resize(...)` is not traced"
    from_adapter = {"signal": "unmapped-numpy", "level": "WARNING", "message": WARNING,
                    "location": "app/pipeline.py:3", "categories": ["unmapped-numpy", "foreign-library"],
                    "adapter": "leapp_codemod.adapters.cv2.resize"}
    assert confirm_findings((finding,), [from_adapter]) == []
    assert confirm_findings((finding,), [dict(from_adapter, adapter="")])[0]["finding"] == finding
    lines = summary_lines({"status": "failed", "entry": "app.pipeline:step", "hazard_signals": [from_adapter]})
    assert any("inside leapp_codemod.adapters.cv2.resize, called at app/pipeline.py:3" in line for line in lines)
