"""Which positions of what a function returns does the pipeline use? The calls of it on the pipeline answer.

A policy head returns `(action, mean, log_prob, entropy)`; the step keeps only the action (`a, _, _, _ =
head(x)`, `head(x)[0]`, `a, *_ = head(x)`, or binds the rest to locals none of its outputs reads). What the
head computes only for the other positions (the log-probability, the entropy, the helpers that compute them)
reaches nothing the export keeps, so a finding about it is not one. Every call of the function in a function
the scan reached from the entry is asked; calls outside the pipeline (the training update that reads the
log-probability) run no part of the export and are not asked. A function no pipeline code calls (the entry,
one reached through a call the scan cannot see) keeps every position.

`kept_positions` gives the positions some pipeline call may use; the slice of the function (`relevance`) then
reads, of a `return` of a tuple display, only the elements at those positions; a return of anything but a
display keeps all, unless no position is used at all. Unsure is used: a call bound to one name that is read,
indexed by anything but a constant (or `int(<test>)`: 0 or 1), passed on, stored on an object; a call the
scan cannot place (`obj.head(x)` on an object it cannot type); a cycle of callers.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.outside_inputs import REACHED_KEY
from leapp_codemod.analysis.infer.telemetry import ASSUMED_DEAD
from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.analysis.infer.unused_results import _owner, result_unused
from leapp_codemod.analysis.model.resolve_sites import calls_named
from leapp_codemod.source.astwalk import walked

ALL = None   # every position may be used
ROOTS_KEY = ("unused-positions-roots",)   # the entry's functions: what they return is the export's output
# {function id: the positions its one pipeline call keeps}: an environment wrapper's `step` an inline range ends
# in keeps the observation it carries, not the reward or the flags (`analysis/inline/wrapped_world.py`)
PINNED_KEY = ("unused-positions-pinned",)


def returned_positions(asker, fn, inline: bool, enclosing: bool) -> frozenset[int] | None:
    """What the slice of `fn` keeps of its `return`: for the function around an inline range, nothing when no
    caller uses the value (`unused_results`); for a function on the pipeline, the positions its calls use."""
    if enclosing:
        return frozenset() if result_unused(asker, fn) else ALL
    return ALL if inline else kept_positions(asker, fn)


def kept_positions(asker, fn) -> frozenset[int] | None:
    """The positions of `fn`'s returned tuple some call of it on the pipeline may use (empty: none; None:
    unsure, every one)."""
    project = asker.project
    pinned = project.memo.get(PINNED_KEY, {}).get(fn.id)
    if pinned is not None:
        return pinned
    reached = project.memo.get(REACHED_KEY, frozenset())
    if not reached or fn.id not in reached or "<lines" in fn.qualname or project.is_library(fn.module) \
            or fn.id in project.memo.get(ROOTS_KEY, ()) \
            or not any(isinstance(n, ast.Return) and n.value is not None for n in fn.nodes):
        return ALL
    memo = project.memo
    key = ("kept_positions", fn.id, hash(reached))
    if key in memo:
        return memo[key]
    memo[key] = ALL   # asked again while answering (a caller's slice asks it back): every position
    memo[key] = kept = _kept(asker, fn, reached)
    return kept


def kept_reads(value: ast.expr, kept: frozenset[int] | None, reads: set[str]) -> set[str]:
    """The names a `return value` reads for the kept positions (all it reads when unsure)."""
    if kept == frozenset():
        return set()
    if kept is ALL or not isinstance(value, ast.Tuple) or any(isinstance(e, ast.Starred) for e in value.elts) \
            or any(i >= len(value.elts) for i in kept):
        return reads
    return {n.id for i, e in enumerate(value.elts) if i in kept for n in walked(e)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _kept(asker, fn, reached) -> frozenset[int] | None:
    project = asker.project
    kept: set[int] = set()
    found = False
    for call, _, module in calls_named(project).get(fn.name, []):
        caller = _owner(project, module).get(id(call))
        if caller is None:
            if _in_range_entry(module, call):
                return ALL   # the entry is a range of module-level code that calls it
            continue   # module-level code outside the entry runs when its module is loaded, not in the pipeline
        if caller.id not in reached:
            continue   # outside the pipeline: it runs no part of the export
        ctx = asker.for_function(caller)
        callees = _resolve(ctx, call)
        if not callees:
            if isinstance(call.func, ast.Attribute) and call.func.attr == fn.name:
                return ALL   # `head.act(...)` on an object the scan cannot place: it may be this one
            continue
        if all(c.id != fn.id for c in callees):
            continue   # another function of the same name
        found = True
        used = _site_positions(ctx, caller, call)
        if used is ALL:
            return ALL
        kept |= used
    return frozenset(kept) if found else ALL


def _in_range_entry(module, call: ast.Call) -> bool:
    """Is the call inside one of the module's inline-range entries (synthetic `<lines ...>` functions)?"""
    for fn in module.functions.values():
        if "<lines" in fn.qualname and fn.node.body:
            first = min(s.lineno for s in fn.node.body)
            last = max(s.end_lineno or s.lineno for s in fn.node.body)
            if first <= call.lineno <= last:
                return True
    return False


def _site_positions(ctx, caller, call: ast.Call) -> frozenset[int] | None:
    """The positions one call site may use of what the call returns."""
    parent = parent_map(caller).get(id(call))
    if isinstance(parent, ast.Expr):
        return frozenset()
    if isinstance(parent, ast.Subscript) and parent.value is call and isinstance(parent.ctx, ast.Load):
        return _indexes(parent.slice)
    if not (isinstance(parent, ast.Assign) and parent.value is call and len(parent.targets) == 1):
        return ALL
    relevant = ctx._relevant_statements()
    if relevant is None:
        return ALL
    needed = relevant[2][0]
    target = parent.targets[0]
    if isinstance(target, ast.Name):
        return ALL if target.id in needed else frozenset()
    if not isinstance(target, (ast.Tuple, ast.List)):
        return ALL
    kept: set[int] = set()
    for i, element in enumerate(target.elts):
        if isinstance(element, ast.Starred):   # `a, *_ = f(x)`: the rest, when unused and last
            if i != len(target.elts) - 1 or not isinstance(element.value, ast.Name) or element.value.id in needed:
                return ALL
        elif not isinstance(element, ast.Name) or element.id in needed:
            kept.add(i)   # a name some output reads, or `self.x` / `buf[t]`: stored, used
    return frozenset(kept)


def _indexes(index: ast.expr) -> frozenset[int] | None:
    """The values a constant index may take: `0`, `int(not flag)` (0 or 1), `1 if flag else 0`."""
    if isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 0:
        return frozenset({index.value})
    if isinstance(index, ast.Call) and isinstance(index.func, ast.Name) and index.func.id == "int" \
            and len(index.args) == 1 and not index.keywords and (isinstance(index.args[0], ast.Compare) or (
                isinstance(index.args[0], ast.UnaryOp) and isinstance(index.args[0].op, ast.Not))):
        return frozenset({0, 1})
    if isinstance(index, ast.IfExp):
        body, orelse = _indexes(index.body), _indexes(index.orelse)
        return ALL if body is ALL or orelse is ALL else body | orelse
    return ALL


def target_reads(ctx, stmt: ast.Assign) -> tuple[set[str], dict[str, set[str]]] | None:
    """`a, b, c = f(x, y, z)` of a project function returning tuple displays: (the names the statement reads
    whatever it binds, {target: the names of the arguments whose parameters the position it binds reads}), so a
    caller that needs only `a` reads only what `f` computes `a` from. None when unsure."""
    call, target = stmt.value, stmt.targets[0] if len(stmt.targets) == 1 else None
    if not (isinstance(call, ast.Call) and isinstance(target, (ast.Tuple, ast.List))
            and all(isinstance(e, ast.Name) for e in target.elts)) \
            or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    callees = _resolve(ctx, call)
    if not callees:
        return None
    names = [e.id for e in target.elts]
    per_target: dict[str, set[str]] = {n: set() for n in names}
    for callee in callees:
        params = _arguments(ctx, callee, call)
        if params is None:
            return None
        for i, name in enumerate(names):
            needs = _position_needs(ctx.for_function(callee), i, len(names))
            if needs is None:
                return None
            per_target[name] |= {n.id for param, arg in params.items() if param in needs for n in walked(arg)
                                 if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    base = {n.id for n in walked(call.func) if isinstance(n, ast.Name)}
    return base, per_target


def _resolve(ctx, call: ast.Call) -> list:
    """The project functions `call` may run, asked without a trace in the scan's list of calls it resolved by
    duck typing (this context lacks the caller's local types; the scan's own resolution is the one reported)."""
    memo = ctx.project.memo
    table = memo.get(RESOLUTIONS)
    kept = dict(table) if table is not None else None
    try:
        return ctx.resolve_call(call)
    finally:
        if kept is None:
            memo.pop(RESOLUTIONS, None)
        else:
            memo[RESOLUTIONS] = kept


RESOLUTIONS = ("resolutions",)   # `runtime_bind.record`'s table


def _arguments(ctx, callee, call: ast.Call) -> dict[str, ast.expr] | None:
    """{parameter: the argument passed to it} of a call of a project function (None: unsure)."""
    project = ctx.project
    node = callee.node
    if project.is_library(callee.module) or "<lines" in callee.qualname or not hasattr(node, "args") \
            or node.args.vararg is not None or node.args.kwarg is not None:
        return None
    positional = list(callee.positional_params)
    if callee.is_method and isinstance(call.func, ast.Attribute) and positional:
        positional = positional[1:]   # `obj.f(x)`: the receiver is the first parameter
    if len(call.args) > len(positional):
        return None
    found = dict(zip(positional, call.args))
    for keyword in call.keywords:
        if keyword.arg not in callee.params:
            return None
        found[keyword.arg] = keyword.value
    return found


def _position_needs(callee_ctx, position: int, width: int) -> frozenset[str] | None:
    """The names the slice of the callee reads when only `position` of what it returns is used (every return a
    tuple display of `width` items; its other outputs count as ever); None when unsure."""
    fn = callee_ctx.fn
    key = ("position_needs", position, width, callee_ctx.project.memo.get(ASSUMED_DEAD))
    if key in fn.walks:
        return fn.walks[key]
    fn.walks[key] = None   # asked again while answering (a recursive function): unsure
    returns = [n for n in fn.nodes if isinstance(n, ast.Return)]
    if not returns or any(not isinstance(r.value, ast.Tuple) or len(r.value.elts) != width
                          or any(isinstance(e, ast.Starred) for e in r.value.elts) for r in returns):
        return None
    try:
        needs = frozenset(callee_ctx._slice(positions=frozenset({position}))[2][0])
    except RecursionError:
        needs = None
    fn.walks[key] = needs
    return needs
