"""`entrypoints --driver`: rank entrypoints by watching the driver run (see `runner.observe`)."""
from __future__ import annotations

import json
import os
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
    from leapp_codemod.runner.procgroup import Interrupted

    try:
        ranked, error = observe(paths, driver, calls, timeout)
    except (ObserveError, click.UsageError) as exc:
        click.echo(f"leapp-codemod: error: {exc}", err=True)
        return 2
    except Interrupted as exc:
        click.echo(f"leapp-codemod: error: {driver}: {exc}", err=True)
        return 128 + exc.signum
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


def _beside(app: Path) -> list:
    """Candidates in `app` ranked with the scripts beside it (the driver outside a package calls the entry)."""
    import os

    from leapp_codemod.scan import scan_project
    from leapp_codemod.source.roots import search_root
    root = search_root(app)
    if root.resolve() == (app if app.is_dir() else app.parent).resolve():
        return []
    tree = (app if app.is_dir() else app.parent).resolve()
    ranked = scan_project([os.path.relpath(root)]).entrypoints
    return [r for r in ranked if r.kind == "function" and Path(r.path).resolve().is_relative_to(tree)]


def choose_entry(app: Path, driver: Path | None, static: bool) -> tuple[str, str]:
    """(entry, why it was chosen) for `generate` without --entry: observed from the driver, or static."""
    if not app.exists():
        raise EntryChoiceError(f"{app}: no such application path; from the folder scan was given: "
                               f"`leapp-codemod generate .`")
    if static:
        from leapp_codemod.scan import scan_project

        scanned = scan_project([str(app)])
        ranked = scanned.entrypoints
        if not ranked or not any(r.score for r in ranked[:1]):
            ranked = _beside(app) or ranked
            scanned.entry = None
        if not ranked:
            raise EntryChoiceError(f"{app}: the static ranking found no entrypoint candidate; name it, e.g. "
                                   f"`leapp-codemod generate {app} --entry MODULE:QUALNAME`")
        best = scanned.entry or ranked[0]      # the entry `scan` chooses, when it chose one
        return best.id, f"the entry scan chooses, of {len(ranked)} by static ranking: {'; '.join(best.reasons)}"
    if not driver.is_file():
        raise EntryChoiceError(f"{driver}: driver script not found; without --driver, `leapp-codemod generate "
                               f"{app}` uses the entry scan chooses and the script that calls it")
    from leapp_codemod.runner.observe import ObserveError

    try:
        ranked, error = observe((str(app),), str(driver), 10, 300.0)
    except (ObserveError, click.UsageError) as exc:
        raise EntryChoiceError(str(exc)) from None
    if not ranked:
        raise EntryChoiceError(f"no entrypoint candidate seen while {driver} ran"
                               f"{' (' + error + ')' if error else ''}; rank statically instead: "
                               f"`leapp-codemod generate {app} --static`")
    best = ranked[0]
    return best.entry, (f"first of {len(ranked)} seen while {driver} ran: {best.reasons[0]}; "
                        f"call chain {' -> '.join(best.chain)}")


# --------------------------------------------------------------------------- scan/lint/generate: observed analysis
DEFAULT_OBSERVE_CALLS = 3
OBSERVE_TIMEOUT = 300.0


class ObservationError(Exception):
    """The observation could not be made (one line; exit 2)."""


def project_root(paths: tuple[str, ...], config) -> Path:
    """Where `.leapp-codemod/observed.json` lives: the pyproject.toml's folder, else the scanned folder."""
    from leapp_codemod.observe.saved import root_for

    return root_for(Path(paths[0]) if paths else Path("."), config.source)


def _entry_location(paths: list[str], entry: str | None, exclude: tuple[str, ...]):
    """(the static entry id, where its code starts) for the child to watch."""
    from leapp_codemod.analysis.entry.entrypoints import rank_entrypoints
    from leapp_codemod.analysis.entry.lookup import choose_entry as static_choice
    from leapp_codemod.analysis.inline.range import parse_inline_entry
    from leapp_codemod.analysis.model.leapp_support import load_support
    from leapp_codemod.scan.entry import find_function
    from leapp_codemod.scan.load import load_project
    from leapp_codemod.scan.options import ScanError
    from leapp_codemod.observe.process import EntryLocation

    if entry and parse_inline_entry(entry):
        raise ObservationError(f"{entry}: observing an inline statement range is not supported; "
                               "name a function entry (MODULE:QUALNAME)")
    project = load_project(paths, exclude).project
    if entry:
        try:
            fn, canonical = find_function(project, entry)
        except ScanError as exc:
            raise ObservationError(str(exc)) from None
    else:
        chosen, _ = static_choice(rank_entrypoints(project, load_support()))
        if chosen is None:
            raise ObservationError("no entrypoint to observe was found; pass --entry MODULE:QUALNAME")
        fn, canonical = find_function(project, chosen.id)
    node = fn.node
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return canonical, EntryLocation(str(Path(fn.path).resolve()), first, node.name)


def observe_for_scan(paths: tuple[str, ...], config, entry: str | None, driver: str | None, inputs: str | None,
                     calls: int, exclude: tuple[str, ...] = (), timeout: float = OBSERVE_TIMEOUT,
                     allow_pickle: bool = False):
    """Run the driver (or replay the recording) once, save the observation in the project, and return
    (entry, observation input for the scan). Raises ObservationError."""
    from leapp_codemod.generate.source_info import import_root
    from leapp_codemod.observe import saved
    from leapp_codemod.observe.process import ObserveError, run_observer
    from leapp_codemod.runner.observe import watched_roots

    paths = paths or (".",)
    for p in paths:
        if not Path(p).exists():
            raise ObservationError(f"{p}: no such file or directory")
    if driver and not Path(driver).is_file():
        raise ObservationError(f"{driver}: driver script not found")
    location = None
    if inputs:
        from leapp_codemod.runner.record import RecordingError, read_meta
        try:
            meta = read_meta(Path(inputs))
        except RecordingError as exc:
            raise ObservationError(str(exc)) from None
        if entry and entry != meta.get("entry"):
            raise ObservationError(f"{inputs}: recorded for {meta.get('entry')}, not for {entry}")
        entry = meta.get("entry")
    else:
        entry, location = _entry_location(list(paths), entry, exclude)
    source = driver or inputs
    try:
        result = run_observer(roots=watched_roots([Path(p) for p in paths], Path(driver) if driver else None),
                              import_root=import_root(Path(paths[0])), calls=calls, timeout=timeout,
                              driver=Path(driver) if driver else None, inputs=Path(inputs) if inputs else None,
                              entry=location, allow_pickle=allow_pickle)
    except ObserveError as exc:
        raise ObservationError(str(exc)) from None
    observation = result.get("observed") or {}
    if not observation.get("entry_calls"):
        why = f" ({result['driver_error']})" if result.get("driver_error") else ""
        raise ObservationError(f"{source}: {entry} was never called while it ran{why}")
    root = project_root(paths, config)
    path = saved.save(root, observation, {"entry": entry, "source": Path(os.path.relpath(source)).as_posix(),
                                          "mode": result.get("mode", "driver"),
                                          "driver_error": result.get("driver_error", "")})
    loaded = saved.load(root)
    if loaded.data is None:     # a covered file changed while the driver ran
        raise ObservationError(loaded.note or f"{path}: could not be read back")
    return entry, saved.as_input(loaded.data, root)


def observation_for(paths: tuple[str, ...], config, entry: str | None, driver: str | None, inputs: str | None,
                    calls: int, exclude: tuple[str, ...] = (), may_run: bool = True, allow_pickle: bool = False):
    """(entry, observation input or None, note) for `scan`/`lint`/`generate`.

    `--driver`/`--inputs` observe now; `[tool.leapp-codemod] driver` observes when no fresh saved
    observation exists (and `may_run`); otherwise a fresh saved observation is used, a stale one is
    ignored with the note. Raises ObservationError; SIGINT/SIGTERM stop the child's group and raise
    `runner.parent.Interrupted`."""
    if driver and inputs:
        raise ObservationError("give --driver or --inputs, not both")
    if driver or inputs:
        entry, observed = observe_for_scan(paths, config, entry, driver, inputs, calls, exclude,
                                           allow_pickle=allow_pickle)
        return entry, observed, ""
    from leapp_codemod.observe.saved import fresh_input

    observed, note = fresh_input(project_root(paths or (".",), config), entry)
    if observed is None and config.driver and may_run:
        configured = str(Path(os.path.relpath(config.root / config.driver)))
        entry, observed = observe_for_scan(paths, config, entry, configured, None, calls, exclude)
        return entry, observed, ""
    return (entry or (observed.entry if observed else None)), observed, note


def observation_or_exit(*args, **kwargs):
    """`observation_for`, with its failures as one line on stderr and exit 2 (130/143 when interrupted)."""
    import sys

    from leapp_codemod.runner.parent import Interrupted

    try:
        return observation_for(*args, **kwargs)
    except ObservationError as exc:
        click.echo(f"leapp-codemod: error: {exc}", err=True)
        sys.exit(2)
    except Interrupted as exc:
        click.echo(f"leapp-codemod: {exc}", err=True)
        sys.exit(128 + exc.signum)
