"""`scan --entry FILE:START-END`: the statement range as the pipeline's entry function.

The range becomes a function of the values it reads from before it (see `inline_range`) whose body
is the range's own statements, so only that code and what it calls is analyzed; its inputs and
carried state are the pipeline data, the code around it (setup, logging, teardown) is not scanned.
"""
from __future__ import annotations

import ast
import os
from dataclasses import replace
from pathlib import Path

from leapp_codemod.analysis.inline.boundary_types import undeclarable_inputs
from leapp_codemod.analysis.inline.fed_after import array_math_aliases, fed_after
from leapp_codemod.analysis.inline.fixed_literals import fixed_literal
from leapp_codemod.analysis.infer.unused_positions import PINNED_KEY
from leapp_codemod.analysis.inline.mutated import only_mutated
from leapp_codemod.analysis.inline.uses import overwritten_before_read, uses
from leapp_codemod.analysis.model.config_values import ruled_out_in
from leapp_codemod.analysis.model.function_values import scope_chain
from leapp_codemod.analysis.inline.world_step import end_before_world_step
from leapp_codemod.analysis.model.world_steps import world_step
from leapp_codemod.analysis.inline.wrapped_world import wrapped_world_step
from leapp_codemod.analysis.model.world_steps import WRAPPED_STEPS_KEY
from leapp_codemod.analysis.model.world_steps import WRAPPED_CALLS_KEY
from leapp_codemod.analysis.model.config_values import config_key
from leapp_codemod.analysis.model.index import FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.returned_classes import tuple_item
from leapp_codemod.analysis.inline.range import (
    before_world_step,
    settle,
    InlineEntry,
    InlineRange,
    RangeError,
    as_function,
    locate,
)
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.knowledge.vocab import CONTAINER_MUTATORS
from leapp_codemod.source.chains import counter_kind


class InlineEntryError(Exception):
    """The inline entry names no scanned file or not a valid range (one line)."""


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _filled_in_place(rng: InlineRange) -> frozenset[str]:
    """Values from before the range that it mutates without rebinding (`frames.append(obs)`,
    `buf[0] = x`): they keep what the range put in them for the next iteration."""
    out = set()
    for node in (n for stmt in rng.statements for n in ast.walk(stmt)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CONTAINER_MUTATORS \
                and isinstance(node.func.value, ast.Name):
            out.add(node.func.value.id)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
            out.add(node.value.id)
    statements = list(rng.statements)   # a log is no state, nor a buffer each pass fills whole before reading
    return frozenset(out & set(rng.constants)) - only_mutated(statements) - _refilled(rng)


def _refilled(rng: InlineRange) -> frozenset[str]:
    """Buffers from before the range that every pass fills whole before reading (`uses.overwritten_before_read`)."""
    statements = list(rng.statements)
    read = [name for name, kind, _ in uses(statements) if kind == "r"]
    return frozenset(overwritten_before_read(statements, read))


def _discards(fn: FunctionInfo, param: str) -> bool:
    """The function rebinds `param` before anything reads it (`td = TensorDict(...)` first thing)."""
    for stmt in fn.node.body:
        names = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == param}
        if not names:
            continue
        return isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == param for t in stmt.targets) \
            and not any(isinstance(n, ast.Name) and n.id == param for n in ast.walk(stmt.value))
    return False


def _callee_of(project: Project, module: ModuleIndex, call: ast.Call, outer: dict[str, ast.expr]) -> FunctionInfo | None:
    """`env.step(...)` on an object the enclosing scope built from a project class before the range."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and isinstance(outer.get(func.value.id), ast.Call)):
        return None
    cls = project.class_of(project.qualify(outer[func.value.id].func, module))
    if cls is None:
        return None
    hook = project.library_hook(cls, func.attr)
    return project.find_method(cls, func.attr) or (hook[0] if hook else None)


def _handed_away(project: Project, module: ModuleIndex, rng: InlineRange, outer: dict[str, ast.expr]) -> set[str]:
    """State names whose first use rebinds them from a call that throws the old value away
    (`data = env.step(data)` where the project's `step` replaces its argument before reading it): the
    previous iteration's value never reaches the pipeline, so nothing is carried."""
    out = set()
    for name in rng.state:
        stmt = next((s for s in rng.statements if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(s))),
                    None)
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
                and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)):
            continue
        call = stmt.value
        loads = [n for n in ast.walk(call) if isinstance(n, ast.Name) and n.id == name]
        position = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Name) and a.id == name), None)
        callee = _callee_of(project, module, call, outer) if len(loads) == 1 and position is not None else None
        params = callee.positional_params if callee is not None else []
        offset = 1 if callee is not None and callee.is_method else 0
        if callee is not None and position + offset < len(params) and _discards(callee, params[position + offset]):
            out.add(name)
    return out


def _bound_before(rng: InlineRange, ruled_out: frozenset[int] = frozenset(),
                  around: tuple[ast.AST, ...] = ()) -> dict[str, ast.expr]:
    """The value each of the range's names was last assigned before the range, in its enclosing scope;
    for the target of a loop around the range, what it iterates (`range(n)`). Assignments in `ruled_out` (ids
    of statements in blocks the configs or command-line defaults rule out) bind nothing. `around`: the
    functions around a closure the range is in, outermost first: what they bind outside the closure counts
    too, the closure's own scope overriding."""
    names = {*rng.inputs, *rng.state, *rng.constants}
    # ... and the containers the range walks (`hists = [History(n) for n in dims]`): their items' class; and the
    # config reads it tests (`include_phase = config.get("include_phase", False)`): the configs may decide them
    displays = (ast.List, ast.Tuple, ast.Dict, ast.ListComp, ast.DictComp)
    read = {n.id for stmt in rng.statements for n in ast.walk(stmt) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}
    out: dict[str, tuple[int, int, ast.expr]] = {}   # name -> (own scope?, line, value)
    inner = {id(n) for n in ast.walk(rng.scope)}
    outer_nodes = [(n, 0) for scope in around for n in ast.walk(scope) if id(n) not in inner]
    for node, rank in [*outer_nodes, *((n, 1) for n in ast.walk(rng.scope))]:
        if id(node) in ruled_out:
            continue
        if isinstance(node, ast.Assign) and (node.lineno < rng.start or not rank):
            bound = [(t, node.value) for t in node.targets]
        elif isinstance(node, (ast.For, ast.AsyncFor)) and node.lineno < rng.start <= (node.end_lineno or 0):
            bound = [(node.target, node.iter)]
        else:
            continue
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):   # `policy, norm = load(path)`
            bound += [(item, tuple_item(node.value, i))
                      for t in node.targets if isinstance(t, (ast.Tuple, ast.List))
                      for i, item in enumerate(t.elts) if isinstance(item, ast.Name)]
        for target, value in bound:
            wanted = target.id in names or target.id in read and (isinstance(value, displays) or config_key(value)) \
                if isinstance(target, ast.Name) else False   # a display it walks, a config read that may decide it
            if wanted and (rank, node.lineno) >= out.get(target.id, (0, 0))[:2]:
                out[target.id] = (rank, node.lineno, value)
    return {name: value for name, (_, _, value) in out.items()}


def python_number(value: ast.expr | None) -> bool:
    """`0`, `-1.5`, or what a loop counter iterates: `range(...)`, `enumerate(...)`, either inside a progress
    bar (`tqdm(range(n))`)."""
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    return value is not None and counter_kind(value) is not None


def _numbers(rng: InlineRange, outer: dict[str, ast.expr]) -> dict[str, bool]:
    """Inputs bound to Python numbers before the range -> whether they change between iterations: the
    target of a loop around the range, or rebound inside the loop that holds it (`counter += 1`), unless every
    binding of it is the same literal (`B = 1` at the top of every pass: a constant)."""
    loop_body = [n for stmt in (rng.loop.body if rng.loop is not None else ()) for n in ast.walk(stmt)]
    rebound = {t.id for n in loop_body if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
               for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    return {name: isinstance(outer[name], ast.Call) or name in rebound and not fixed_literal(rng.scope, name)
            for name in rng.inputs if python_number(outer.get(name))}


def _world_step_statements(rng: InlineRange) -> list[ast.stmt]:
    """The range's world steps, the one it ends in first (`state_, r, done, _ = env.step(a)` may also sit in the
    middle of a range that goes on with the host's bookkeeping, or in a loop of the range that repeats it until
    the next policy call is due)."""
    found = end_before_world_step(rng.statements)
    trailing = [found[1]] if found else []
    return trailing + [s for stmt in rng.statements for s in ast.walk(stmt)
                       if isinstance(s, ast.stmt) and world_step(s) and s not in trailing]


def _carried_names(rng: InlineRange, after: int) -> frozenset[str]:
    """The range's inputs and state, with the names copied into them after line `after` (`state = state_`, in
    the range or after it in the loop, also under a branch: `if done: state = env.reset() else: state = nxt`)."""
    names = set(rng.inputs) | set(rng.state)
    body = rng.loop.body if rng.loop is not None else rng.statements
    copies = [(s.targets[0].id, s.value.id) for stmt in body for s in ast.walk(stmt)
              if isinstance(s, ast.Assign) and s.lineno > after and len(s.targets) == 1
              and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Name)]
    grew = True
    while grew:
        grew = False
        for target, source in copies:
            if target in names and source not in names:
                names.add(source)
                grew = True
    return frozenset(names)


def _through_wrapper(project: Project, module: ModuleIndex, rng: InlineRange) -> tuple[InlineRange, ast.Call] | None:
    """The range as given, with a note, and the step's call, when a world step in it is the project's own
    wrapper handing the action to the world (scanned as pipeline code); None otherwise."""
    owner = project.class_of(f"{module.name}.{rng.scope_qualname.rpartition('.')[0]}") if rng.class_name else None
    for step in _world_step_statements(rng):
        wrapped = wrapped_world_step(project, module, step, rng.scope, rng.start, owner)
        if wrapped is not None:
            break
    else:
        return None
    method, note = wrapped
    project.memo.setdefault(WRAPPED_STEPS_KEY, {})[method.id] = method
    project.memo.setdefault(WRAPPED_CALLS_KEY, {})[(module.path, step.value.lineno, step.value.col_offset)] = method
    # of what the step returns, the pipeline keeps the observation the range reads on its next pass; the
    # reward, the flags and the info are the host's bookkeeping
    targets = step.targets[0] if isinstance(step, ast.Assign) and len(step.targets) == 1 else None
    elements = targets.elts if isinstance(targets, (ast.Tuple, ast.List)) else []
    if elements and all(isinstance(e, ast.Name) for e in elements):
        carried = _carried_names(rng, step.lineno)
        project.memo.setdefault(PINNED_KEY, {})[method.id] = frozenset(
            i for i, e in enumerate(elements) if e.id in carried)
    return replace(rng, note="; ".join(filter(None, (rng.note, note)))), step.value


def inline_function(project: Project, entry: InlineEntry) -> tuple[FunctionInfo, InlineRange]:
    """The synthetic entry function of the range, registered in its module, and the range."""
    module = next((m for m in project.modules.values() if _same_file(m.path, entry.file)), None)
    if module is None:
        if not Path(entry.file).is_file():
            raise InlineEntryError(f"{entry.file}: no such file (--entry {entry.text})")
        raise InlineEntryError(f"{entry.file}: not among the scanned files (--entry {entry.text})")
    try:
        lines = Path(module.path).read_text(encoding="utf-8", errors="replace").splitlines()
        start, end, note = settle(module.tree, lines, entry.start, entry.end)
        rng = locate(module.tree, entry.file, start, end, len(lines))
    except RangeError as exc:
        raise InlineEntryError(str(exc)) from None
    if note:
        rng = replace(rng, note=note)
    through = _through_wrapper(project, module, rng)
    wrapped = through[1] if through else None
    rng = through[0] if through else before_world_step(module.tree, entry.file, rng, len(lines))
    ruled_out = ruled_out_in(project, module, rng.scope)
    around = tuple(f.node for f in scope_chain(project, module, rng.scope_qualname)[:-1])
    discarded = _handed_away(project, module, rng, _bound_before(rng, ruled_out, around))
    if discarded:
        rng = replace(rng, state=tuple(n for n in rng.state if n not in discarded),
                      constants=(*rng.constants, *sorted(discarded)))
    node = as_function(rng)
    qualname = f"{rng.scope_qualname}.{rng.label}" if rng.scope_qualname else rng.label
    owner = rng.scope_qualname.rpartition(".")[0] if rng.class_name else None
    outer = _bound_before(rng, ruled_out, around)
    fn = FunctionInfo(f"{module.name}:{qualname}", module.name, qualname, node, owner, module.path,
                      carried=frozenset(rng.state) | _filled_in_place(rng), refilled=_refilled(rng), outer_values=outer,
                      numbers=_numbers(rng, outer), undeclarable=undeclarable_inputs(rng),
                      fed_after=fed_after(rng.loop, rng.start, rng.end, rng.inputs, rng.outputs,
                                          array_math_aliases(module.tree)))
    if wrapped is not None:   # the wrapper's step is followed: only the other world steps leave the pipeline
        fn.walks["world steps"] = frozenset(
            id(s.value) for s in ast.walk(node) if isinstance(s, ast.stmt) and world_step(s)
            and (s.value.lineno, s.value.col_offset) != (wrapped.lineno, wrapped.col_offset))
    module.functions[qualname] = fn
    return fn, rng
