"""Command line: thin click commands that call a stage, render, and choose the exit code."""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, replace
from typing import NoReturn
from pathlib import Path

import click

from leapp_codemod import __version__
from leapp_codemod.config import Config, ConfigError, load_config

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
SCAN_FORMATS = ("text", "full", "concise", "json", "sarif", "github")
SEVERITY_RANK = {"warning": 1, "error": 2}


def _split_codes(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(c.strip() for v in values for c in v.split(",") if c.strip())


def _fail(message: str) -> NoReturn:
    click.echo(f"leapp-codemod: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _config_for(paths: tuple[str, ...]) -> Config:
    start = Path(paths[0]) if paths and paths[0] != "-" else Path.cwd()
    try:
        return load_config(start if start.exists() else Path.cwd())
    except ConfigError as exc:
        _fail(str(exc))


def _checked(selectors: tuple[str, ...]) -> tuple[str, ...]:
    from leapp_codemod.rules import unknown_selectors
    unknown = unknown_selectors(selectors)
    if unknown:
        _fail(f"unknown rule code, name or category: {', '.join(unknown)} (see `leapp-codemod rules`)")
    return selectors


def _selectors(cli_values: tuple[str, ...], config_values: tuple[str, ...]) -> tuple[str, ...]:
    return _checked(_split_codes(cli_values) or config_values)


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
    if fmt in ("text", "concise", "github"):
        for error in result.errors:
            click.echo(f"leapp-codemod: {error}", err=True)


@dataclass(frozen=True)
class ReportFlags:
    """How `scan`/`lint` report: the output options shared by both commands."""

    fmt: str = "text"
    output: str | None = None
    exit_zero: bool = False
    fail_on: str = "error"
    statistics: bool = False
    quiet: bool = False
    stdin_filename: str | None = None


def _flags(options: dict) -> ReportFlags:
    fmt = "text" if options["fmt"] == "full" else options["fmt"]
    return ReportFlags(fmt, options["output"], options["exit_zero"], options["fail_on"], options["statistics"],
                       options["quiet"], options["stdin_filename"])


def _scan_options(config: Config, options: dict, **fields):
    """ScanOptions from the configuration and the command line (which wins)."""
    from leapp_codemod.scan import ScanOptions
    select = _selectors(options["select"], config.select)
    extend = _checked(_split_codes(options["extend_select"]) or config.extend_select)
    if select and extend:
        select = tuple(dict.fromkeys(select + extend))
    exclude = _split_codes(options["exclude"]) or config.exclude
    exclude += _split_codes(options["extend_exclude"]) + config.extend_exclude
    for _, selectors in config.per_file_ignores:
        _checked(selectors)
    return ScanOptions(select=select, ignore=_selectors(options["ignore"], config.ignore), exclude=exclude, **fields)


def _apply_file_ignores(result, config: Config) -> None:
    from leapp_codemod.config import file_ignores
    from leapp_codemod.rules import codes_for
    if config.per_file_ignores:
        result.findings = [f for f in result.findings if f.code not in codes_for(file_ignores(config, f.path))]


def _fails(result, flags: ReportFlags) -> bool:
    threshold = SEVERITY_RANK[flags.fail_on]
    return not flags.exit_zero and any(SEVERITY_RANK.get(f.severity, 2) >= threshold for f in result.findings)


def _finish(result, flags: ReportFlags, *, header: bool, all_functions: bool = False, stdin_text: str | None = None) -> None:
    from leapp_codemod.report import render
    from leapp_codemod.report.style import Style, color_wanted
    from leapp_codemod.report.text import SourceLines, TextOptions
    _report_errors(result, flags.fmt)
    # scan says where LEAPP's tables came from; lint (a hook run once per batch of files) does not repeat it
    if header and flags.fmt in ("text", "concise") and result.leapp_support.startswith("bundled") and not flags.quiet:
        click.echo(f"leapp-codemod: note: using the {result.leapp_support}", err=True)
    color = flags.output is None and color_wanted(sys.stdout.isatty(), os.environ)
    text_options = TextOptions(statistics=flags.statistics, quiet=flags.quiet, header=header,
                               all_functions=all_functions, style=Style(color))
    sources = SourceLines({_stdin_name(flags): stdin_text} if stdin_text is not None else None)
    _emit(render(result, flags.fmt, text_options=text_options, sources=sources), flags.output)
    if result.files_analyzed == 0:
        sys.exit(EXIT_USAGE)
    if any(e.internal for e in result.errors):
        sys.exit(EXIT_INTERNAL)
    sys.exit(EXIT_FINDINGS if _fails(result, flags) else EXIT_CLEAN)


def _stdin_name(flags: ReportFlags) -> str:
    return Path(os.path.normpath(flags.stdin_filename)).as_posix() if flags.stdin_filename else "-"


def _common_scan_options(command):
    options = [
        click.option("--output-format", "--format", "fmt", type=click.Choice(SCAN_FORMATS), default="text",
                     show_default=True,
                     help="text (= full: source line, caret, help), concise (one line per finding), json, sarif, "
                          "github."),
        click.option("--select", multiple=True,
                     help="Only these rule codes/prefixes, rule names or categories (comma-separated)."),
        click.option("--extend-select", multiple=True, help="Add these to the selection (config or --select)."),
        click.option("--ignore", multiple=True,
                     help="Skip these rule codes/prefixes, rule names or categories (comma-separated)."),
        click.option("--exclude", multiple=True, help="Glob patterns of files/folders to skip (replaces config)."),
        click.option("--extend-exclude", multiple=True, help="Glob patterns to skip in addition to the config's."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when hazards are found."),
        click.option("--fail-on", type=click.Choice(("error", "warning")), default="error", show_default=True,
                     help="Lowest severity that makes the exit code 1 (default: warnings alone exit 0)."),
        click.option("--statistics", is_flag=True, help="Print the number of findings per rule instead of each."),
        click.option("--quiet", "-q", is_flag=True, help="Print the findings only: no header, summary or notes."),
        click.option("--stdin-filename", metavar="NAME",
                     help="The file name standard input stands for (with `-` as PATH)."),
        click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to FILE atomically."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write .leapp-codemod-cache/."),
        click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                     help="Worker processes for cold scans of large trees (default: all cores)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


class _OneLineErrors(click.Group):
    """Whatever escapes a command is reported in one line, never as a traceback: user-facing
    problems (a file that vanished, a full disk) exit 2, a fault of the tool exits 3."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except OSError as exc:
            click.echo(f"leapp-codemod: error: {getattr(exc, 'filename', None) or ctx.invoked_subcommand}: "
                       f"{exc.strerror or exc}", err=True)
            sys.exit(EXIT_USAGE)
        except RecursionError:
            click.echo("leapp-codemod: error: code nested too deeply to analyze", err=True)
            sys.exit(EXIT_USAGE)
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            where = exc.__traceback__
            while where is not None and where.tb_next is not None:
                where = where.tb_next
            at = f" at {Path(where.tb_frame.f_code.co_filename).name}:{where.tb_lineno}" if where else ""
            click.echo(f"leapp-codemod: internal error in `{ctx.invoked_subcommand}`: {exc.__class__.__name__}: "
                       f"{exc}{at} (a fault of leapp-codemod; please report it)", err=True)
            sys.exit(EXIT_INTERNAL)


@click.group(cls=_OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="leapp-codemod")
def main() -> None:
    """Find LEAPP trace hazards in a PyTorch policy pipeline, generate its integration, export and validate it."""


def _read_stdin() -> str:
    data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    try:
        return data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        _fail("-: standard input is not UTF-8")


def _scan_stdin(config: Config, options, flags: ReportFlags, header: bool) -> NoReturn:
    """`scan -` / `lint -`: the text on standard input, scanned as the file `--stdin-filename` names."""
    from leapp_codemod.scan import ScanError, scan as run_scan
    from leapp_codemod.source.cache import Cache
    from leapp_codemod.source.stdin import stdin_as_file
    text = _read_stdin()
    name = _stdin_name(flags)
    with stdin_as_file(text, flags.stdin_filename) as copy:
        try:
            result = run_scan([str(copy)], replace(options, only_paths=None), Cache(None), 1)
        except ScanError as exc:
            _fail(str(exc))
        shown = Path(os.path.normpath(str(copy))).as_posix()
    result.findings = [replace(f, path=name) if f.path == shown else f for f in result.findings]
    result.errors = [replace(e, path=name) if e.path == shown else e for e in result.errors]
    if result.entry is not None:
        result.entry = replace(result.entry, path=name)
    _apply_file_ignores(result, config)
    _finish(result, flags, header=header, all_functions=options.all_functions, stdin_text=text)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--entry", help="Pipeline entrypoint MODULE:QUALNAME (default: discovered, or [tool.leapp-codemod] entry).")
@click.option("--all", "all_functions", is_flag=True, help="Analyze every function (lint mode), not only the pipeline.")
@click.option("--no-follow-libraries", is_flag=True,
              help="Do not analyze the installed packages (site-packages) the pipeline calls.")
@_common_scan_options
def scan(paths, entry, all_functions, no_follow_libraries, no_cache, jobs, **report_options):
    """Scan PATHS for trace hazards reachable from the pipeline entrypoint (`-` reads standard input)."""
    from leapp_codemod.scan import ScanError, scan as run_scan
    paths = paths or (".",)
    flags = _flags(report_options)
    config = _config_for(paths if not flags.stdin_filename else (flags.stdin_filename,))
    from leapp_codemod.analysis.inline.range import locate_inline_entry
    entry = locate_inline_entry(entry, paths)
    options = _scan_options(config, report_options, entry=entry or config.entry, all_functions=all_functions,
                            follow_libraries=not no_follow_libraries,
                            max_file_bytes=config.max_file_bytes)
    if paths == ("-",):   # one file: the configured entry is in another; only --entry names one in it
        _scan_stdin(config, replace(options, entry=entry, all_functions=all_functions or not entry), flags,
                    header=True)
    try:
        result = run_scan(list(paths), options, _cache(config, no_cache), jobs or os.cpu_count() or 1,
                          _progress(flags.quiet))
    except ScanError as exc:
        _fail(str(exc))
    _apply_file_ignores(result, config)
    _finish(result, flags, header=True, all_functions=all_functions)


def _cache(config: Config, disabled: bool):
    from leapp_codemod.source.cache import Cache
    root = Path(config.source).parent if config.source else Path.cwd()
    return Cache.at(root, enabled=not disabled)


def _progress(quiet: bool = False):
    """A one-line progress counter on an interactive terminal only."""
    if quiet or not sys.stderr.isatty():
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
def lint(files, entry, no_cache, jobs, **report_options):
    """Check FILES (pre-commit entry point): reports only on FILES, exits 1 on error findings (--fail-on).

    With an entrypoint (--entry or [tool.leapp-codemod] entry) the whole project is analyzed from it
    and findings in FILES are reported; without one, every function in FILES is treated as pipeline code.
    """
    from leapp_codemod.scan import ScanError, scan as run_scan
    if not files:
        sys.exit(EXIT_CLEAN)
    flags = _flags(report_options)
    config = _config_for(files if not flags.stdin_filename else (flags.stdin_filename,))
    entry = entry or config.entry
    if files == ("-",):
        _scan_stdin(config, _scan_options(config, report_options, entry=None, all_functions=True), flags,
                    header=False)
    root = Path(config.source).parent if config.source else Path.cwd()
    as_named = {_display_from(root if entry else None, f): Path(os.path.normpath(f)).as_posix() for f in files}
    options = _scan_options(config, report_options, entry=entry, all_functions=not entry,
                            only_paths=frozenset(as_named), max_file_bytes=config.max_file_bytes)
    paths = [os.path.relpath(root)] if entry else list(files)
    try:
        result = run_scan(paths, options, _cache(config, no_cache), jobs or 1, _progress(flags.quiet))
    except ScanError as exc:
        _fail(str(exc))
    result.findings = [replace(f, path=as_named[f.path]) for f in result.findings if f.path in as_named]
    _apply_file_ignores(result, config)
    _finish(result, flags, header=False)


def _display_from(root: Path | None, file: str) -> str:
    """The display path a file gets when `root` (or the file itself) is scanned."""
    if root is None:
        return Path(os.path.normpath(file)).as_posix()
    inside = os.path.relpath(Path(file).resolve(), root.resolve())
    return Path(os.path.normpath(os.path.join(os.path.relpath(root), inside))).as_posix()


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@click.option("--limit", type=click.IntRange(min=0), default=10, show_default=True,
              help="Show at most N candidates (0: all).")
@click.option("--driver", type=click.Path(dir_okay=False), default=None, metavar="SCRIPT",
              help="Rank by watching SCRIPT run (in a child process, under a profiler) instead of statically.")
@click.option("--calls", type=click.IntRange(2, 10000), default=10, show_default=True,
              help="With --driver: stop the driver once a candidate was called this many times.")
@click.option("--timeout", type=click.FloatRange(1, None), default=300.0, show_default=True,
              help="With --driver: seconds before the driver is stopped.")
def entrypoints(paths, fmt, limit, driver, calls, timeout):
    """List candidate pipeline entrypoints in PATHS, best first, with the reasons."""
    if driver:
        from leapp_codemod.cli_observe import observed_entrypoints
        sys.exit(observed_entrypoints(paths or (".",), driver, calls, timeout, fmt))
    from leapp_codemod.analysis.entry.entrypoints import rank_entrypoints
    from leapp_codemod.analysis.model.leapp_support import load_support
    from leapp_codemod.scan import load_project
    paths = paths or (".",)
    loaded = load_project(list(paths), _config_for(paths).exclude)
    for error in loaded.errors:
        click.echo(f"leapp-codemod: {error}", err=True)
    if not loaded.project.modules:
        if loaded.errors:           # each said why in its line
            sys.exit(EXIT_USAGE)
        _fail("nothing could be analyzed")
    ranked = rank_entrypoints(loaded.project, load_support(), limit)
    if fmt == "json":
        click.echo(json.dumps({"entrypoints": [e.to_json() for e in ranked]}, indent=2))
    elif not ranked:
        click.echo("No pipeline entrypoint candidates found; pass --entry MODULE:QUALNAME.")
    else:
        for rank, e in enumerate(ranked, 1):
            where = f"--entry {e.id}" if e.kind == "inline" else f"{e.path}:{e.line}"
            click.echo(f"{rank}. {e.title}  ({where}, score {e.score})")
            for reason in e.reasons:
                click.echo(f"     - {reason}")
    sys.exit(EXIT_CLEAN)


@main.command()
@click.option("--format", "--output-format", "fmt", type=click.Choice(("text", "json")), default="text",
              show_default=True)
def rules(fmt):
    """List every rule: code, name, category, severity, summary."""
    from leapp_codemod.report.ruledocs import rules_json, rules_table
    from leapp_codemod.rules import ALL_RULES
    if fmt == "json":
        click.echo(json.dumps(rules_json(ALL_RULES), indent=2, ensure_ascii=False))
    else:
        click.echo(rules_table(ALL_RULES).rstrip("\n"))


@main.command()
@click.argument("rule")
def explain(rule):
    """Explain RULE (a code like LCM101 or a name like item-tolist): what it does, why it breaks a LEAPP
    export, how to fix it."""
    from leapp_codemod.report.ruledocs import explain as explain_rule
    from leapp_codemod.rules import get_rule
    found = get_rule(rule)
    if found is None:
        _fail(f"unknown rule '{rule}' (see `leapp-codemod rules`)")
    click.echo(explain_rule(found).rstrip("\n"))


def _register_optional_commands() -> None:
    try:
        from leapp_codemod.cli_run import generate, record, run
    except ImportError:
        return
    main.add_command(generate)
    main.add_command(run)
    main.add_command(record)


_register_optional_commands()
