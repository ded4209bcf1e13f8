"""A policy step that a driver's loop reaches only through the project's own dispatch code: a state machine's
`dispatch` running the state method stored on the object, which calls the controller, whose method builds the
observation, runs the network and returns the action. The loop's callee runs the model only deep in what it
calls; the step is the function where the loop's data meets the model."""
from __future__ import annotations

from leapp_codemod.analysis.entry.call_sites import CallSites
from leapp_codemod.analysis.model.index import FunctionInfo

# How many calls above the step the looped (or called back) function may sit.
DEEP_STEP_DEPTH = 5


def runs_model_itself(fn: FunctionInfo, sites: CallSites) -> bool:
    """Does `fn` run a model itself or through a private helper of its own class (`self._compute_action(obs)`)?"""
    if fn.id in sites.calls_module:
        return True
    via = sites.functions.get(sites.model_via(fn.id, depth=1) or "")
    return (via is not None and via.class_name is not None and via.class_name == fn.class_name
            and via.module == fn.module and via.name.startswith("_"))


def deep_driver(fn: FunctionInfo, sites: CallSites) -> tuple[FunctionInfo, FunctionInfo, int, list[str]] | None:
    """(the function a driver calls in a loop or a framework calls back, that driver or registration, its line,
    the functions between) when `fn` runs a model itself and is reached from such a function only two or more
    calls up, through callers that run no model of their own; None otherwise."""
    if not runs_model_itself(fn, sites):
        return None
    frontier: list[tuple[str, list[str]]] = [(fn.id, [])]
    seen = {fn.id}
    for depth in range(DEEP_STEP_DEPTH):
        reached = []
        for fid, chain in frontier:
            for caller_id in sorted(sites.callers.get(fid, set()) - sites.ignored - seen):
                seen.add(caller_id)
                caller = sites.functions.get(caller_id)
                if caller is None or caller_id in sites.calls_module:
                    continue   # a caller that runs a model of its own is a step itself
                if depth > 0:
                    for driver, line in sites.in_loops.get(caller_id, []):
                        if driver.id in sites.drivers:
                            return caller, driver, line, chain
                    if caller_id in sites.callbacks:
                        where, at = sites.callbacks[caller_id]
                        return caller, where, at, chain
                reached.append((caller_id, [caller.qualname, *chain]))
        frontier = reached
    return None
