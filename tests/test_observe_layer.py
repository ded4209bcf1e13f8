"""The one observation layer: the tracer's entry recorder, the observed process's safety, the saved
observation's freshness."""
from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from leapp_codemod.observe import saved
from leapp_codemod.observe.process import EntryLocation, ObserveError, run_observer
from leapp_codemod.observe.watch import EntryRecorder, StopObserving, Tracer

TOOL = [sys.executable, "-m", "leapp_codemod"]

APP = '''\
import numpy as np

MODE = "eval"


class Settings:
    def __init__(self):
        self.use_filter = False
        self.scale = 0.5


class Smoother:
    def __init__(self):
        self.prev = np.zeros(3)

    def __call__(self, x):
        self.prev = 0.5 * self.prev + x
        return self.prev


class Policy:
    def __init__(self, inner):
        self.cfg = Settings()
        self.inner = inner
        self.count = 0

    def step(self, obs):
        self.count += 1
        if self.cfg.use_filter:
            obs = obs * 0.9
        if MODE == "train":
            obs = obs + 1.0
        return self.inner(obs) * self.cfg.scale
'''


def _load(tmp_path: Path):
    path = tmp_path / "obsapp.py"
    path.write_text(APP)
    spec = importlib.util.spec_from_file_location("obsapp", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["obsapp"] = module
    spec.loader.exec_module(module)
    return module, path


def test_the_recorder_sees_callees_receivers_lines_and_which_reads_stayed_the_same(tmp_path):
    import numpy as np

    module, path = _load(tmp_path)
    policy = module.Policy(module.Smoother())
    line = APP.splitlines().index("    def step(self, obs):") + 1
    recorder = EntryRecorder(str(path), line, "step", calls=3)
    tracer = Tracer([str(tmp_path)], recorder=recorder)
    tracer.install()
    calls = 0
    try:
        for i in range(10):
            policy.step(np.full(3, float(i)))
            calls += 1
    except StopObserving:
        pass
    finally:
        tracer.uninstall()
    assert calls == 3 and recorder.seen == 3           # stopped right after the third call
    data = recorder.to_json()
    by_name = {f["qualname"]: f for f in data["functions"]}
    assert set(by_name) == {"Policy.step", "Smoother.__call__"}
    body = APP.splitlines()
    ran = {body[n - 1].strip() for n in by_name["Policy.step"]["lines"]}
    assert "obs = obs * 0.9" not in ran and "obs = obs + 1.0" not in ran and "self.count += 1" in ran
    (edge,) = data["edges"]
    assert edge["receiver"] == "obsapp:Smoother" and edge["callee"].endswith(":Smoother.__call__")
    assert body[edge["line"] - 1].strip().startswith("return self.inner(obs)")
    reads = {(r["owner"], tuple(r["path"])): r for r in data["reads"]}
    assert reads[("obsapp:Policy", ("cfg", "use_filter"))]["constant"] is True
    assert reads[("obsapp:Policy", ("cfg", "use_filter"))]["truth"] is False
    assert reads[("obsapp:Policy", ("count",))]["constant"] is False
    assert reads[("obsapp:Policy", ("count",))]["kind"] == "number"
    assert reads[("obsapp:Smoother", ("prev",))]["constant"] is False
    assert reads[("obsapp:Smoother", ("prev",))]["kind"] == "ndarray"
    assert reads[("global:obsapp", ("MODE",))]["constant"] is True
    assert reads[("global:obsapp", ("MODE",))]["kind"] == "string"


@pytest.mark.real_spawn        # the observer as users start it, not forked by the test session's server
def test_an_observed_driver_that_runs_too_long_is_stopped_with_one_line(tmp_path):
    driver = tmp_path / "forever.py"
    driver.write_text("import time\nwhile True:\n    time.sleep(0.1)\n")
    started = time.monotonic()
    with pytest.raises(ObserveError, match="timed out after 3 s"):
        run_observer(roots=[str(tmp_path)], import_root=tmp_path, calls=3, timeout=3, driver=driver,
                     entry=EntryLocation(str(driver), 1, "never"))
    assert time.monotonic() - started < 20


SPINNER = '''\
import os, subprocess, sys, time
helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
open(sys.argv[0] + ".pid", "w").write(str(os.getpid()))
while True:
    time.sleep(0.05)
'''


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_scan_driver_stops_the_observed_process_group(tmp_path, signum):
    (tmp_path / "pyproject.toml").write_text('[tool.leapp-codemod]\nentry = "app:step"\n')
    (tmp_path / "app.py").write_text("def step(obs):\n    return obs.item()\n")
    (tmp_path / "main.py").write_text(SPINNER)
    proc = subprocess.Popen(TOOL + ["scan", ".", "--driver", "main.py"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    pid_file = tmp_path / "main.py.pid"
    deadline = time.monotonic() + 60
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    child = int(pid_file.read_text())
    assert os.getpgid(child) == child and _group_alive(child)    # the observed process leads its group
    proc.send_signal(signum)
    stopped = time.monotonic()
    while _group_alive(child) and time.monotonic() - stopped < 5:
        time.sleep(0.1)
    assert not _group_alive(child), "the observed process group survived the signal"
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum
    assert f"interrupted by {signal.Signals(signum).name}" in err and "Traceback" not in err
    assert not (tmp_path / ".leapp-codemod").exists()


def test_a_saved_observation_is_fresh_until_a_covered_file_changes(tmp_path):
    app = tmp_path / "app.py"
    app.write_text("def step(x):\n    return x\n")
    observation = {"entry_calls": 3, "entry_location": [str(app), 1, "step"],
                   "functions": [{"file": str(app), "line": 1, "qualname": "step", "calls": 3, "library": False,
                                  "key": f"{app}:1:step", "lines": [2]},
                                 {"file": "/usr/lib/python3/x.py", "line": 4, "qualname": "lib", "calls": 3,
                                  "library": True, "key": "/usr/lib/python3/x.py:4:lib", "lines": []}],
                   "edges": [], "reads": []}
    path = saved.save(tmp_path, observation, {"entry": "app:step", "source": "main.py"})
    text = path.read_text()
    assert str(tmp_path) not in text and "/usr/lib" not in text          # relative paths only, no libraries
    data = json.loads(text)
    assert data["schema"] == saved.SCHEMA and data["version"] == saved.SCHEMA_VERSION and set(data["files"]) == {"app.py"}
    loaded = saved.load(tmp_path)
    assert loaded.data is not None and loaded.note == ""
    assert saved.absolute(loaded.data, tmp_path)["functions"][0]["key"] == f"{tmp_path.resolve()}/app.py:1:step"
    app.write_text("def step(x):\n    return x + 1\n")
    stale = saved.load(tmp_path)
    assert stale.data is None and "stale (app.py changed" in stale.note and "\n" not in stale.note
    data["version"] = 99
    path.write_text(json.dumps(data))
    assert "version 99" in saved.load(tmp_path).note


def test_in_process_watching_stops_quietly_after_n_calls(tmp_path):
    import numpy as np

    from leapp_codemod.observe.watch import watching

    module, _ = _load(tmp_path)
    policy = module.Policy(module.Smoother())
    with watching(module.Policy.step, [str(tmp_path)], calls=2) as recorder:
        outputs = [policy.step(np.full(3, float(i))) for i in range(6)]   # never interrupted
    assert len(outputs) == 6 and recorder.seen == 2 and recorder.done
    assert sys.gettrace() is None
    reads = {(r["owner"], tuple(r["path"])): r for r in recorder.to_json()["reads"]}
    assert reads[("obsapp:Policy", ("count",))]["calls"] == 2
