"""The runner's child process: import the integration module, run the driver with the entry
intercepted, then trace, export and validate. Writes one JSON result; never prints to stdout."""
from __future__ import annotations

import importlib.util
import json
import os
import runpy
import sys
import time
import traceback
from pathlib import Path


class Progress:
    def __init__(self, fd: int | None):
        self.stream = os.fdopen(fd, "w", buffering=1) if fd is not None else sys.stderr

    def __call__(self, message: str) -> None:
        try:
            self.stream.write(message + "\n")
            self.stream.flush()
        except OSError:
            pass


def _load_module(path: Path):
    spec = importlib.util.spec_from_file_location("leapp_codemod_integration", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _crash_location(exc: BaseException, roots: list[str]) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        path = os.path.abspath(frame.filename)
        if any(path == r or path.startswith(r + os.sep) for r in roots) and "site-packages" not in path:
            return f"{os.path.relpath(path).replace(os.sep, '/')}:{frame.lineno}"
    return ""


def run_driver(driver: Path, progress) -> str:
    """Run the driver as __main__; '' when it ran (or was stopped by the runner), else why it crashed."""
    from leapp_codemod.runner.intercept import EnoughCalls

    argv = sys.argv[:]
    sys.argv = [str(driver)]
    try:
        runpy.run_path(str(driver), run_name="__main__")
    except EnoughCalls:
        return ""
    except SystemExit as exc:
        if exc.code not in (None, 0):
            return f"the driver exited with status {exc.code}"
    except BaseException as exc:  # noqa: BLE001 - report any crash of the user's program in one line
        where = _crash_location(exc, [str(driver.parent.resolve())])
        from leapp_codemod.runner.export import one_line
        return f"the driver crashed{' at ' + where if where else ''}: {one_line(exc)}"
    finally:
        sys.argv = argv
    return ""


def main(config_path: str) -> int:
    cfg = json.loads(Path(config_path).read_text())
    progress = Progress(cfg.get("progress_fd"))
    result: dict = {"timings": {}}
    started = time.monotonic()
    try:
        result.update(_run(cfg, progress, result["timings"]))
    except Exception as exc:  # noqa: BLE001 - the parent turns this into a one-line message
        from leapp_codemod.runner.intercept import RunnerError

        stage = exc.stage if isinstance(exc, RunnerError) else "runner"
        message = str(exc) if isinstance(exc, RunnerError) else f"{type(exc).__name__}: {exc}"
        result.update({"error": message, "error_stage": stage})
        if not isinstance(exc, RunnerError):
            result["error_detail"] = traceback.format_exc(limit=8)
    result["timings"]["child_total"] = round(time.monotonic() - started, 2)
    tmp = Path(cfg["result"] + ".tmp")
    tmp.write_text(json.dumps(result, default=str))
    os.replace(tmp, cfg["result"])
    return 0


def _run(cfg: dict, progress, timings: dict) -> dict:
    t0 = time.monotonic()
    sys.dont_write_bytecode = True
    driver = Path(cfg["driver"])
    for p in (cfg["integration_dir"], cfg["import_root"], str(driver.parent)):
        if p in sys.path:
            sys.path.remove(p)
        sys.path.insert(0, p)
    progress("importing torch, leapp and the application")
    import leapp  # noqa: F401 - imported here so that its import time is not charged to the driver

    from leapp_codemod.runner import export, twincheck
    from leapp_codemod.runner.intercept import (
        Recorder,
        RunnerError,
        find_state,
        intercepted,
        patch_recorders,
        resolve_entry,
    )

    try:
        module = _load_module(Path(cfg["file"]))
    except Exception as exc:  # noqa: BLE001
        raise RunnerError(f"{cfg['file']}: cannot import the integration module: {export.one_line(exc)}",
                          "import") from None
    timings["import"] = round(time.monotonic() - t0, 2)
    if getattr(module, "WARP", False):
        from leapp_codemod.runner import warp_check
        warp_check.require(module, cfg["traces"])
    entry = resolve_entry(module.ENTRY)
    state = dict(getattr(module, "STATE", {}) or {})
    recorder = Recorder(entry=entry, input_names=tuple(module.INPUTS),
                        static_names=tuple(getattr(module, "STATIC", ())), n_trace=cfg["traces"],
                        n_check=cfg["checks"], find_state=lambda root: find_state(root, state) if state else {})

    out = Path(cfg["out"])
    app_root = _app_dir(module, str(Path(cfg["import_root"]).resolve()))
    done: dict = {}

    def export_all() -> None:
        try:
            _export_all()
        except Exception as exc:  # noqa: BLE001 - must not reach the driver's own exception handlers
            done["error"] = exc

    def _export_all() -> None:
        """Trace, export and validate while the driver's own world (files, devices) is still up."""
        if entry.is_method and recorder.snapshot is None:
            raise RunnerError(f"the {type(recorder.instance).__name__} instance cannot be copied "
                              f"({recorder.snapshot_error}); the runner needs a copy to trace from the "
                              "starting state", "driver")
        progress(f"recorded {len(recorder.traced)} calls to trace and {len(recorder.checks)} to check "
                 f"(of {recorder.calls_seen} calls so far)")
        rows = twincheck.check_replacements(module.PATCHES, recorder)
        done["twin_check"] = rows
        if rows:
            progress(f"checked {len(rows)} FunctionPatch replacement(s) against the originals on "
                     f"{sum(r['samples'] for r in rows)} recorded and perturbed inputs")
        bad = [r for r in rows if not r["ok"]]
        if bad:
            raise RunnerError(twincheck.refusal(bad[0]), "twin-check")
        t2 = time.monotonic()
        attempts, chosen = [], None
        ladder = [b for b in export.ladder(module.EXPORT_WITH, cfg.get("require_format"))
                  if b in getattr(module, "EXPORTERS", export.EXPORTERS)]
        for i, backend in enumerate(ladder, 1):
            att = export.attempt_export(module, recorder, backend, out / "attempts" / f"{i:02d}-{backend}",
                                        state, app_root, cfg["cwd"], progress)
            attempts.append(att)
            progress(f"{backend}: {att.outcome}" + (f" at {att.stage}: {att.reason}" if att.stage else ""))
            if att.outcome == "validated":
                chosen = att
                break
        done.update(attempts=attempts, chosen=chosen, parity=export.check_patch_parity(module, recorder))
        timings["export_and_validate"] = round(time.monotonic() - t2, 2)

    recorder.on_done = export_all
    if cfg.get("record"):
        from leapp_codemod.runner import record
        recorder.on_done = record.saver(Path(cfg["record"]), module, recorder, done)
    if cfg.get("inputs"):
        from leapp_codemod.runner import replay
        try:
            done["replayed"] = replay.preflight(module, cfg["inputs"])
        except replay.RecordingError as exc:
            raise RunnerError(str(exc), "inputs") from None
    t1 = time.monotonic()
    progress(f"replaying {os.path.relpath(cfg['inputs'])} into {module.ENTRY} (the driver is not run)"
             if cfg.get("inputs") else f"running {os.path.relpath(driver)} with {module.ENTRY} intercepted")
    os.chdir(cfg["cwd"])
    with intercepted(entry, recorder), patch_recorders(module.PATCHES, recorder):
        crash = run_driver(driver, progress)
    timings["driver"] = round(time.monotonic() - t1 - timings.get("export_and_validate", 0.0), 2)
    if recorder.error is not None:
        raise recorder.error
    if crash and not done:
        raise RunnerError(crash, "driver")
    need = cfg["traces"] + cfg["checks"]
    got = len(recorder.traced) + len(recorder.checks)
    if recorder.calls_seen == 0:
        raise RunnerError(f"the driver never called {module.ENTRY}", "driver")
    if got < need:
        shapes = (f" ({recorder.other_layouts} more had other input shapes than the first call)"
                  if recorder.other_layouts else "")
        raise RunnerError(f"the driver called {module.ENTRY} {recorder.calls_seen} times with {got} distinct "
                          f"inputs{shapes}; {need} are needed ({cfg['traces']} traced + {cfg['checks']} checked; "
                          "see --traces/--checks)", "driver")
    if cfg.get("record") and "error" not in done:
        return {"entry": module.ENTRY, "recorded": cfg["record"], "meta": done["recorded"]}
    if "error" in done:
        if "twin_check" in done:
            return {"error": str(done["error"]), "error_stage": getattr(done["error"], "stage", "runner"),
                    "twin_check": done["twin_check"]}
        raise done["error"]
    attempts, chosen = done["attempts"], done["chosen"]
    parity = done["parity"]
    published = export.copy_artifacts(chosen, module.GRAPH, out) if chosen else None
    return {
        "entry": module.ENTRY, "graph": module.GRAPH, "node": module.NODE, "requested": module.EXPORT_WITH,
        "host_runtime": list(getattr(module, "HOST_RUNTIME", ())),
        "calls": {"seen": recorder.calls_seen, "traced": [c.index for c in recorder.traced],
                  "checked": [c.index for c in recorder.checks], "input_layout": recorder.layout,
                  "other_layouts": recorder.other_layouts, "other_instances": recorder.other_instances},
        "state": {name: f"{type(owner).__name__}.{attr}" for name, (owner, attr) in recorder.state_refs.items()},
        "attempts": [_attempt_json(a, out) for a in attempts],
        "chosen": chosen.backend if chosen else None,
        "published": str(published) if published else None,
        "patch_parity": parity,
        "twin_check": done.get("twin_check", []),
        "replayed": done.get("replayed"),
    }


def _app_dir(module, import_root: str) -> str:
    """The directory of the application's top-level package (hazard locations are searched there)."""
    top = module.ENTRY.split(":")[0].split(".")[0]
    candidate = Path(import_root) / top
    return str(candidate.resolve()) if candidate.exists() else import_root


def _attempt_json(att, out: Path) -> dict:
    data = att.to_json(out)
    data["validation"] = att.validation
    data["signals"] = att.signals
    data["leapp_messages"] = att.messages
    data["yaml"] = str(att.yaml) if att.yaml else None
    return data


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
