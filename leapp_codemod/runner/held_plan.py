"""Which held fields (HELD, see leapp_codemod.held) stay graph inputs, decided on the recorded calls.

A held field is an input only when it is no state and, for an entry that also takes arguments, when it
changes between calls:
- a field the entry's own calls change (written in place or rebound by the entry or a method it runs: a
  normalizer's running mean) is the state plan's to decide; serving it as an input would hand the
  entry its value from before the call on every read, and clash with the state of the same leaf;
- for an entry with arguments, a field holding the same value on every recorded call (a gain array of a
  config object, a network's weight) stays a constant of the export, as it would without HELD;
- a field holding no array, tensor or NumPy number (a Python float of a config) is read from the real
  object (leapp_codemod.held.read), so it is no input either.
An entry without arguments keeps every unchanged field: they are all the inputs it has.
"""
from __future__ import annotations

from leapp_codemod.runner import values


def _observe_path(dotted: str) -> tuple:
    return ("self",) + tuple(("attr", part) for part in dotted.split("."))


def _written_by_entry(path: tuple, changed) -> bool:
    """The entry's calls changed the field, a value inside it, or the object it lies in."""
    return any(c[:len(path)] == path or path[:len(c)] == c for c in changed)


def _same_on_every_call(name: str, calls: list) -> bool:
    digests = {values.digest(values.flatten({name: c.inputs[name]})) for c in calls if name in c.inputs}
    return len(digests) == 1 and all(name in c.inputs for c in calls)


def settle(recorder) -> dict[str, str]:
    """Remove from `recorder.held` (and from the inputs of every recorded call) the held fields that are
    no inputs; returns {"self.path": why} for each removed one."""
    calls = list(recorder.traced) + list(recorder.checks)
    dropped: dict[str, str] = {}
    for name, dotted in list(recorder.held.items()):
        why = ""
        if calls and not any(name in c.inputs for c in calls):
            why = ("holds no array, tensor or NumPy number: read from the real object while tracing (a constant "
                   "of the export)")
        elif _written_by_entry(_observe_path(dotted), recorder.changed):
            why = "changed by the entry's own calls: state (the state plan decides), never a held input"
        elif recorder.input_names and _same_on_every_call(name, calls):
            why = f"the same value on all {len(calls)} recorded calls: a constant of the export, not an input"
        if why:
            dropped[f"self.{dotted}"] = why
            recorder.held.pop(name)
            for call in calls:
                call.inputs.pop(name, None)
    if dropped and calls:
        recorder.layout = values.layout(calls[0].inputs)
    return dropped
