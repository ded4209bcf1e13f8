"""Command line: thin click commands that call a stage, render, and choose the exit code."""
from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from typing import NoReturn
from pathlib import Path

import click

from leapp_codemod import __version__
from leapp_codemod.config import Config, ConfigError, load_config

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
SCAN_FORMATS = ("text", "json", "sarif", "github")


def _split_codes(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(c.strip() for v in values for c in v.split(",") if c.strip())


def _fail(message: str) -> NoReturn:
    click.echo(f"leapp-codemod: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _config_for(paths: tuple[str, ...]) -> Config:
    start = Path(paths[0]) if paths else Path.cwd()
    try:
        return load_config(start if start.exists() else Path.cwd())
    except ConfigError as exc:
        _fail(str(exc))


def _selectors(cli_values: tuple[str, ...], config_values: tuple[str, ...]) -> tuple[str, ...]:
    from leapp_codemod.rules import unknown_selectors
    chosen = _split_codes(cli_values) or config_values
    unknown = unknown_selectors(chosen)
    if unknown:
        _fail(f"unknown rule code or category: {', '.join(unknown)} (see `leapp-codemod rules`)")
    return chosen


def _emit(text: str, output: str | None) -> None:
    if output:
        from leapp_codemod.io_util import write_atomic
        try:
            write_atomic(output, text if text.endswith("\n") else text + "\n")
        except OSError as exc:
            _fail(f"{output}: cannot write output: {exc.strerror or exc}")
    elif text:
        click.echo(text.rstrip("\n"))


def _report_errors(result, fmt: str) -> None:
    if fmt in ("text", "github"):
        for error in result.errors:
            click.echo(f"leapp-codemod: {error}", err=True)


def _finish(result, fmt: str, output: str | None, exit_zero: bool) -> None:
    from leapp_codemod.report import render
    _report_errors(result, fmt)
    if fmt == "text" and result.leapp_support.startswith("bundled"):
        click.echo(f"leapp-codemod: note: using the {result.leapp_support}", err=True)
    _emit(render(result, fmt), output)
    if result.files_analyzed == 0:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_FINDINGS if result.findings and not exit_zero else EXIT_CLEAN)


def _common_scan_options(command):
    options = [
        click.option("--format", "fmt", type=click.Choice(SCAN_FORMATS), default="text", show_default=True,
                     help="Output format."),
        click.option("--select", multiple=True, help="Only these rule codes/prefixes or categories (comma-separated)."),
        click.option("--ignore", multiple=True, help="Skip these rule codes/prefixes or categories (comma-separated)."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when hazards are found."),
        click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to FILE atomically."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write .leapp-codemod-cache/."),
        click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                     help="Worker processes for cold scans of large trees (default: all cores)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="leapp-codemod")
def main() -> None:
    """Find LEAPP trace hazards in a PyTorch policy pipeline, generate its integration, export and validate it."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--entry", help="Pipeline entrypoint MODULE:QUALNAME (default: discovered, or [tool.leapp-codemod] entry).")
@click.option("--all", "all_functions", is_flag=True, help="Analyze every function (lint mode), not only the pipeline.")
@click.option("--no-follow-libraries", is_flag=True,
              help="Do not analyze the installed packages (site-packages) the pipeline calls.")
@_common_scan_options
def scan(paths, entry, all_functions, no_follow_libraries, fmt, select, ignore, exit_zero, output, no_cache, jobs):
    """Scan PATHS for trace hazards reachable from the pipeline entrypoint."""
    from leapp_codemod.analysis.scanner import ScanError, ScanOptions, scan as run_scan
    paths = paths or (".",)
    config = _config_for(paths)
    options = ScanOptions(entry=entry or config.entry, all_functions=all_functions,
                          select=_selectors(select, config.select), ignore=_selectors(ignore, config.ignore),
                          exclude=config.exclude, follow_libraries=not no_follow_libraries)
    try:
        result = run_scan(list(paths), options, _cache(config, no_cache), jobs or os.cpu_count() or 1, _progress())
    except ScanError as exc:
        _fail(str(exc))
    _finish(result, fmt, output, exit_zero)


def _cache(config: Config, disabled: bool):
    from leapp_codemod.source.cache import Cache
    root = Path(config.source).parent if config.source else Path.cwd()
    return Cache.at(root, enabled=not disabled)


def _progress():
    """A one-line progress counter on an interactive terminal only."""
    if not sys.stderr.isatty():
        return lambda done, total: None

    def show(done: int, total: int) -> None:
        end = "\n" if done == total else ""
        click.echo(f"\rscanning {done}/{total} files", err=True, nl=False)
        if end:
            click.echo("", err=True)
    return show


@main.command()
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--entry", help="Pipeline entrypoint MODULE:QUALNAME (default: [tool.leapp-codemod] entry).")
@_common_scan_options
def lint(files, entry, fmt, select, ignore, exit_zero, output, no_cache, jobs):
    """Check FILES (pre-commit entry point): reports only on FILES, exits 1 on findings.

    With an entrypoint (--entry or [tool.leapp-codemod] entry) the whole project is analyzed from it
    and findings in FILES are reported; without one, every function in FILES is treated as pipeline code.
    """
    from leapp_codemod.analysis.scanner import ScanError, ScanOptions, scan as run_scan
    if not files:
        sys.exit(EXIT_CLEAN)
    config = _config_for(files)
    entry = entry or config.entry
    root = Path(config.source).parent if config.source else Path.cwd()
    as_named = {_display_from(root if entry else None, f): Path(os.path.normpath(f)).as_posix() for f in files}
    options = ScanOptions(entry=entry, all_functions=not entry, select=_selectors(select, config.select),
                          ignore=_selectors(ignore, config.ignore), exclude=config.exclude,
                          only_paths=frozenset(as_named))
    paths = [os.path.relpath(root)] if entry else list(files)
    try:
        result = run_scan(paths, options, _cache(config, no_cache), jobs or 1, _progress())
    except ScanError as exc:
        _fail(str(exc))
    result.findings = [replace(f, path=as_named[f.path]) for f in result.findings if f.path in as_named]
    _finish(result, fmt, output, exit_zero)


def _display_from(root: Path | None, file: str) -> str:
    """The display path a file gets when `root` (or the file itself) is scanned."""
    if root is None:
        return Path(os.path.normpath(file)).as_posix()
    inside = os.path.relpath(Path(file).resolve(), root.resolve())
    return Path(os.path.normpath(os.path.join(os.path.relpath(root), inside))).as_posix()


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
def entrypoints(paths, fmt):
    """List candidate pipeline entrypoints in PATHS, best first, with the reasons."""
    from leapp_codemod.analysis.entrypoints import rank_entrypoints
    from leapp_codemod.analysis.leapp_support import load_support
    from leapp_codemod.analysis.scanner import load_project
    paths = paths or (".",)
    loaded = load_project(list(paths), _config_for(paths).exclude)
    for error in loaded.errors:
        click.echo(f"leapp-codemod: {error}", err=True)
    if not loaded.project.modules:
        _fail("nothing could be analyzed")
    ranked = rank_entrypoints(loaded.project, load_support())
    if fmt == "json":
        click.echo(json.dumps({"entrypoints": [e.to_json() for e in ranked]}, indent=2))
    elif not ranked:
        click.echo("No pipeline entrypoint candidates found; pass --entry MODULE:QUALNAME.")
    else:
        for rank, e in enumerate(ranked, 1):
            click.echo(f"{rank}. {e.id}  ({e.path}:{e.line}, score {e.score})")
            for reason in e.reasons:
                click.echo(f"     - {reason}")
    sys.exit(EXIT_CLEAN)


@main.command()
def rules():
    """List every rule: code, category, severity, summary."""
    from leapp_codemod.report.ruledocs import rules_table
    from leapp_codemod.rules import ALL_RULES
    click.echo(rules_table(ALL_RULES).rstrip("\n"))


@main.command()
@click.argument("code")
def explain(code):
    """Explain rule CODE: what it does, why it breaks a LEAPP export, how to fix it."""
    from leapp_codemod.report.ruledocs import explain as explain_rule
    from leapp_codemod.rules import get_rule
    rule = get_rule(code)
    if rule is None:
        _fail(f"unknown rule code '{code}' (see `leapp-codemod rules`)")
    click.echo(explain_rule(rule).rstrip("\n"))


def _register_optional_commands() -> None:
    try:
        from leapp_codemod.cli_run import generate, record, run
    except ImportError:
        return
    main.add_command(generate)
    main.add_command(run)
    main.add_command(record)


_register_optional_commands()
