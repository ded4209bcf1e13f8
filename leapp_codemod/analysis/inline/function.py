"""`scan --entry FILE:START-END`: the statement range as the pipeline's entry function.

The range becomes a function of the values it reads from before it (see `inline_range`) whose body
is the range's own statements, so only that code and what it calls is analyzed; its inputs and
carried state are the pipeline data, the code around it (setup, logging, teardown) is not scanned.
"""
from __future__ import annotations

import ast
import os
from pathlib import Path

from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.inline.range import (
    InlineEntry,
    InlineRange,
    RangeError,
    as_function,
    locate,
)
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.knowledge.vocab import CONTAINER_MUTATORS


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
    return frozenset(out & set(rng.constants))


def _bound_before(rng: InlineRange) -> dict[str, ast.expr]:
    """The value each of the range's names was last assigned before the range, in its enclosing scope;
    for the target of a loop around the range, what it iterates (`range(n)`)."""
    names = {*rng.inputs, *rng.state, *rng.constants}
    out: dict[str, tuple[int, ast.expr]] = {}
    for node in ast.walk(rng.scope):
        if isinstance(node, ast.Assign) and node.lineno < rng.start:
            bound = [(t, node.value) for t in node.targets]
        elif isinstance(node, (ast.For, ast.AsyncFor)) and node.lineno < rng.start <= (node.end_lineno or 0):
            bound = [(node.target, node.iter)]
        else:
            continue
        for target, value in bound:
            if isinstance(target, ast.Name) and target.id in names and node.lineno >= out.get(target.id, (0,))[0]:
                out[target.id] = (node.lineno, value)
    return {name: value for name, (_, value) in out.items()}


def python_number(value: ast.expr | None) -> bool:
    """`0`, `-1.5`, or what a loop counter iterates: `range(...)`, `enumerate(...)`."""
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("range", "enumerate")


def _numbers(rng: InlineRange, outer: dict[str, ast.expr]) -> dict[str, bool]:
    """Inputs bound to Python numbers before the range -> whether they change between iterations: the
    target of a loop around the range, or rebound inside the loop that holds it (`counter += 1`)."""
    loop_body = [n for stmt in (rng.loop.body if rng.loop is not None else ()) for n in ast.walk(stmt)]
    rebound = {t.id for n in loop_body if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
               for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    return {name: isinstance(outer[name], ast.Call) or name in rebound
            for name in rng.inputs if python_number(outer.get(name))}


def inline_function(project: Project, entry: InlineEntry) -> tuple[FunctionInfo, InlineRange]:
    """The synthetic entry function of the range, registered in its module, and the range."""
    module = next((m for m in project.modules.values() if _same_file(m.path, entry.file)), None)
    if module is None:
        if not Path(entry.file).is_file():
            raise InlineEntryError(f"{entry.file}: no such file (--entry {entry.text})")
        raise InlineEntryError(f"{entry.file}: not among the scanned files (--entry {entry.text})")
    try:
        n_lines = len(Path(module.path).read_text(encoding="utf-8", errors="replace").splitlines())
        rng = locate(module.tree, entry.file, entry.start, entry.end, n_lines)
    except RangeError as exc:
        raise InlineEntryError(str(exc)) from None
    node = as_function(rng)
    qualname = f"{rng.scope_qualname}.{rng.label}" if rng.scope_qualname else rng.label
    owner = rng.scope_qualname.rpartition(".")[0] if rng.class_name else None
    outer = _bound_before(rng)
    fn = FunctionInfo(f"{module.name}:{qualname}", module.name, qualname, node, owner, module.path,
                      carried=frozenset(rng.state) | _filled_in_place(rng), outer_values=outer,
                      numbers=_numbers(rng, outer))
    module.functions[qualname] = fn
    return fn, rng
