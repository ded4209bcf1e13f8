"""`run --inputs`: a stand-in driver that calls the entry with the recorded inputs, in order, on the
application's instance as it was at the first traced call. The runner intercepts these calls
exactly as it intercepts the real driver's, so tracing, export and validation are unchanged."""
from __future__ import annotations

import sys
from pathlib import Path

from leapp_codemod.runner.record import Recording, RecordingError, load

INTEGRATION = "leapp_codemod_integration"     # the name the runner's child loads the module under


def driver_script(directory: Path, recording: Path, allow_pickle: bool = False) -> Path:
    """A two-line script the child runs in place of the application's driver."""
    import secrets

    from leapp_codemod.io_util import write_atomic

    script = directory / f".replay_driver_{secrets.token_hex(4)}.py"
    write_atomic(script, "from leapp_codemod.runner.replay import drive\n\n"
                         f"drive({str(recording.resolve())!r}, {allow_pickle!r})\n", folder=directory)
    return script


def _set_state(instance, state: dict, values: dict) -> None:
    from leapp_codemod.runner.intercept import find_state

    for name, (owner, attr) in find_state(instance, state).items():
        setattr(owner, attr, values[name])


def _check_state_shapes(recording: Recording, instance, state: dict, path: str) -> None:
    from leapp_codemod.runner.intercept import find_state, read_state
    from leapp_codemod.runner.values import layout

    if not state or not recording.state_before:
        return
    live = read_state(find_state(instance, state))
    if set(live) != set(recording.state_before[0]):
        raise RecordingError(f"{path}: records state ({', '.join(sorted(recording.state_before[0]))}) but the "
                             f"integration module declares ({', '.join(sorted(live))}); record again")
    if layout(live) != layout(recording.state_before[0]):
        raise RecordingError(f"{path}: recorded state {layout(recording.state_before[0])} does not match the "
                             f"application's state {layout(live)}")


def drive(path: str, allow_pickle: bool = False) -> None:
    from leapp_codemod.runner.intercept import resolve_entry

    module = sys.modules[INTEGRATION]
    recording = load(Path(path), allow_pickle)
    entry = resolve_entry(module.ENTRY, getattr(module, "SENT", ()), getattr(module, "SENT_VALUE", (0,)))
    instance = recording.instance if entry.is_method else None
    if entry.is_method and instance is None:
        raise RecordingError(f"{path}: {module.ENTRY} is a method but the recording holds no instance "
                             "(record it with --allow-pickle)")
    state = dict(getattr(module, "STATE", {}) or {})
    if instance is not None:
        _check_state_shapes(recording, instance, state, path)
    call = getattr(instance, entry.attr) if instance is not None else getattr(entry.module, entry.attr)
    for inputs in recording.traced:
        call(**inputs, **recording.statics)
    for inputs, before in zip(recording.checked, recording.state_before):
        if instance is not None and before:
            _set_state(instance, state, before)
        call(**inputs, **recording.statics)


def preflight(module, path: str, allow_pickle: bool = False) -> dict:
    """Check the recording against the integration module before anything runs; returns its meta."""
    from leapp_codemod.runner.intercept import resolve_entry

    recording = load(Path(path), allow_pickle)
    if resolve_entry(module.ENTRY).is_method:
        if recording.instance is None:
            raise RecordingError(f"{path}: {module.ENTRY} is a method but the recording holds no instance "
                                 "(record it with --allow-pickle)")
        _check_state_shapes(recording, recording.instance, dict(getattr(module, "STATE", {}) or {}), path)
    return recording.meta
