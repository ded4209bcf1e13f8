"""The observed process: run the driver (or replay a recording) under the one tracer and write the
observation as JSON. Never prints to stdout; dies with its parent.

    python -m leapp_codemod.observe.child CONFIG.json
"""
from __future__ import annotations

import json
import os
import runpy
import sys
import threading
import time
from pathlib import Path

from leapp_codemod.observe.ranking import Ranking
from leapp_codemod.observe.watch import EntryRecorder, StopObserving, Tracer


def _die_with_parent(parent: int) -> None:
    """Linux kills this process when its parent dies (`procgroup.die_with_parent`); a watchdog thread
    covers other systems."""
    from leapp_codemod.runner.procgroup import die_with_parent
    from leapp_codemod.runner.warmstart import server_pid
    die_with_parent(parent)
    forked_by = server_pid()        # the test session's warm-start server, which kills it when the tool dies

    def watch() -> None:
        while True:
            if os.getppid() not in (parent, forked_by):
                os._exit(1)
            time.sleep(0.5)
    threading.Thread(target=watch, daemon=True).start()


def _write(path: str, data: dict) -> None:
    from leapp_codemod.io_util import write_atomic
    write_atomic(path, json.dumps(data))


def _one_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0][:200] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _resolve(qualified: str):
    """The function object `module:Qual.name` names (imports the module)."""
    import importlib

    module_name, _, qualname = qualified.partition(":")
    obj = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _replay(cfg: dict, tracer: Tracer) -> None:
    """Call the recorded entry with the recorded inputs, in order, on the recorded instance."""
    from leapp_codemod.runner.record import load

    recording = load(Path(cfg["inputs"]), allow_pickle=bool(cfg.get("allow_pickle")))
    entry = recording.meta["entry"]
    fn = _resolve(entry)
    code = getattr(fn, "__code__", None)
    if code is None:
        raise RuntimeError(f"{entry} is not a Python function")
    tracer.recorder.file, tracer.recorder.line, tracer.recorder.name = (os.path.abspath(code.co_filename),
                                                                        code.co_firstlineno, code.co_name)
    call = getattr(recording.instance, fn.__name__) if recording.meta.get("is_method") else fn
    tracer.install()
    for inputs in recording.traced + recording.checked:
        call(**inputs, **recording.statics)


def main(config_path: str) -> int:
    cfg = json.loads(Path(config_path).read_text())
    _die_with_parent(cfg["parent"])
    for p in (cfg["import_root"], *( [str(Path(cfg["driver"]).parent)] if cfg.get("driver") else [])):
        if p in sys.path:
            sys.path.remove(p)
        sys.path.insert(0, p)
    sys.dont_write_bytecode = True
    os.chdir(cfg["cwd"])
    entry = cfg.get("entry")
    recorder = None
    if entry:
        recorder = EntryRecorder(entry["file"], entry["line"], entry["name"], cfg["calls"])
    elif cfg.get("inputs"):
        recorder = EntryRecorder("", 0, "", cfg["calls"])   # the entry is the recording's
    ranking = Ranking(cfg["calls"]) if cfg.get("rank") else None
    result: dict = {"mode": "replay" if cfg.get("inputs") else "driver"}
    started = time.monotonic()

    def collect() -> dict:
        data = dict(result)
        if ranking is not None:
            data.update(ranking.to_json())
            data["stopped"] = ranking.done
        if recorder is not None:
            data["observed"] = recorder.to_json()
            data["observed"]["entry_location"] = [recorder.file, recorder.line, recorder.name]
            data["stopped"] = recorder.done
        data["seconds"] = round(time.monotonic() - started, 3)
        return data

    def finished() -> None:
        """Enough calls seen: write the observation and end the process (the rest of the driver,
        its threads and its exit handlers never run)."""
        _write(cfg["result"], collect())
        sys.stderr.flush()
        os._exit(0)

    tracer = Tracer(cfg["roots"], ranking, recorder, on_done=finished)
    argv = sys.argv[:]
    try:
        if cfg.get("inputs"):
            _replay(cfg, tracer)
        else:
            sys.argv = [cfg["driver"]]
            if recorder is not None and ranking is None and recorder.file != os.path.abspath(cfg["driver"]):
                tracer.install_on_import(recorder.file)
            else:
                tracer.install()
            runpy.run_path(cfg["driver"], run_name="__main__")
    except StopObserving:
        pass
    except SystemExit as exc:
        if exc.code not in (None, 0):
            result["driver_error"] = f"the driver exited with status {exc.code}"
    except BaseException as exc:  # noqa: BLE001 - what was seen before the crash is still reported
        result["driver_error"] = f"the driver crashed: {_one_line(exc)}"
    finally:
        tracer.uninstall()
        sys.argv = argv
    _write(cfg["result"], collect())
    return 0


if __name__ == "__main__":
    from leapp_codemod.runner.procgroup import finish_child
    finish_child(main(sys.argv[1]))     # threads the driver left running do not hold the tool
