"""`entrypoints --driver`: rank entrypoints by watching the driver run (see `runner.observe`)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from leapp_codemod.analysis.entry.observed import Observed, rank_observed


def observe(paths: tuple[str, ...], driver: str, calls: int, timeout: float) -> tuple[list[Observed], str]:
    """(ranked candidates, the driver's error if it stopped early); raises ObserveError / UsageError."""
    from leapp_codemod.generate.source_info import import_root
    from leapp_codemod.runner.observe import observe_driver

    for p in paths:
        if not Path(p).exists():
            raise click.UsageError(f"{p}: no such file or directory")
    observation = observe_driver([Path(p) for p in paths], Path(driver), import_root(Path(paths[0])), calls, timeout)
    return rank_observed(observation), observation.get("driver_error", "")


def observed_entrypoints(paths: tuple[str, ...], driver: str, calls: int, timeout: float, fmt: str) -> int:
    from leapp_codemod.runner.observe import ObserveError

    if not Path(driver).is_file():
        click.echo(f"leapp-codemod: error: {driver}: driver script not found", err=True)
        return 2
    try:
        ranked, error = observe(paths, driver, calls, timeout)
    except (ObserveError, click.UsageError) as exc:
        click.echo(f"leapp-codemod: error: {exc}", err=True)
        return 2
    if error:
        click.echo(f"leapp-codemod: {driver}: {error} (ranking what ran before)", err=True)
    if fmt == "json":
        click.echo(json.dumps({"driver": driver, "entrypoints": [e.to_json() for e in ranked]}, indent=2))
    elif not ranked:
        click.echo(f"No pipeline entrypoint candidates seen while {driver} ran (no function called repeatedly with "
                   "changing arrays runs an nn.Module); pass --entry MODULE:QUALNAME or FILE:START-END.")
    else:
        for rank, e in enumerate(ranked, 1):
            click.echo(f"{rank}. {e.entry}  ({e.kind}, {e.path}:{e.line}, score {e.score})")
            for reason in e.reasons:
                click.echo(f"     - {reason}")
            click.echo(f"     - call chain: {' -> '.join(e.chain)}")
    return 0


class EntryChoiceError(Exception):
    """No entry could be chosen (one line)."""


def choose_entry(app: Path, driver: Path | None, static: bool) -> tuple[str, str]:
    """(entry, why it was chosen) for `generate` without --entry: observed from the driver, or static."""
    if not app.exists():
        raise EntryChoiceError(f"{app}: no such application path")
    if static:
        from leapp_codemod.scan import scan_project

        ranked = scan_project([str(app)]).entrypoints
        if not ranked:
            raise EntryChoiceError(f"{app}: the static ranking found no entrypoint candidate; pass --entry")
        best = ranked[0]
        return best.id, f"first of {len(ranked)} by static ranking: {'; '.join(best.reasons)}"
    if driver is None:
        raise EntryChoiceError("pass --entry, or --driver SCRIPT to find the entry by running it "
                               "(or --static to rank statically)")
    if not driver.is_file():
        raise EntryChoiceError(f"{driver}: driver script not found")
    from leapp_codemod.runner.observe import ObserveError

    try:
        ranked, error = observe((str(app),), str(driver), 10, 300.0)
    except (ObserveError, click.UsageError) as exc:
        raise EntryChoiceError(str(exc)) from None
    if not ranked:
        raise EntryChoiceError(f"no entrypoint candidate seen while {driver} ran"
                               f"{' (' + error + ')' if error else ''}; pass --entry")
    best = ranked[0]
    return best.entry, (f"first of {len(ranked)} seen while {driver} ran: {best.reasons[0]}; "
                        f"call chain {' -> '.join(best.chain)}")
