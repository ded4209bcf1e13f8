"""State of objects the step builds afresh on every call (a `TensorDict` constructed in the step, and
the bookkeeping tensordict keeps on it): such an object is gone when the call ends, so no later call
reads its old attributes, and they are never state. Decided from the scan's reach: the step reaches
the constructor of the owning library class (or of a class derived from it)."""
from __future__ import annotations

from leapp_codemod.model import StateAttr

_CONSTRUCTORS = ("__init__", "__new__")


def built_in_step(reachable: list[str], project) -> set[str]:
    """"module:Class" of every class whose constructor the step reaches."""
    out = set()
    for function in reachable:
        module, _, qualname = function.partition(":")
        owner, _, name = qualname.rpartition(".")
        if owner and name in _CONSTRUCTORS:
            out.add(f"{module}:{owner}")
    return out


def without_fresh_objects(state: list[StateAttr], reachable: list[str], project) -> tuple[list[StateAttr], list[str]]:
    """(the state attributes kept, a note for each left out): an attribute of an installed library's
    object that the step builds on every call is left out (see the module docstring)."""
    if project is None:
        return list(state), []
    built = [project.class_of(c.replace(":", ".")) for c in built_in_step(reachable, project)]
    kept, notes = [], []
    for s in state:
        owner = project.class_of(s.owner.replace(":", "."))
        module = s.owner.partition(":")[0]
        fresh = owner is not None and project.is_library(module) and any(
            b is not None and owner in project.mro(b) for b in built)
        if fresh:
            notes.append(f"{s.path}:{s.line}: `{s.attr}` belongs to a {s.owner} object the step builds on every "
                         "call: not state (no later call reads it)")
        else:
            kept.append(s)
    return kept, notes
