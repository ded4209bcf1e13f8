"""What of a kept world step is pipeline work: the slice's outputs in the project's own environment wrapper.

A range that steps the project's wrapper (`obs, r, done, info = env.step(a)`, `analysis/inline/wrapped_world.py`)
keeps its action processing and the observation it builds. The rest of such a `step` is the host's bookkeeping:
the reward, the episode flags, counters of collisions and steps, resets it triggers. So in a wrapper's step the
outputs of the slice (`relevance.py`) are narrowed to
- what it returns that the range reads again (the observation: `returned_positions`, unchanged);
- the effects that hand on the action: a call or a write that reads a value computed from the step's
  parameters (the action), directly or through state it stored earlier in the step;
- state on `self` a statement of the slice reads (`self.prev_frames` feeding the next observation), decided in
  the slice's fixpoint: `deferred_state` hands those writes back.
An effect that reads neither (`self.collision_count += 1`, `self.reset_pose()` under a collision test) decides
nothing the exported pipeline computes.
"""
from __future__ import annotations

import ast
from typing import Protocol

from leapp_codemod.analysis.model.world_steps import WRAPPED_STEPS_KEY
from leapp_codemod.knowledge.actuation import words
from leapp_codemod.knowledge.vocab import WRITING_METHODS
from leapp_codemod.source.astwalk import statement_heads, walked


class _Described(Protocol):
    node: ast.stmt
    binds: set[str]
    fills: set[str]
    reads: set[str]
    output: bool


def self_attrs_read(stmt: ast.stmt, self_name: str) -> set[str]:
    """`self.<attr>` loads in the statement's own heads (not its nested block)."""
    return {n.attr for head in statement_heads(stmt) for n in walked(head)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == self_name
            and isinstance(n.ctx, ast.Load)}


def _self_attr_written(target: ast.expr, self_name: str) -> str | None:
    while isinstance(target, ast.Subscript):
        target = target.value
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
        return target.attr
    return None


def self_attrs_written(stmt: ast.stmt, self_name: str) -> set[str] | None:
    """The attributes of `self` an assignment stores into (`self.n += 1`, `self.hist[0] = x`); None when the
    statement is no assignment or also stores elsewhere."""
    if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return None
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    flat = [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]
    attrs = [_self_attr_written(t, self_name) for t in flat if not isinstance(t, ast.Name)]
    return set(attrs) if attrs and None not in attrs else None


def _action_derived(stmts: list[_Described], params: frozenset[str], self_name: str) -> tuple[set[str], set[str]]:
    """The names and the `self` attributes a value computed from the parameters reaches (flow-insensitive)."""
    names, attrs = set(params) - {self_name}, set()
    grew = True
    while grew:
        grew = False
        for s in stmts:
            if not (s.reads & names or self_attrs_read(s.node, self_name) & attrs):
                continue
            more = (s.binds | s.fills) - names
            stored = (self_attrs_written(s.node, self_name) or set()) - attrs
            if more or stored:
                names |= more
                attrs |= stored
                grew = True
    return names, attrs


# Words of a method of the environment that says it computes the host's bookkeeping (`compute_reward`,
# `_check_done`, `update_statistics`): what only such methods read of `self` is no state of the pipeline.
BOOKKEEPING_WORDS = frozenset({"reward", "rewards", "done", "dones", "terminated", "termination", "terminate",
                               "truncated", "success", "statistics", "stats", "metrics", "penalty"})


def _self_name(fn) -> str | None:
    return fn.params[0] if fn.class_name and fn.params else None


def _stored_attrs(fn, owner, project, depth: int = 3) -> set[str]:
    """The `self` attributes `fn` stores, or the methods of its class it calls on `self` do (`depth` deep)."""
    me = _self_name(fn)
    out: set[str] = set()
    for node in fn.nodes:
        if isinstance(node, ast.stmt) and me:
            out |= self_attrs_written(node, me) or set()
        if isinstance(node, ast.Call) and me:
            out |= _filled_attrs(node, me)
        if depth and me and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == me and owner is not None:
            helper = project.find_method(owner, node.func.attr)
            if helper is not None and helper is not fn:
                out |= _stored_attrs(helper, owner, project, depth - 1)
    return out


def _filled_attrs(call: ast.Call, self_name: str) -> set[str]:
    """`self.goal.copy_(g)`, `self.hist.append(x)`, `torch.where(m, a, b, out=self.goal)`: attributes of `self`
    whose object the call changes in place."""
    func, out = call.func, set()
    if isinstance(func, ast.Attribute) and (func.attr.endswith("_") and not func.attr.startswith("_")
                                            or func.attr in WRITING_METHODS):
        out.add(_self_attr_written(func.value, self_name))
    out |= {_self_attr_written(k.value, self_name) for k in call.keywords if k.arg == "out"}
    return out - {None}


def _read_elsewhere(ctx, attrs: set[str], skipped: set[str]) -> bool | None:
    """Does reachable code other than `skipped` and the host's bookkeeping methods read one of the `self`
    attributes (`Facts.attr_reads`)? None while the reads are not known."""
    reads = ctx.facts.attr_reads
    if not reads or ctx.cls is None:
        return None
    found = {site for klass in ctx.project.mro(ctx.cls) for attr in attrs
             for site in reads.get(klass.id, {}).get(attr, ())}
    for fid, _ in found:
        name = fid.rpartition(":")[2].rpartition(".")[2]
        if fid not in skipped and not set(words(name)) & BOOKKEEPING_WORDS:
            return True
    return False


def narrow_outputs(stmts: list[_Described], params: frozenset[str], ctx) -> dict[str, list[_Described]]:
    """Narrow the outputs of a kept world step (module docstring); the writes of `self` state set aside, by
    attribute, for the slice to keep once one of its statements reads that attribute. State another function of
    the pipeline reads (a target the observation is built from) stays an output, written here or by a method
    the statement calls."""
    if ctx.fn.id not in ctx.project.memo.get(WRAPPED_STEPS_KEY, {}):
        return {}
    self_name = ctx.self_name
    names, attrs = _action_derived(stmts, params, self_name)
    candidates = [s for s in stmts if s.output and not isinstance(s.node, ast.Return)
                  and not (s.reads & names or self_attrs_read(s.node, self_name) & attrs)]   # no action handed on
    callees = {id(s): [fn for head in statement_heads(s.node) for call in walked(head) if isinstance(call, ast.Call)
                       for fn in ctx.resolve_call(call)] for s in candidates}
    helpers = {ctx.fn.id} | {fn.id for found in callees.values() for fn in found}   # what those statements run
    deferred: dict[str, list[_Described]] = {}
    for s in candidates:
        written = set(self_attrs_written(s.node, self_name) or ())
        for fn in callees[id(s)]:
            written |= _stored_attrs(fn, ctx.cls, ctx.project)
        if _read_elsewhere(ctx, written, helpers) is not False:
            continue   # state the pipeline reads elsewhere (or not known yet)
        s.output = False
        for attr in self_attrs_written(s.node, self_name) or ():
            deferred.setdefault(attr, []).append(s)
    return deferred


def deferred_state(deferred: dict[str, list[_Described]], kept: list[_Described], self_name: str
                   ) -> list[_Described]:
    """The set-aside writes of the attributes the kept statements read (removed from `deferred`)."""
    read = {attr for s in kept for attr in self_attrs_read(s.node, self_name)}
    return [s for attr in sorted(read & set(deferred)) for s in deferred.pop(attr)]


def bookkeeping_report(ctx, node: ast.AST) -> bool:
    """In a kept world step, a report (`print(f"reward {r:.2f}")`, a log line) of values the slice does not need:
    the host's bookkeeping shown to a person, no I/O of the pipeline."""
    if ctx.fn.id not in ctx.project.memo.get(WRAPPED_STEPS_KEY, {}) or not isinstance(node, ast.Call) \
            or not ctx.reports(node):
        return False
    read = ctx.slice_needs()
    if read is None:
        return False
    own = set(ctx.fn.params) | {n.id for n in ctx.fn.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    needed = (read & own) - {ctx.self_name}   # its locals the slice reads (not modules, settings)
    return not any(isinstance(n, ast.Name) and n.id in needed for n in walked(node))
