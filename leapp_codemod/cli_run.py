"""The `generate` and `run` commands (added to the main CLI group by leapp_codemod.cli)."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

EXPORTERS = ("onnx", "onnx-torchscript", "pt2", "jit-script", "jit-trace")


def _fail(message: str, code: int) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


@click.command("generate")
@click.argument("app", type=click.Path(path_type=Path))
@click.option("--entry", required=True, metavar="MODULE:QUALNAME",
              help="The pipeline entrypoint, e.g. app.policy:Policy.act.")
@click.option("--driver", type=click.Path(path_type=Path), default=None, metavar="SCRIPT",
              help="Script that runs the application (its __main__ calls the entrypoint).")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=Path("integration_generated.py"),
              show_default=True, help="Integration module to write.")
@click.option("--name", "graph", default=None, metavar="GRAPH", help="LEAPP graph and node name.")
@click.option("--export-with", type=click.Choice(EXPORTERS), default="onnx", show_default=True)
@click.option("--force", is_flag=True, help="Overwrite an existing module even if it was edited.")
def generate(app: Path, entry: str, driver: Path | None, output: Path, graph: str | None, export_with: str,
             force: bool) -> None:
    """Write one LEAPP integration module for the pipeline that starts at --entry."""
    from leapp_codemod.generate import GenerateError, Options
    from leapp_codemod.generate import generate as do_generate

    opts = Options(app=app, entry=entry, output=output, driver=driver, graph=graph, export_with=export_with)
    try:
        spec = do_generate(opts, force=force)
    except GenerateError as exc:
        _fail(str(exc), 2)
        return
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        _fail(f"{getattr(exc, 'filename', None) or app}: {exc}", 2)
        return
    stubs = [r.fn_name for r in spec.replacements if r.is_stub]
    click.echo(f"wrote {output}: node {spec.node!r}, {len(spec.inputs)} inputs, {len(spec.state)} state tensors, "
               f"{len(spec.patches)} function patches ({len(stubs)} to write), "
               f"{len(spec.unresolved)} unresolved findings", err=True)
    for name in stubs:
        click.echo(f"  write the body of {name} in {output} before `leapp-codemod run`", err=True)


@click.command("run")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=Path("leapp-out"), show_default=True,
              help="Directory for the LEAPP artifacts and report.json.")
@click.option("--traces", type=click.IntRange(1, 100), default=5, show_default=True,
              help="Calls with distinct inputs to trace.")
@click.option("--checks", type=click.IntRange(1, 1000), default=3, show_default=True,
              help="Later untraced calls to validate the exported model on.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--require-format", type=click.Choice(["onnx", "pt2", "jit"]), default=None,
              help="Only this model format counts as success.")
@click.option("--timeout", type=click.FloatRange(1, None), default=600.0, show_default=True,
              help="Seconds before the run is stopped.")
def run(file: Path, out: Path, traces: int, checks: int, fmt: str, require_format: str | None,
        timeout: float) -> None:
    """Run the recorded driver, trace the entrypoint with LEAPP, export and validate the model."""
    from leapp_codemod.runner import parent

    started = time.monotonic()
    opts = parent.RunOptions(file=file, out=out, traces=traces, checks=checks, require_format=require_format,
                             timeout=timeout)
    try:
        info = parent.read_module(file)
        if info.driver is None:
            raise parent.UsageError(f"{file}: DRIVER is not set; regenerate with --driver SCRIPT")
        if not info.driver.is_file():
            raise parent.UsageError(f"{file}: driver {info.driver} not found")
    except parent.UsageError as exc:
        if fmt == "json":
            click.echo(json.dumps({"status": "failed", "error": str(exc), "entry": None}))
        _fail(str(exc), 2)
        return

    def progress(message: str) -> None:
        click.echo(f"[run] {message}", err=True)

    try:
        if info.stubs:
            report = parent.stub_report(info, opts)
        else:
            child = parent.run_child(info, opts, progress)
            report = parent.build_report(info, opts, child, time.monotonic() - started)
        path = parent.write_report(report, out)
    except parent.Interrupted as exc:
        report = {"status": "failed", "entry": info.entry, "error": str(exc), "failed_stage": "interrupted",
                  "timings": {"total": round(time.monotonic() - started, 2)}}
        try:
            parent.write_report(report, out)
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
        for line in parent.summary_lines(report):
            click.echo(line, err=True)
    else:
        for line in parent.summary_lines(report):
            click.echo(line)
        click.echo(f"report: {path}")
    sys.exit(0 if report["status"] == "validated" else 1)
