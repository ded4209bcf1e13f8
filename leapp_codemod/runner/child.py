"""The runner's child process: import the integration module, run the driver with the entry
intercepted, then trace, export and validate. Writes one JSON result; never prints to stdout."""
from __future__ import annotations

import contextlib
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


def run_driver(driver: Path, progress, run=None, args: tuple[str, ...] = ()) -> str:
    """Run the driver as __main__ (or `run()`, the driver instrumented in memory for an inline entry);
    '' when it ran (or was stopped by the runner), else why it crashed."""
    from leapp_codemod.runner.intercept import EnoughCalls

    argv = sys.argv[:]
    sys.argv = [str(driver), *args]
    try:
        if run is not None:
            run()
        else:
            runpy.run_path(str(driver), run_name="__main__")
    except EnoughCalls:
        return ""
    except KeyboardInterrupt:
        return "the driver was stopped after the export (it ran on without calling the entry)"
    except SystemExit as exc:
        if exc.code not in (None, 0):
            return f"the driver exited with status {exc.code}"
    except BaseException as exc:  # noqa: BLE001 - report any crash of the user's program in one line
        where = _crash_location(exc, [str(driver.parent.resolve())])
        from leapp_codemod.runner.errors import one_line
        return f"the driver crashed{' at ' + where if where else ''}: {one_line(exc)}"
    finally:
        sys.argv = argv
    return ""


def main(config_path: str) -> int:
    cfg = json.loads(Path(config_path).read_text())
    from leapp_codemod.runner.procgroup import die_with_parent
    if cfg.get("parent"):
        die_with_parent(cfg["parent"])
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
    from leapp_codemod.io_util import write_atomic
    write_atomic(cfg["result"], json.dumps(result, default=str), folder=cfg["out"])
    return 0


def _run(cfg: dict, progress, timings: dict) -> dict:
    t0 = time.monotonic()
    sys.dont_write_bytecode = True
    driver = Path(cfg["driver"])
    for p in (cfg["integration_dir"], cfg["import_root"], str(driver.parent)):
        if p in sys.path:
            sys.path.remove(p)
        sys.path.insert(0, p)
    progress("importing the application")
    from leapp_codemod.runner import draws, export, held_plan, names, runon, twincheck, unread_parts
    from leapp_codemod.runner import inline as inline_run
    from leapp_codemod.runner import state_observe as observe
    from leapp_codemod.runner.intercept import (
        Recorder,
        RunnerError,
        intercepted,
        patch_recorders,
        resolve_entry,
    )
    from leapp_codemod.runner.stateplan import plan_state

    try:
        run_on = runon.from_environ()
    except ValueError as exc:
        raise RunnerError(str(exc), "config") from None
    try:
        module = _load_module(Path(cfg["file"]))
    except Exception as exc:  # noqa: BLE001
        raise RunnerError(f"{cfg['file']}: cannot import the integration module: {export.one_line(exc)}",
                          "import") from None
    timings["import"] = round(time.monotonic() - t0, 2)
    bad = names.problems({n: getattr(module, n) for n in ("ENTRY", "GRAPH", "NODE", "EXPORT_WITH", "INPUTS", "STATE")
                          if hasattr(module, n)})
    if bad:
        raise RunnerError(f"{cfg['file']}: {bad[0]}", "import")
    if getattr(module, "WARP", False):
        from leapp_codemod.runner import warp_check
        warp_check.require(module, cfg["traces"])
    if (cfg.get("inputs") or cfg.get("record")) and inline_run.is_inline(module.ENTRY):
        raise RunnerError(f"{module.ENTRY} is a statement range of the driver: `record` and `run --inputs` "
                          "replay function entries only; run the driver instead", "inputs")
    if (cfg.get("inputs") or cfg.get("record")) and getattr(module, "HELD", None) and not module.INPUTS:
        raise RunnerError(f"{module.ENTRY} reads its inputs from fields of objects it holds (HELD: "
                          f"{', '.join(module.HELD.values())}): `record` and `run --inputs` replay arguments only; "
                          "run the driver instead", "inputs")
    inline = inline_run.prepare(module.ENTRY, driver)
    entry = inline.entry if inline else resolve_entry(module.ENTRY, getattr(module, "SENT", ()),
                                                      getattr(module, "SENT_VALUE", (0,)))
    state = dict(getattr(module, "STATE", {}) or {})
    recorder = Recorder(entry=entry, input_names=tuple(module.INPUTS),
                        static_names=tuple(getattr(module, "STATIC", ())), n_trace=cfg["traces"],
                        n_check=cfg["checks"], declared=state, held=dict(getattr(module, "HELD", {}) or {}),
                        later_budget=run_on.budget,
                        host_reads=unread_parts.host_read_sites(entry.function, () if inline else (
                            *getattr(module, "SENT_HOST_READS", ()), *getattr(module, "PASS_THROUGH", ()))))
    from leapp_codemod.runner.linecover import LineCover
    recorder.cover = LineCover(tuple(dict.fromkeys(str(Path(p).resolve()) for p in (
        cfg["import_root"], driver.parent))))

    out = Path(cfg["out"])
    app_root = _app_dir(module, str(Path(cfg["import_root"]).resolve()))
    recorder.draws = draws.for_module(module)
    done: dict = {}

    def export_all() -> None:
        try:
            _export_all()
        except Exception as exc:  # noqa: BLE001 - must not reach the driver's own exception handlers
            done["error"] = exc

    def _export_all() -> None:
        """Trace, export and validate while the driver's own world (files, devices) is still up."""
        refused = draws.refused_read(recorder.draws) or _text_read(module, recorder)
        if refused:
            raise RunnerError(refused, "host-read")
        done["held_dropped"] = held_plan.settle(recorder)
        for where, why in done["held_dropped"].items():
            progress(f"held field {where}: {why}")
        if done["held_dropped"] and not recorder.input_names and not recorder.held:
            raise RunnerError(f"{module.ENTRY} has no inputs left: none of the fields it reads from held objects is "
                              f"one ({'; '.join(f'{w}: {y}' for w, y in done['held_dropped'].items())})", "inputs")
        t_plan = time.monotonic()
        plan = plan_state(state, recorder, frozenset(export.app_outputs(module, recorder)), tuple(module.PATCHES))
        timings["state_plan"] = round(time.monotonic() - t_plan, 2)
        done["plan"] = plan
        if plan.entries:
            progress(f"state: {', '.join(f'{n} ({observe.describe_path(p)})' for n, p in plan.entries)}")
        if plan.host:
            progress(f"set by the host before each call (graph inputs): "
                     f"{', '.join(f'{n} ({observe.describe_path(p)})' for n, p in plan.host)}")
        progress(f"recorded {len(recorder.traced)} calls to trace and {len(recorder.checks)} to check "
                 f"(of {recorder.calls_seen} calls so far)")
        t_check = time.monotonic()
        rows = twincheck.check_replacements(module.PATCHES, recorder, trace=True, patching=module.function_patches)
        timings["twin_check"] = round(time.monotonic() - t_check, 2)
        done["twin_check"] = rows
        if rows:
            progress(f"checked {len(rows)} FunctionPatch replacement(s) against the originals on "
                     f"{sum(r['samples'] for r in rows)} recorded and perturbed inputs")
        bad = [r for r in rows if not r["ok"]]
        if bad:
            raise RunnerError(twincheck.refusal(bad[0]), "twin-check")
        t2 = time.monotonic()
        _import_leapp(progress, timings)
        attempts, chosen = [], None
        ladder = [b for b in export.ladder(module.EXPORT_WITH, cfg.get("require_format"))
                  if b in getattr(module, "EXPORTERS", export.EXPORTERS)]
        for i, backend in enumerate(ladder, 1):
            att = export.attempt_export(module, recorder, backend, out / "attempts" / f"{i:02d}-{backend}",
                                        plan, app_root, cfg["cwd"], progress)
            attempts.append(att)
            progress(f"{backend}: {att.outcome}" + (f" at {att.stage}: {att.reason}" if att.stage else ""))
            if att.outcome == "validated":
                chosen = att
                break
            att.lost = export.lost_computation(att)
            if export.shared_failure(att):
                what = ("the trace itself failed" if att.stage == "tracing" else
                        f"the traced graph itself fails when torch runs it ({att.graph_error})")
                progress(f"{backend}: {what}; every exporter exports the same trace, so the others are not tried")
                break
            att.lost = export.lost_computation(att)
            if att.lost:
                progress(f"{backend}: computation was lost while tracing ({att.lost}); the other exporters "
                         "export the same trace, so they are not tried")
                break
        done.update(attempts=attempts, chosen=chosen, parity=export.check_patch_parity(module, recorder))
        timings["export_and_validate"] = round(time.monotonic() - t2, 2)
        if chosen is not None:
            recorder.keep_going = True
            watchdog.append(_watchdog(run_on.watchdog))
            progress(f"letting the driver run on (up to {recorder.later_budget:g} s) to check the model on calls "
                     "from the whole run")

    watchdog: list = []         # stops a driver that runs on without calling the entry (see _watchdog)
    recorder.on_done = export_all
    if cfg.get("record"):
        from leapp_codemod.runner import record
        recorder.on_done = record.saver(Path(cfg["record"]), module, recorder, done,
                                        bool(cfg.get("allow_pickle")))
    if cfg.get("inputs"):
        from leapp_codemod.runner import replay
        try:
            done["replayed"] = replay.preflight(module, cfg["inputs"], bool(cfg.get("allow_pickle")))
        except replay.RecordingError as exc:
            raise RunnerError(str(exc), "inputs") from None
    t1 = time.monotonic()
    progress(f"replaying {os.path.relpath(cfg['inputs'])} into {module.ENTRY} (the driver is not run)"
             if cfg.get("inputs") else f"running {os.path.relpath(driver)} with {module.ENTRY} intercepted")
    os.chdir(cfg["cwd"])
    now, later = inline_run.split_patches(module.PATCHES) if inline else (module.PATCHES, ())
    with contextlib.ExitStack() as stack:
        stack.enter_context(intercepted(entry, recorder))
        stack.enter_context(patch_recorders(now, recorder))
        if recorder.draws is not None:
            stack.enter_context(recorder.draws.installed(app_root))
        if later:
            inline.on_first_call.append(lambda: stack.enter_context(patch_recorders(later, recorder)))
        try:
            from leapp_codemod.runner.own_main import main_guard_runner
            own = None if inline else main_guard_runner(driver, entry.module)   # the entry's file is the driver
            crash = run_driver(driver, progress, inline.run if inline else own, tuple(cfg.get("driver_args") or ()))
        finally:
            for timer in watchdog:
                timer.cancel()
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
    if chosen is not None:
        chosen = _check_across_run(module, recorder, chosen, done["plan"], progress, timings)
    published = export.copy_artifacts(chosen, module.GRAPH, out) if chosen else None
    return {
        "entry": module.ENTRY, "graph": module.GRAPH, "node": module.NODE, "requested": module.EXPORT_WITH,
        "host_runtime": list(getattr(module, "HOST_RUNTIME", ())),
        "calls": {"seen": recorder.calls_seen, "traced": [c.index for c in recorder.traced],
                  "checked": [c.index for c in recorder.checks], "input_layout": recorder.layout,
                  "other_layouts": recorder.other_layouts, "other_instances": recorder.other_instances},
        "state": done["plan"].to_json(),
        "state_observed": [o.to_json() for o in done["plan"].observed],
        "state_notes": done["plan"].notes,
        "host_set_inputs": done["plan"].host_json(),
        "host_branches": done["plan"].host_branches,
        "snapshot": ("a copy of the instance before its first call" if recorder.snapshot is not None
                     else f"state-only (the instance cannot be copied: {recorder.snapshot_error})"
                     if recorder.entry.is_method else "module"),
        "constants": {name: text for name, (_, text, constant) in recorder.constants.items() if constant}
        | {name: repr(v)[:60] for name, v in recorder.statics.items()},
        "outputs_left_out": _left_out(module, recorder),
        **({"pass_through": recorder.pass_through} if recorder.pass_through else {}),
        "attempts": [_attempt_json(a, out) for a in attempts],
        "chosen": chosen.backend if chosen else None,
        "published": str(published) if published else None,
        "patch_parity": parity,
        "twin_check": done.get("twin_check", []),
        "replayed": done.get("replayed"),
        "executed": recorder.cover.to_json(),
        "executed_order": recorder.cover.order_json(),
        "call_lines": _call_lines(recorder, attempts),
        **draws.report(recorder.draws),
        **({"held_inputs": {name: f"self.{path}" for name, path in recorder.held.items()
                            if recorder.traced and name in recorder.traced[0].inputs}} if recorder.held else {}),
        **({"held_not_inputs": done["held_dropped"]} if done.get("held_dropped") else {}),
    }


def _import_leapp(progress, timings: dict) -> None:
    """LEAPP is imported only once there is something to export (about 4 s of CPU): `record`, and a driver
    that crashes, never calls the entry or calls it too few times, end without it. Timed apart and counted
    in `export_and_validate`, not in the driver's time."""
    if "leapp" in sys.modules:
        return
    progress("importing leapp")
    t0 = time.monotonic()
    import leapp  # noqa: F401
    timings["import_leapp"] = round(time.monotonic() - t0, 2)


def _watchdog(seconds: float):
    """A timer that sends this process SIGINT (KeyboardInterrupt in the driver, which also wakes a
    blocking sleep or wait) when the driver runs on after the export without calling the entry (a
    server loop, a viewer left open)."""
    import signal
    import threading

    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.daemon = True
    timer.start()
    return timer


def _check_across_run(module, recorder, chosen, plan, progress, timings):
    """The validated attempt checked again once the driver ended: on the calls sampled across the
    rest of the run and on varied inputs. Returns the attempt, or None when it no longer holds."""
    from leapp_codemod.runner import export
    from leapp_codemod.runner.errors import one_line
    from leapp_codemod.runner.validation import validate_across_run

    t0 = time.monotonic()
    progress(f"checking {chosen.backend} on {len(recorder.later)} calls sampled across the run "
             f"(of {recorder.later_calls} after the export) and on varied inputs")
    try:
        more = validate_across_run(module, recorder, chosen.yaml, plan)
        more = _with_inputs_used(module, recorder, chosen.yaml, plan, more)
    except Exception as exc:  # noqa: BLE001 - a model that does not run is a validation failure
        more = {"ok": False, "summary": f"the exported model did not run on the later calls: {one_line(exc)}"}
    timings["check_across_run"] = round(time.monotonic() - t0, 2)
    chosen.validation["across_run"] = more
    if more["ok"]:
        return chosen
    chosen.outcome, chosen.stage, chosen.reason = "failed", "validation", more.get("summary", "")
    chosen.lost = export.lost_computation(chosen)
    progress(f"{chosen.backend}: failed at validation: {chosen.reason}")
    return None


def _with_inputs_used(module, recorder, yaml_path, plan, more: dict) -> dict:
    """`more` with the element-by-element input-use check (runner.sensitivity); its finding leads the
    summary, followed by the across-run failure, if any."""
    from leapp import InferenceManager

    from leapp_codemod.runner.sensitivity import check_elements

    used = check_elements(InferenceManager(str(yaml_path)), module, recorder, plan)
    more = {**more, "inputs_used": used}
    if not used["ok"]:
        earlier = more.get("summary", "") if not more.get("ok", True) else ""
        more["summary"] = f"{used['summary']}; {earlier}" if earlier else used["summary"]
        more["ok"] = False
    return more


def _call_lines(recorder, attempts) -> dict:
    """The application lines each traced call executed, and those of the later calls the export differed
    on (which arm each branch took there: runner.branch_arms)."""
    bad = {c["call"] for a in attempts for c in ((a.validation.get("across_run") or {}).get("later_calls") or {})
           .get("calls", []) if not c.get("ok")}
    return {"traced": [c.lines for c in recorder.traced],
            "later": {str(c.index): c.lines for c in recorder.later if c.index in bad}}


def _left_out(module, recorder) -> list[str]:
    """Output parts that are not tensors or arrays (left out of the boundary)."""
    from leapp_codemod.boundary import left_out

    if not recorder.traced:
        return []
    try:
        return left_out(module.named_outputs(recorder.traced[0].outputs))
    except Exception:  # noqa: BLE001 - a named_outputs that does not fit the result is reported elsewhere
        return []


def _text_read(module, recorder) -> str:
    """The refusal of a file's text read inside the step (verdict.uncarried_text_read), given the reads
    the recorded calls carried and the `open(...)` calls that feed them."""
    from leapp_codemod.runner import draws
    from leapp_codemod.runner.verdict import uncarried_text_read

    sites = {site for call in recorder.traced for _, site, _, kind in (call.draws or ()) if kind == draws.READ_PREFIX}
    carried = sites | set(draws.opened_for(sites))
    findings = (*getattr(module, "HOST_RUNTIME", ()), *getattr(module, "LEFT_OUT", ()))
    return uncarried_text_read(findings, recorder.cover.to_json() if recorder.cover else None, carried)


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
    data["restored_from"] = att.restored_from
    data["warm_up_call"] = att.warm_up
    if att.warm_up_equal:
        data["starting_state_note"] = (f"the starting window came from a warm-up call: state ports "
                                       f"{', '.join(att.warm_up_equal)} start with equal values (an episode-start "
                                       f"fill); the export was checked from that start")
    if att.lost:
        data["lost_computation"] = att.lost
    return data


if __name__ == "__main__":
    from leapp_codemod.runner.procgroup import finish_child
    finish_child(main(sys.argv[1]))     # threads the driver left running do not hold the run
