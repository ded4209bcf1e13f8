"""The `generate` and `run` commands (added to the main CLI group by leapp_codemod.cli)."""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import click

from leapp_codemod.knowledge.leapp import EXPORTERS


def _fail(message: str, code: int) -> None:
    click.echo(f"leapp-codemod: error: {message}", err=True)
    sys.exit(code)


def _shown(path: Path) -> str:
    """`path` relative to the working directory when it is below it, else as it is."""
    try:
        return Path(os.path.relpath(path)).as_posix() if not os.path.relpath(path).startswith("..") else str(path)
    except ValueError:
        return str(path)


@click.command("generate")
@click.argument("app", type=click.Path(path_type=Path))
@click.option("--entry", default=None, metavar="MODULE:QUALNAME|FILE:START-END",
              help="The pipeline entrypoint, e.g. app.policy:Policy.act, or a statement range of the driver "
                   "FILE:START-END (default: the entry `scan` chooses; with --driver, the one the running "
                   "driver shows).")
@click.option("--static", "static", is_flag=True, help="Without --entry: choose by static ranking (as `scan` "
              "does) even when --driver is given, without running the driver.")
@click.option("--driver", type=click.Path(path_type=Path), default=None, metavar="SCRIPT",
              help="Script that runs the application (its __main__ calls the entrypoint in a loop). "
                   "Default: the script next to APP whose loop calls the entrypoint.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Integration module to write (default: leapp_integration.py next to the driver, outside the "
                   "application package).")
@click.option("--name", "graph", default=None, metavar="GRAPH", help="LEAPP graph and node name.")
@click.option("--export-with", type=click.Choice(EXPORTERS), default="onnx", show_default=True)
@click.option("--force", is_flag=True, help="Overwrite an existing module, edits included (nothing is merged).")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when regenerating would change the module.")
@click.option("--diff", is_flag=True, help="Write nothing; print the diff regenerating would make (exit 1 if any).")
@click.option("--backend-param", "backend_param", multiple=True, metavar="KEY=VALUE",
              help="Exporter parameter for output_tensors(backend_params=...), e.g. opset_version=17 (repeatable).")
@click.option("--semantics", is_flag=True,
              help="Write LEAPP TensorSemantics (kind, element_names) for inputs/outputs with an unambiguous meaning.")
@click.option("--split", "split", multiple=True, metavar="NAME=MODULE:FUNCTION[,...]",
              help="End node NAME where helper FUNCTION returns (a multi-node graph); needs --reason.")
@click.option("--reason", "split_reason", default=None, metavar="TEXT",
              help="Why the pipeline must be split (written into the module and report.json).")
@click.option("--driver-args", "driver_args", default=None, metavar='"ARGS"',
              help="The driver's command-line arguments, one shell-quoted string (e.g. \"configs/go2.yaml "
                   "--headless\"): written into the module as DRIVER_ARGS, which `run` passes to the driver.")
@click.option("--driver-env", "driver_env", multiple=True, metavar="NAME=VALUE",
              help="An environment variable the driver needs (e.g. MUJOCO_GL=egl), written into the module as "
                   "DRIVER_ENV and set by `run` (repeatable).")
def generate(app: Path, entry: str | None, static: bool, driver: Path | None, output: Path | None, graph: str | None,
             export_with: str, force: bool, check: bool, diff: bool, backend_param: tuple[str, ...],
             semantics: bool, split: tuple[str, ...], split_reason: str | None, driver_args: str | None,
             driver_env: tuple[str, ...]) -> None:
    """Write one LEAPP integration module for the pipeline that starts at --entry.

    Running it again keeps the functions you wrote in the module (stubs you filled in, replacements
    you changed), matched by name; reformatting the module is not an edit.
    """
    if entry is not None and not entry.strip():
        _fail("--entry is empty; pass MODULE:QUALNAME or FILE:START-END", 2)
        return
    if entry is None and app.exists():   # the configured entry, as `scan` uses it
        from leapp_codemod.config import ConfigError, load_config
        try:
            entry = load_config(app).entry
        except ConfigError as exc:
            _fail(str(exc), 2)
            return
        if entry is not None:
            click.echo(f"entry: {entry} ([tool.leapp-codemod] entry)", err=True)
    if entry is None:
        from leapp_codemod.cli_observe import EntryChoiceError, choose_entry
        try:
            entry, why = choose_entry(app, driver, static or driver is None)
        except EntryChoiceError as exc:
            _fail(str(exc), 2)
            return
        click.echo(f"entry: {entry} ({why})", err=True)
    from leapp_codemod.generate import GenerateError, Options, plan, write_plan
    from leapp_codemod.generate.backend_params import (
        BackendParamError,
        parse_assignments,
    )

    try:
        params = tuple(parse_assignments(backend_param).items())
    except BackendParamError as exc:
        _fail(str(exc), 2)
        return
    from leapp_codemod.generate.driver import DriverArgsError, parse_driver_args, parse_driver_env
    try:
        args_kept, env_kept = parse_driver_args(driver_args), parse_driver_env(driver_env)
    except DriverArgsError as exc:
        _fail(str(exc), 2)
        return
    driver_note, driver_warning = None, None
    from leapp_codemod.analysis.inline.range import locate_inline_entry, parse_inline_entry
    entry = locate_inline_entry(entry, [str(app)])
    if driver is None and app.exists() and not parse_inline_entry(entry):   # an inline entry names its driver
        from leapp_codemod.generate.driver import find_driver, search_root
        found = find_driver(app, entry)
        if found is None:
            driver_warning = (f"leapp-codemod: warning: no script under {_shown(search_root(app))} calls {entry} in a "
                              f"loop; the module gets no driver and `run` needs one: "
                              f"`leapp-codemod generate {app} --entry {entry} --driver SCRIPT`")
        else:
            driver, driver_note = found.path, found.reason
    if output is None:
        from leapp_codemod.generate import default_output
        output = default_output(app, driver)
    opts = Options(app=app, entry=entry, output=output, driver=driver, graph=graph, export_with=export_with,
                   backend_params=params, semantics=semantics, split=split, split_reason=split_reason,
                   driver_args=args_kept, driver_env=env_kept)
    try:
        planned = plan(opts, force=force)
    except GenerateError as exc:
        _fail(str(exc), 2)
        return
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        _fail(f"{getattr(exc, 'filename', None) or app}: {exc}", 2)
        return
    if driver_warning:
        click.echo(driver_warning, err=True)
    if planned.observed_note:
        click.echo(planned.observed_note, err=True)
    name = _shown(output)
    if check or diff:
        if diff:
            click.echo(planned.diff(name), nl=False)
        if planned.up_to_date:
            click.echo(f"{name}: up to date", err=True)
            sys.exit(0)
        click.echo(f"{name}: would be {'rewritten' if planned.existing is not None else 'created'} by `generate`",
                   err=True)
        sys.exit(1)
    try:
        write_plan(planned, output, _app_sources(app, driver, output))
    except OSError as exc:
        _fail(f"{name}: cannot write: {exc.strerror or exc}", 2)
        return
    spec = planned.spec
    stubs = [r.fn_name for r in spec.replacements if r.is_stub]
    if driver is not None:
        click.echo(f"driver: {_shown(driver)}" + (f" ({driver_note})" if driver_note else ""), err=True)
    held = f" (+{len(spec.held)} read from held objects: {', '.join(h.path for h in spec.held)})" if spec.held else ""
    click.echo(f"wrote {name}: node {spec.node!r}, {len(spec.inputs)} inputs{held}, {len(spec.state)} state tensors, "
               f"{len(spec.patches)} function patches ({len(stubs)} to write), "
               f"{len(spec.unresolved)} unresolved findings", err=True)
    merged = planned.merge
    for fn_name in merged.kept:
        click.echo(f"  kept your version of {fn_name}", err=True)
    for fn_name in merged.orphans:
        click.echo(f"  kept {fn_name} (no longer generated) at the end of {name}", err=True)
    for fn_name, text in zip(merged.conflicts, merged.conflict_diffs):
        click.echo(f"  conflict: {fn_name} was edited and its generated version changed too; yours is kept, "
                   f"the generated one differs as follows:", err=True)
        click.echo(text.rstrip("\n"), err=True)
    for fn_name in stubs:
        if fn_name not in merged.kept:
            click.echo(f"  write the body of {fn_name} in {name} before `leapp-codemod run`", err=True)
    click.echo(f"next: leapp-codemod run {name}", err=True)
    split_spec = spec.extras.split if spec.extras else None
    if split_spec is not None:
        click.echo(f"  split into {len(split_spec.order)} nodes: {' -> '.join(split_spec.order)}"
                   + ("" if split_spec.checked_statically else " (helpers not called directly by the entry: the "
                      "cuts are checked on the exported graph only)"), err=True)
    sem = spec.extras.semantics if spec.extras else None
    if sem is not None:
        kinds = [f"{m.name}={m.kind}" for m in (*sem.inputs, *sem.outputs)]
        click.echo(f"  semantics: {', '.join(kinds) or 'none'}", err=True)
        for port, why in sem.raw:
            click.echo(f"  left raw: {port}: {why}", err=True)


def _app_sources(app: Path, driver: Path | None, output: Path) -> tuple[Path, ...]:
    """The files `generate` must never write: the application's sources and its driver (an integration
    module `generate` wrote earlier inside the application's folder is its own output, not a source)."""
    from leapp_codemod.generate.guard import is_generated_text
    from leapp_codemod.source.files import discover

    def ours(path: Path) -> bool:
        try:
            return path.resolve() == output.resolve() and is_generated_text(path.read_text(errors="replace"))
        except OSError:
            return False

    sources = tuple(src.path for src in discover([str(app)]).files if not ours(src.path))
    return sources + ((driver,) if driver is not None else ())


@click.command("run")
@click.argument("file", type=click.Path(path_type=Path))
@click.argument("driver_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- DRIVER_ARGS...]")
@click.option("--out", type=click.Path(path_type=Path), default=Path("leapp-out"), show_default=True,
              help="Directory for the LEAPP artifacts and report.json.")
@click.option("--traces", type=click.IntRange(1, 100), default=5, show_default=True,
              help="Calls with distinct inputs to trace.")
@click.option("--checks", type=click.IntRange(1, 1000), default=3, show_default=True,
              help="Later untraced calls to validate the exported model on.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--require-format", type=click.Choice(EXPORTERS), default=None, metavar="EXPORTER",
              help=f"Only a model from this exporter counts as success ({', '.join(EXPORTERS)}; onnx also "
                   f"accepts onnx-torchscript, which writes ONNX too).")
@click.option("--timeout", type=click.FloatRange(1, None), default=600.0, show_default=True,
              help="Seconds before the run is stopped.")
@click.option("--inputs", type=click.Path(path_type=Path), default=None, metavar="CALLS.npz",
              help="Replay a recording (`leapp-codemod record`) instead of running the driver.")
@click.option("--allow-pickle", is_flag=True,
              help="With --inputs: load the pickled instance a recording made with --allow-pickle holds. "
                   "Loading it runs code from the file: only for recordings you made or trust.")
def run(file: Path, driver_args: tuple[str, ...], out: Path, traces: int, checks: int, fmt: str,
        require_format: str | None, timeout: float, inputs: Path | None, allow_pickle: bool) -> None:
    """Run the recorded driver, trace the entrypoint with LEAPP, export and validate the model.

    Arguments after `--` are passed to the driver (they replace the module's DRIVER_ARGS)."""
    from leapp_codemod.runner import module_info, parent, summary, verdict

    started = time.monotonic()
    opts = parent.RunOptions(file=file, out=out, traces=traces, checks=checks, require_format=require_format,
                             timeout=timeout, inputs=inputs, allow_pickle=allow_pickle,
                             driver_args=driver_args)
    try:
        info = module_info.read_module(file)
        module_info.refuse_stale(info)
        if inputs is not None:
            _check_recording(inputs, file, info.entry, traces, checks, allow_pickle)
        elif info.driver is None:
            raise module_info.UsageError(f"{file}: DRIVER is not set; regenerate with --driver SCRIPT")
        elif not info.driver.is_file():
            raise module_info.UsageError(f"{file}: driver {info.driver} not found")
        _check_out(out, info)
    except module_info.UsageError as exc:
        if fmt == "json":
            click.echo(json.dumps({"status": "failed", "error": str(exc), "entry": None}))
        _fail(str(exc), 2)
        return

    def progress(message: str) -> None:
        click.echo(f"[run] {message}", err=True)

    try:
        if info.stubs:
            report = verdict.stub_report(info, opts)
        else:
            child = parent.run_child(info, opts, progress)
            report = verdict.build_report(info, opts, child, time.monotonic() - started)
        path = verdict.write_report(report, out)
    except parent.Interrupted as exc:
        report = {"status": "failed", "entry": info.entry, "error": str(exc), "failed_stage": "interrupted",
                  "timings": {"total": round(time.monotonic() - started, 2)}}
        try:
            verdict.write_report(report, out)
        except OSError:
            pass
        if fmt == "json":
            click.echo(json.dumps(report))
        _fail(str(exc), 128 + exc.signum)
        return
    except OSError as exc:
        if fmt == "json":
            click.echo(json.dumps({"status": "failed", "error": str(exc), "entry": info.entry}))
        _fail(f"{getattr(exc, 'filename', None) or out}: {exc.strerror or exc}", 1)
        return
    if fmt == "json":
        click.echo(json.dumps(report, default=str))
        for line in summary.summary_lines(report):
            click.echo(line, err=True)
    else:
        for line in summary.summary_lines(report):
            click.echo(line)
        click.echo(f"report: {_shown(path)}")
    sys.exit(0 if report["status"] == "validated" else 1)


def _check_out(out: Path, info) -> None:
    """--out must be a fresh folder or an owned folder of regular files (see io_util.prepare_out_dir)."""
    from leapp_codemod.io_util import UnsafeOutput, prepare_out_dir
    from leapp_codemod.runner import module_info

    try:
        prepare_out_dir(out)
    except UnsafeOutput as exc:
        raise module_info.UsageError(str(exc)) from None
    except OSError as exc:
        raise module_info.UsageError(f"{exc.filename or out}: {exc.strerror or exc}") from None


def _check_recording(path: Path, module: Path, entry: str, traces: int, checks: int, allow_pickle: bool) -> None:
    from leapp_codemod.runner import module_info
    from leapp_codemod.runner.record import (
        RecordingError,
        check_matches,
        has_pickle,
        read_meta,
    )

    try:
        check_matches(read_meta(path), path, entry, module_info.module_inputs(module), traces, checks)
    except RecordingError as exc:
        raise module_info.UsageError(str(exc)) from None
    if has_pickle(path):
        if not allow_pickle:
            raise module_info.UsageError(f"{path}: holds a pickled Python object (loading it runs code from the "
                                         "file); pass --allow-pickle only for a recording you made or trust")
        click.echo(f"leapp-codemod: warning: {path}: loading its pickled instance (--allow-pickle) runs code from "
                   "the file", err=True)


@click.command("record")
@click.argument("file", type=click.Path(path_type=Path))
@click.argument("driver_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- DRIVER_ARGS...]")
@click.option("--out", "target", type=click.Path(path_type=Path, dir_okay=False), default=Path("calls.npz"),
              show_default=True, help="Recording to write.")
@click.option("--traces", type=click.IntRange(1, 100), default=5, show_default=True,
              help="Calls with distinct inputs to record for tracing.")
@click.option("--checks", type=click.IntRange(1, 1000), default=3, show_default=True,
              help="Later calls to record for validation.")
@click.option("--timeout", type=click.FloatRange(1, None), default=600.0, show_default=True,
              help="Seconds before the driver is stopped.")
@click.option("--allow-pickle", is_flag=True,
              help="Store the application's instance (a method entry needs it) as a pickle; whoever replays the "
                   "recording runs code from it (`run --inputs` asks for --allow-pickle too).")
def record(file: Path, driver_args: tuple[str, ...], target: Path, traces: int, checks: int, timeout: float,
           allow_pickle: bool) -> None:
    """Run the driver once, as `run` does, and save what the entry received (for `run --inputs`)."""
    import tempfile

    from leapp_codemod.io_util import check_target
    from leapp_codemod.runner import module_info, parent, verdict

    try:
        info = module_info.read_module(file)
        if info.driver is None:
            raise module_info.UsageError(f"{file}: DRIVER is not set; regenerate with --driver SCRIPT")
        if not info.driver.is_file():
            raise module_info.UsageError(f"{file}: driver {info.driver} not found")
        if not target.parent.is_dir():
            raise module_info.UsageError(f"{target.parent}: no such folder")
        check_target(target, protected=(info.driver, info.path))
    except module_info.UsageError as exc:
        _fail(str(exc), 2)
        return
    except OSError as exc:
        _fail(f"{exc.filename or target}: {exc.strerror or exc}", 2)
        return
    if allow_pickle:
        click.echo(f"leapp-codemod: warning: {target} will hold a pickle (--allow-pickle): replaying it runs code "
                   "from the file", err=True)
    work = tempfile.mkdtemp(prefix="leapp-codemod-record-")
    opts = parent.RunOptions(file=file, out=Path(work), traces=traces, checks=checks, timeout=timeout,
                             record=target, allow_pickle=allow_pickle, cleanup=(work,), driver_args=driver_args)
    try:
        child = parent.run_child(info, opts, lambda message: click.echo(f"[record] {message}", err=True))
    except parent.Interrupted as exc:
        _fail(f"record: {exc}; {target} was not written", 128 + exc.signum)
        return
    finally:
        import shutil
        shutil.rmtree(work, ignore_errors=True)
    data = child.data
    if child.timed_out:
        _fail(f"timed out after {timeout:g} s", 1)
    if "error" in data or "recorded" not in data:
        _fail(data.get("error") or verdict.child_crash_message(child), 1)
    meta = data["meta"]
    click.echo(f"recorded {meta['traced']} traced + {meta['checked']} checked calls of {meta['entry']} "
               f"({meta['layout']}) to {target}")
