"""Functions that only forward a callable their caller hands them (`timed(walker.act, obs)`, `safe_call(f, **kw)`,
a retry or profiling helper calling `call(*args, **kwargs)`): transparent for ranking.

What such a function runs is chosen by its caller, so the function is no policy step of its own, and the
callable it runs is called where the forwarder is: in the caller's loop, by the caller. The forwarder's model
reach moves to its callers.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import FunctionInfo


def passes_packs_on(fn: FunctionInfo, call: ast.Call) -> bool:
    """Is the call `param(*args, **kwargs)`: a parameter of `fn` called with argument packs passed on?"""
    return isinstance(call.func, ast.Name) and call.func.id in fn.params and (
        any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords))


def see_through_forwarders(sites) -> None:
    """Each forwarded callable is called in its forwarder's loops and by its callers; the forwarder delegates
    to nothing (its callers delegate to what it runs)."""
    for forwarder, targets in sites.forwarded.items():
        callers = sites.callers.get(forwarder, set())
        for target in targets:
            sites.in_loops.setdefault(target, []).extend(sites.in_loops.get(forwarder, []))
            sites.callers[target] = (sites.callers.get(target, set()) - {forwarder}) | callers
        for caller in callers:
            sites.delegates.setdefault(caller, set()).update(targets)
        sites.delegates[forwarder] = sites.delegates.get(forwarder, set()) - targets
