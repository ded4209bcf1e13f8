"""Does any caller use what a function returns? One call up from the function an inline range is cut from.

An evaluation method that runs the loop holding the range, fills a dict of results (step counts, a list of
per-step timings, a success flag) and returns it: what the range leaves in those results reaches the export
only if the host code that called the method uses the dict. When every call of the function in the project
throws the value away (`self.rollout(env)` as a statement) or binds it to locals that reach none of the
caller's outputs (`stats = self.rollout(env)`, then only printed, pickled to a file it opened, appended to a
list that is only reported), the `return` is no output: the values only it reads were computed for a person.

Unsure is used: a function never called in the scanned code (run by a framework, a console script, a test),
called from a place the scan cannot resolve to it, or whose value is passed on, returned, stored on an object
or indexed into anything but locals; a caller that is itself asked (a cycle) counts as using it.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.analysis.model.resolve_sites import calls_named


def result_unused(asker, fn) -> bool:
    """Is the value `fn` returns unused by every project call of it (see the module doc)? False when unsure."""
    memo = asker.project.memo
    key = ("result_unused", fn.id, asker.project.own_module_count())
    known = memo.get(key)
    if known is not None:
        return known
    memo[key] = False   # asked again while answering (a caller's slice asks it back): used
    memo[key] = verdict = _unused(asker, fn)
    return verdict


def _unused(asker, fn) -> bool:
    project = asker.project
    if "<lines" in fn.qualname or project.is_library(fn.module):
        return False
    sites = calls_named(project).get(fn.name, [])
    found = False
    for call, _, module in sites:
        caller = _owner(project, module).get(id(call))
        if caller is None:
            return False   # module-level code: a script's top level calls it; unsure
        ctx = asker.for_function(caller)
        callees = ctx.resolve_call(call)
        if not callees:
            if isinstance(call.func, ast.Attribute) and call.func.attr == fn.name:
                return False   # `runner.rollout(...)` on an object the scan cannot place: it may be this one
            continue
        if all(c.id != fn.id for c in callees):
            continue   # another function of the same name
        found = True
        if not _value_dropped(ctx, caller, call):
            return False
    return found


def _value_dropped(ctx, caller, call: ast.Call) -> bool:
    """Is the value of `call` thrown away, or bound only to locals none of the caller's outputs reads?"""
    parents = parent_map(caller)
    stmt = parents.get(id(call))
    if isinstance(stmt, ast.Expr) and stmt.value is call:
        return True
    if not (isinstance(stmt, ast.Assign) and stmt.value is call
            and all(isinstance(t, ast.Name) for t in stmt.targets)):
        return False
    relevant = ctx._relevant_statements()
    if relevant is None:
        return False
    needed = relevant[2][0]
    return not any(t.id in needed for t in stmt.targets)


def _owner(project, module) -> dict[int, object]:
    """Call node id -> the innermost function of `module` holding it (built once per module)."""
    key = ("call_owner", module.name)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = {}
        for fn in sorted(module.functions.values(), key=lambda f: f.qualname.count(".")):
            if "<lines" in fn.qualname:
                continue
            for node in fn.nodes:
                if isinstance(node, ast.Call):
                    found[id(node)] = fn
    return found
