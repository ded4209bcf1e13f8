"""What a failed verdict says explains it: the findings the module leaves unresolved on lines that ran,
of a kind that loses computation on its way to the outputs, first cause first (the order the lines
first ran in), never a patch's hazards (resolved) nor a report-only I/O call (no LEAPP, no torch)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from leapp_codemod.runner.linecover import LineCover
from leapp_codemod.runner.module_info import ModuleInfo
from leapp_codemod.runner.parent import ChildResult, RunOptions
from leapp_codemod.runner.verdict import build_report

# a gripper step: the force estimate comes from a helper, the grip command is unpacked inline
FEATURES = "def force(x):\n    s = x.sum()\n    return float(s)\n"
STEP = ("import logging\nfrom app.features import force\n\n\ndef act(x, policy):\n    f = force(x)\n"
        "    logging.info('f=%s', f)\n    grip, wrist = policy(f)\n    if f > 100.0:\n        grip = 0.0\n"
        "    return grip + wrist\n")

UNRESOLVED = (   # as a module header lists them: by path, then line
    ("app/step.py:7 io-in-pipeline: `logging.info('f=%s', f)` performs I/O inside the pipeline (logging.info); "
     "it is left out"),
    "app/step.py:8 scalar-extraction: `grip, wrist = policy(f)` unpacks a NumPy array of pipeline data",
    "app/step.py:10 tensor-branch: `grip = 0.0` is chosen by `f > 100.0`",
    "app/features.py:3 scalar-extraction: `float(s)` turns pipeline data into a Python number",
    ("app/step.py:6 inplace-state: `f, self.hidden = self.rnn(x, self.hidden)` stores pipeline data in "
     "`self.hidden`, which the next call reads (recurrent state) (in lib/rnn.py:51)"),
)
PATCHED = "app/features.py:2 unmapped-numpy: `x.sum()` has no torch equivalent (patched by force_traceable)"


def _run_app(tmp_path: Path) -> LineCover:
    """The app run three times under the line cover (its import line left blank: `force` is given)."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "features.py").write_text(FEATURES)
    (app / "step.py").write_text(STEP)
    features: dict = {}
    exec(compile(FEATURES, str(app / "features.py"), "exec"), features)  # noqa: S102 - the test's own app
    step: dict = {"force": features["force"]}
    code = STEP.replace("from app.features import force\n", "\n")
    exec(compile(code, str(app / "step.py"), "exec"), step)  # noqa: S102
    with LineCover((str(tmp_path),)) as cover:
        for k in range(3):
            step["act"](np.array([1.0, 2.0 + k]), lambda f: (0.5 * f, 0.1))
    return cover


def test_explained_by_lists_unresolved_lines_that_ran_first_cause_first(tmp_path):
    cover = _run_app(tmp_path)
    info = ModuleInfo(path=tmp_path / "integration.py", entry="app.step:act", app_root=tmp_path, driver=None,
                      graph="g", export_with="onnx", stubs=(), findings=(*UNRESOLVED, PATCHED), host_runtime=(),
                      unresolved=UNRESOLVED)
    (tmp_path / "integration.py").write_text('ENTRY = "app.step:act"\n')
    failure = {"backend": "onnx", "format": "onnx", "outcome": "failed", "failed_stage": "validation",
               "reason": "parity FAILED on 3 fresh calls", "signals": [],
               "lost_computation": "LEAPP: a value was inlined as a constant"}
    child = ChildResult(data={"attempts": [failure], "executed": cover.to_json(), "executed_order": cover.order_json(),
                              "calls": {}, "graph": "g", "state_observed": [   # the run carried self.hidden
                                  {"owner_path": "self.rnn.hidden", "explained_by": "STATE['hidden'] in the module"}]})
    report = build_report(info, RunOptions(file=info.path, out=tmp_path / "out"), child, 1.0)
    assert report["status"] == "failed"
    # the helper's extraction ran before the inline unpack (data flows force -> policy -> grip); the branch
    # at :10 never took its side, the log line only reports, the patched `x.sum()` is resolved and the
    # recurrent state the run carried is resolved too
    assert [f.split(" ")[0] for f in report["explained_by"]] == ["app/features.py:3", "app/step.py:8"]
    assert report["lost_computation"]["explained_by"] == report["explained_by"]
