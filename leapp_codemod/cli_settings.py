"""The scan settings on the command line: options made from `settings.SETTINGS`, the values in effect,
which files are excluded from the model or the report, and the findings the generated modules resolve."""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import click

from leapp_codemod.config import Config


def effective(config: Config, options: dict) -> dict[str, tuple[object, str]]:
    """Each setting's value in effect (the command line wins, or adds for `extend-*`) and where it came from."""
    from leapp_codemod.settings import SETTINGS, combine
    return {s.attr: combine(s, getattr(config, s.attr), options.get(s.attr) if s.flag else None) for s in SETTINGS}


def model_and_reported(options):
    """(the options the scan runs with, the exclusions applied to its report). Following the pipeline
    from its entry, exclusions decide what is reported, not what the program is: an excluded driver still
    shows which function its loop calls. Checking every function (--all), excluded files are not read."""
    if options.all_functions or not options.exclude:
        return options, ()
    return replace(options, exclude=()), options.exclude


def drop_excluded(result, config: Config, paths, patterns: tuple[str, ...]) -> None:
    """Findings and file errors in excluded files removed from the report (see `model_and_reported`)."""
    if not patterns:
        return
    from leapp_codemod.config import force_excluded
    roots = [config.root, *(Path(p) for p in paths if p != "-" and os.path.isdir(p))]
    named = {Path(os.path.normpath(p)).as_posix() for p in paths if p != "-" and not os.path.isdir(p)}

    def excluded(path: str) -> bool:
        return path not in named and any(force_excluded(root, path, patterns) for root in roots)
    result.findings = [f for f in result.findings if not excluded(f.path)]
    result.errors = [e for e in result.errors if not excluded(e.path)]


def apply_integrations(result, config: Config, options: dict, search: Path, walked=()) -> None:
    """Move the findings the project's generated integration modules resolve to `result.resolved`: the
    modules the `integration` setting names (relative to the pyproject.toml, or to the working directory),
    else those carrying the generated header under `search` (the analyzed folder) or among `walked`."""
    from leapp_codemod.resolved import discover_integrations, read_integration, resolve
    if not result.findings:
        return
    named = [Path(p) for p in effective(config, options)["integration"][0]]
    configured = [p if p.is_absolute() or not (config.root / p).exists() else config.root / p for p in named]
    modules = [read_integration(path) for path in discover_integrations(search, configured, walked)]
    result.findings, result.resolved = resolve(result.findings, [m for m in modules if m is not None])


def setting_option(setting):
    """The click option a row of settings.SETTINGS makes."""
    if setting.kind == "flag":
        return click.option(setting.option, setting.attr, is_flag=True, default=None, help=setting.help)
    metavar = {"entry": "MODULE:QUALNAME|FILE:START-END", "selectors": "CODES", "patterns": "GLOB",
               "paths": "FILE", "script": "SCRIPT",
               "bind-table": "EXPR=MODULE:CLASS"}[setting.kind]
    return click.option(setting.option, setting.attr, multiple=setting.multiple, metavar=metavar, help=setting.help)


def force_excluded(config: Config, paths, options: dict) -> tuple[str, ...]:
    """`paths` without the files an exclusion matches, when force-exclude is on (pre-commit names each file)."""
    from leapp_codemod.source.files import DEFAULT_EXCLUDES
    value = {name: v for name, (v, _) in effective(config, options).items()}
    if not value["force_exclude"]:
        return tuple(paths)
    from leapp_codemod.config import force_excluded
    patterns = DEFAULT_EXCLUDES + value["exclude"] + value["extend_exclude"]
    return tuple(p for p in paths if p == "-" or os.path.isdir(p) or not force_excluded(config.root, p, patterns))
