"""Command line: thin click commands that call a stage, render, and choose the exit code."""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NoReturn

import click

from leapp_codemod import __version__
from leapp_codemod.cli_settings import (
    apply_integrations,
    drop_excluded,
    effective,
    force_excluded,
    model_and_reported,
    setting_option,
)
from leapp_codemod.config import Config, ConfigError, load_config

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
SCAN_FORMATS = ("text", "full", "concise", "json", "sarif", "github")
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


def _check_entry(entry: str | None) -> None:
    if entry is not None and not entry.strip():
        _fail("--entry is empty; pass MODULE:QUALNAME or FILE:START-END")


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
    from leapp_codemod.rules import ALL_RULES, unknown_selectors
    from leapp_codemod.settings import did_you_mean
    unknown = unknown_selectors(selectors)
    if unknown:
        known = {word for r in ALL_RULES for word in (r.code, r.name, r.category)}
        _fail("unknown rule code, name or category: "
              + ", ".join(f"{u}{did_you_mean(u, known)}" for u in unknown) + " (see `leapp-codemod rules`)")
    return selectors


def _emit(text: str, output: str | None, protected: tuple[str, ...] = ()) -> None:
    if output:
        from leapp_codemod.io_util import write_atomic
        try:
            write_atomic(output, text if text.endswith("\n") else text + "\n", protected=protected)
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
    show_resolved: bool = False
    add_noqa: bool = False
    protected: tuple[str, ...] = ()     # the sources the scan reads: never written by -o


def _flags(options: dict) -> ReportFlags:
    fmt = "text" if options["fmt"] == "full" else options["fmt"]
    return ReportFlags(fmt, options["output"], options["exit_zero"], options["fail_on"], options["statistics"],
                       options["quiet"], options["stdin_filename"], options["show_resolved"], options["add_noqa"])


def _guard_output(flags: ReportFlags, paths, excludes: tuple[str, ...], follow: bool = False) -> ReportFlags:
    """Check `-o` before scanning (one line, exit 2) and remember the sources it must never replace."""
    if not flags.output:
        return flags
    from leapp_codemod.io_util import check_target
    from leapp_codemod.source.files import discover
    sources = tuple(str(src.path) for src in discover([p for p in paths if p != "-"], excludes, follow).files)
    try:
        check_target(flags.output, protected=sources)
    except OSError as exc:
        _fail(f"{flags.output}: cannot write output: {exc.strerror or exc}")
    return replace(flags, protected=sources)


def _scan_options(config: Config, options: dict, **fields):
    """ScanOptions from the configuration and the command line (which wins)."""
    from leapp_codemod.scan import ScanOptions
    value = {name: v for name, (v, _) in effective(config, options).items()}
    select, extend = _checked(value["select"]), _checked(value["extend_select"])
    if select and extend:
        select = tuple(dict.fromkeys(select + extend))
    for _, selectors in config.per_file_ignores:
        _checked(selectors)
    return ScanOptions(select=select, ignore=_checked(value["ignore"]),
                       exclude=value["exclude"] + value["extend_exclude"], bind=_bindings(value["bind"]),
                       follow_symlinks=options.get("follow_symlinks", False), **fields)


def _apply_file_ignores(result, config: Config) -> None:
    from leapp_codemod.config import file_ignores
    from leapp_codemod.rules import codes_for
    if config.per_file_ignores:
        result.findings = [f for f in result.findings if f.code not in codes_for(file_ignores(config, f.path))]


FAIL_ON = ("error", "warning", "info", "not-followed")


def _fail_on(ctx, param, value: str) -> str:
    levels = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [v for v in levels if v not in FAIL_ON]
    if unknown or not levels:
        raise click.BadParameter(f"{', '.join(unknown) or value!r}: expected a comma-separated list of "
                                 f"{', '.join(FAIL_ON)}")
    return ",".join(levels)


def _fails(result, flags: ReportFlags) -> bool:
    """Exit 1 when a finding is at least as severe as the lowest severity `--fail-on` names, or, with
    `not-followed` in it, when a call in the pipeline was not followed."""
    if flags.exit_zero:
        return False
    levels = flags.fail_on.split(",")
    ranks = [SEVERITY_RANK[level] for level in levels if level in SEVERITY_RANK]
    if ranks and any(SEVERITY_RANK.get(f.severity, 2) >= min(ranks) for f in result.findings):
        return True
    return "not-followed" in levels and bool(getattr(result, "not_followed", ()))


def _add_noqa(result, config: Config) -> NoReturn:
    """`--add-noqa`: write the suppressions, say how many, exit 0 (2 when nothing could be analyzed)."""
    from leapp_codemod.noqa import add_noqa
    report = add_noqa(result.findings, config.root if config.source else Path.cwd())
    for line in report.skipped:
        click.echo(f"leapp-codemod: {line}", err=True)
    where = f" in {len(report.files)} file{'s' if len(report.files) != 1 else ''}" if report.files else ""
    click.echo(f"Added {report.added} noqa directive{'s' if report.added != 1 else ''}{where}.")
    sys.exit(EXIT_USAGE if result.files_analyzed == 0 else EXIT_CLEAN)


def _finish(result, flags: ReportFlags, *, header: bool, all_functions: bool = False, stdin_text: str | None = None,
            config: Config | None = None) -> None:
    if flags.add_noqa and stdin_text is None and config is not None:
        _report_errors(result, flags.fmt)
        _add_noqa(result, config)
    from leapp_codemod.report import render
    from leapp_codemod.report.style import Style, color_wanted
    from leapp_codemod.report.text import SourceLines, TextOptions
    _report_errors(result, flags.fmt)
    # scan says where LEAPP's tables came from; lint (a hook run once per batch of files) does not repeat it
    if header and flags.fmt in ("text", "concise") and result.leapp_support.startswith("bundled") and not flags.quiet:
        click.echo(f"leapp-codemod: note: using the {result.leapp_support}", err=True)
    from leapp_codemod.analysis.inline.range import RANGE_TAKEN
    if flags.fmt in ("concise", "github") and RANGE_TAKEN in result.entry_note:   # text prints the entry line
        click.echo(f"leapp-codemod: note: {result.entry_note.partition('; ')[2]}", err=True)
    color = flags.output is None and color_wanted(sys.stdout.isatty(), os.environ)
    text_options = TextOptions(statistics=flags.statistics, quiet=flags.quiet, header=header,
                               all_functions=all_functions, style=Style(color), show_resolved=flags.show_resolved)
    sources = SourceLines({_stdin_name(flags): stdin_text} if stdin_text is not None else None)
    _emit(render(result, flags.fmt, text_options=text_options, sources=sources), flags.output, flags.protected)
    if result.files_analyzed == 0:
        sys.exit(EXIT_USAGE)
    if any(e.internal for e in result.errors):
        sys.exit(EXIT_INTERNAL)
    sys.exit(EXIT_FINDINGS if _fails(result, flags) else EXIT_CLEAN)


def _stdin_name(flags: ReportFlags) -> str:
    return Path(os.path.normpath(flags.stdin_filename)).as_posix() if flags.stdin_filename else "-"


def _common_scan_options(command):
    from leapp_codemod.settings import SETTINGS
    options = [
        click.option("--output-format", "--format", "fmt", type=click.Choice(SCAN_FORMATS), default="text",
                     show_default=True,
                     help="text (= full: source line, caret, help), concise (one line per finding), json, sarif, "
                          "github."),
        *(setting_option(s) for s in SETTINGS if s.flag and command.__name__ in s.commands),
        click.option("--follow-symlinks", is_flag=True,
                     help="Read files and folders that symbolic links lead to outside the scanned folder "
                          "(skipped with a note by default; never a setting: a repository cannot turn it on)."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when hazards are found."),
        click.option("--fail-on", default="error", show_default=True, callback=_fail_on,
                     help="What makes the exit code 1: the lowest severity (error, warning, info) and/or not-followed "
                          "(a call in the pipeline was not followed), comma-separated."),
        click.option("--statistics", is_flag=True, help="Print the number of findings per rule instead of each."),
        click.option("--quiet", "-q", is_flag=True, help="Print the findings only: no header, summary or notes."),
        click.option("--stdin-filename", metavar="NAME",
                     help="The file name standard input stands for (with `-` as PATH)."),
        click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to FILE atomically."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write .leapp-codemod-cache/."),
        click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                     help="Worker processes for cold scans of large trees (default: all cores)."),
        click.option("--show-settings", is_flag=True,
                     help="Print the settings in effect (and where each came from), then exit."),
        click.option("--show-files", is_flag=True, help="Print the files that would be analyzed, then exit."),
        click.option("--add-noqa", is_flag=True,
                     help="Append `# noqa: CODE` to the line of every remaining finding (keeps existing codes; "
                          "only files inside the project), then exit."),
        click.option("--show-resolved", is_flag=True,
                     help="Also list the findings a generated integration module resolves (its STATE, PATCHES, "
                          "twins); they are never errors."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _show_settings(config: Config, options: dict) -> NoReturn:
    from leapp_codemod.settings import BY_KEY, format_value
    click.echo(f"# settings from {config.source or '(no pyproject.toml: defaults)'}")
    for attr, (value, origin) in effective(config, options).items():
        setting = BY_KEY[attr.replace("_", "-")]
        click.echo(f"{setting.key} = {format_value(value, setting.kind)}  # {origin}")
    sys.exit(EXIT_CLEAN)


def _show_files(paths, exclude: tuple[str, ...]) -> NoReturn:
    from leapp_codemod.source.files import discover
    found = discover(list(paths), exclude)
    for src in found.files:
        click.echo(src.display)
    for error in found.errors:
        click.echo(f"leapp-codemod: {error}", err=True)
    sys.exit(EXIT_CLEAN if found.files else EXIT_USAGE)


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
            from leapp_codemod.runner.procgroup import Interrupted
            if isinstance(exc, Interrupted):
                click.echo(f"leapp-codemod: error: {ctx.invoked_subcommand}: {exc}", err=True)
                sys.exit(128 + exc.signum)
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
@click.option("--all", "all_functions", is_flag=True, help="Analyze every function (lint mode), not only the pipeline.")
@click.option("--no-follow-libraries", is_flag=True,
              help="Do not analyze the installed packages (site-packages) the pipeline calls.")
@click.option("--inputs", type=click.Path(dir_okay=False), metavar="CALLS.npz",
              help="Replay a recording (`record`) instead of running a driver.")
@click.option("--observe-calls", type=click.IntRange(1, 1000), default=3, show_default=True,
              help="With --driver/--inputs: entry calls observed.")
@click.option("--allow-pickle", is_flag=True,
              help="With --inputs: let the recording unpickle the entry's instance (this runs code from the file).")
@_common_scan_options
def scan(paths, all_functions, no_follow_libraries, driver, inputs, observe_calls, allow_pickle, no_cache, jobs,
         show_settings, show_files, **report_options):
    """Scan PATHS for trace hazards reachable from the pipeline entrypoint (`-` reads standard input)."""
    from leapp_codemod.scan import ScanError, scan as run_scan
    paths = paths or (".",)
    _check_entry(report_options["entry"])
    flags = _flags(report_options)
    config = _config_for(paths if not flags.stdin_filename else (flags.stdin_filename,))
    if show_settings:
        _show_settings(config, report_options)
    paths = force_excluded(config, paths, report_options) or _nothing_left(flags)
    from leapp_codemod.analysis.inline.range import locate_inline_entry
    entry = locate_inline_entry(report_options["entry"], paths)
    options = _scan_options(config, report_options, entry=entry or config.entry, all_functions=all_functions,
                            follow_libraries=not no_follow_libraries,
                            max_file_bytes=config.max_file_bytes)
    if show_files:
        _show_files(paths, options.exclude)
    flags = _guard_output(flags, paths, options.exclude, options.follow_symlinks)
    if paths == ("-",):   # one file: the configured entry is in another; only --entry names one in it
        _scan_stdin(config, replace(options, entry=entry, all_functions=all_functions or not entry), flags,
                    header=True)
    note = ""
    if not all_functions:
        from leapp_codemod.cli_observe import observation_or_exit
        observed_entry, observed, note = observation_or_exit(paths, config, options.entry, driver, inputs,
                                                             observe_calls, options.exclude,
                                                             allow_pickle=allow_pickle)
        options = replace(options, entry=observed_entry, observed=observed)
    whole, reported = model_and_reported(options)
    try:
        result = run_scan(list(paths), whole, _cache(config, no_cache, paths), jobs or os.cpu_count() or 1,
                          _progress(flags.quiet))
    except ScanError as exc:
        _fail(str(exc))
    result.observed_note = result.observed_note or note
    drop_excluded(result, config, paths, reported)
    _apply_file_ignores(result, config)
    apply_integrations(result, config, report_options, _around(paths, config))
    _finish(result, flags, header=True, all_functions=all_functions, config=config)


def _nothing_left(flags: ReportFlags) -> NoReturn:
    """Every file named was excluded (force-exclude): nothing to report, as ruff does."""
    if not flags.quiet:
        click.echo("leapp-codemod: every file named is excluded (force-exclude); nothing to check", err=True)
    sys.exit(EXIT_CLEAN)


def _bindings(values) -> tuple[tuple[str, str], ...]:
    """Bindings from the config (pairs) and from --bind (EXPR=MODULE:CLASS strings), checked."""
    from leapp_codemod.config import parse_binding
    out = []
    for value in values:
        parsed = parse_binding(value) if isinstance(value, str) else tuple(value)
        if parsed is None:
            _fail(f"--bind {value}: expected EXPR=MODULE:CLASS, e.g. --bind self.adapter=pkg.adapters:Adapter")
        out.append(parsed)
    return tuple(dict.fromkeys(out))


def _cache(config: Config, disabled: bool, paths=()):
    from leapp_codemod.source.cache import Cache
    root = Path(config.source).parent if config.source else Path.cwd()
    return Cache.at(root, enabled=not disabled, tree=tuple(paths))


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
@click.option("--all", "all_functions", is_flag=True,
              help="Treat every function in FILES as pipeline code (no entrypoint is looked for).")
@_common_scan_options
def lint(files, all_functions, no_cache, jobs, show_settings, show_files, **report_options):
    """Check FILES (pre-commit entry point): reports only on FILES, exits 1 on error findings (--fail-on).

    The whole project is analyzed from its pipeline entrypoint (--entry, [tool.leapp-codemod] entry, or
    the one discovered as `scan` does) and the findings in FILES are reported: code the pipeline never
    reaches (training, constructors, the driver's simulated inputs) is not checked. Findings the project's
    generated integration module resolves are counted, not reported (--show-resolved lists them).
    """
    from leapp_codemod.scan import ScanError, scan as run_scan
    flags = _flags(report_options)
    config = _config_for(files if not flags.stdin_filename else (flags.stdin_filename,))
    if show_settings:
        _show_settings(config, report_options)
    if not files:
        sys.exit(EXIT_CLEAN)
    files = force_excluded(config, files, report_options) or _nothing_left(flags)
    entry = report_options["entry"] or config.entry
    _check_entry(report_options["entry"])
    if show_files:
        _show_files(files, _scan_options(config, report_options).exclude)
    if files == ("-",):
        _scan_stdin(config, _scan_options(config, report_options, entry=None, all_functions=True), flags,
                    header=False)
    root = Path(config.source).parent if config.source and entry else _around(files, config)
    whole = not all_functions      # the project from its entry (named or discovered), reported in FILES
    as_named = {Path(os.path.normpath(f)).as_posix(): Path(os.path.normpath(f)).as_posix() for f in files}
    if whole:
        as_named.update({_display_from(root, f): Path(os.path.normpath(f)).as_posix() for f in files})
    options = _scan_options(config, report_options, entry=entry, all_functions=all_functions,
                            only_paths=frozenset(as_named), max_file_bytes=config.max_file_bytes)
    # named files are analyzed even when an exclusion matches them (force-exclude dropped those it should)
    paths = [os.path.relpath(root), *files] if whole else list(files)
    flags = _guard_output(flags, paths, options.exclude, options.follow_symlinks)
    note = ""
    if entry:   # a fresh saved observation of the project joins the analysis; nothing is run
        from leapp_codemod.cli_observe import observation_or_exit
        _, observed, note = observation_or_exit((os.path.relpath(root),), config, entry, None, None, 3,
                                                options.exclude, may_run=False)
        options = replace(options, observed=observed)
    try:   # reported: only FILES, each named (so checked even when excluded: force-exclude drops those)
        result = run_scan(paths, model_and_reported(options)[0], _cache(config, no_cache, paths), jobs or 1,
                          _progress(flags.quiet))
    except ScanError as exc:
        _fail(str(exc))
    result.findings = [replace(f, path=as_named[f.path]) for f in result.findings if f.path in as_named]
    if note and not flags.quiet:
        click.echo(f"leapp-codemod: {note}", err=True)
    _apply_file_ignores(result, config)
    apply_integrations(result, config, report_options, root, files)
    _finish(result, flags, header=False, config=config)


def _around(files, config: Config) -> Path:
    """The folder a discovered entry is looked for in: the one holding the named files' import root (their
    common folder, out of its packages; beside `src/` in a src layout), within the project's folder."""
    from leapp_codemod.source.roots import search_root
    folders = [os.path.abspath(f if os.path.isdir(f) else os.path.dirname(f) or ".") for f in files if f != "-"]
    common = Path(os.path.commonpath(folders)) if folders else Path.cwd()
    folder = search_root(common).resolve()
    project = config.root.resolve() if config.source else None
    if project is not None and not folder.is_relative_to(project):
        return project
    return folder


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
@click.option("--no-cache", is_flag=True, help="Accepted as `scan` takes it: ranking reads and writes no cache.")
def entrypoints(paths, fmt, limit, driver, calls, timeout, no_cache):
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
    every = rank_entrypoints(loaded.project, load_support(), 0)
    ranked = every[:limit] if limit else every
    more = len(every) - len(ranked)
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
        if more:
            click.echo(f"{more} more (--limit 0)")
    sys.exit(EXIT_CLEAN)


def _register_commands() -> None:
    from leapp_codemod.cli_rules import explain, rules
    main.add_command(rules)
    main.add_command(explain)
    try:
        from leapp_codemod.cli_run import generate, record, run
    except ImportError:
        return
    main.add_command(generate)
    main.add_command(run)
    main.add_command(record)


_register_commands()
