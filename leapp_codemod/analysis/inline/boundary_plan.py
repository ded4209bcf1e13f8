"""Where an inline range's LEAPP boundary really sits: what runs on the host before it, and which
attribute reads are the inputs.

Two shapes of driver loop keep a range from exporting as written, and both are fixed by moving the
boundary, never by editing the driver:

* A **step counter** (a Python or NumPy number bound by the loop: `counter += 1`, `for step in
  range(n)`) read by the range. LEAPP passes numbers through as constants, and a 0-d array loses
  its trace in the first arithmetic (NumPy returns a scalar). The range's leading computations that
  read only counters and constants (`phase = counter * dt % period / period`, `clock = np.array([...])`)
  run on the host before the boundary, and what they produce for the rest of the range (the gait
  clock, an array) is the input instead of the counter.
* An **input object read through attributes** (a simulator's `data.qpos`, `data.qvel`): the object
  is no array, so the boundary would pass it through as a constant and freeze what the range reads
  from it. Each attribute read becomes an input of its own (`data_qpos`), read by the host.

`plan_boundary` returns the range to export (statements with those reads replaced, the inputs
updated) with the host statements and the attribute reads the call site evaluates.
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, replace

from leapp_codemod.analysis.inline.range import InlineRange, uses
from leapp_codemod.knowledge.vocab import (
    META_ATTRS,
    NDARRAY_METHODS,
    PURE_METHODS,
    SHAPE_ATTRS,
)

# Attributes of an array or tensor: an input read through one of these is an array, not an object.
_ARRAY_ATTRS = SHAPE_ATTRS | META_ATTRS | NDARRAY_METHODS | PURE_METHODS | {
    "T", "mT", "H", "real", "imag", "flat", "data", "grad", "itemsize", "nbytes", "size", "strides", "base"}


@dataclass(frozen=True)
class AttrInput:
    port: str        # the input's name in the export (`data_qpos`)
    obj: str         # the loop's name of the object (`data`)
    attr: str        # the attribute the range reads (`qpos`)


@dataclass(frozen=True)
class BoundaryPlan:
    rng: InlineRange                      # the exported part (copies of the statements, reads replaced)
    host: tuple[ast.stmt, ...] = ()       # original statements the host runs before the boundary
    attr_inputs: tuple[AttrInput, ...] = ()
    counters: tuple[str, ...] = ()        # the numbers whose computations moved to the host
    notes: tuple[str, ...] = ()

    def port_value(self, name: str) -> ast.expr:
        """The expression the call site passes for input `name`."""
        for a in self.attr_inputs:
            if a.port == name:
                return ast.Attribute(value=ast.Name(id=a.obj, ctx=ast.Load()), attr=a.attr, ctx=ast.Load())
        return ast.Name(id=name, ctx=ast.Load())


def _number_literal(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def loop_counters(rng: InlineRange) -> set[str]:
    """Names the enclosing loop (or scope) steps as numbers: `n += 1`, `for n in range(...)`, the index
    of `for n, x in enumerate(...)`, and bound to nothing else inside the loop."""
    where = rng.loop if rng.loop is not None else rng.scope
    counted: set[str] = set()
    other: set[str] = set()
    for node in ast.walk(where):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            (counted if _number_literal(node.value) else other).add(node.target.id)
        elif isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Call):
            fn = getattr(node.iter.func, "id", None)
            if fn == "range" and isinstance(node.target, ast.Name):
                counted.add(node.target.id)
            elif fn == "enumerate" and isinstance(node.target, ast.Tuple) and node.target.elts \
                    and isinstance(node.target.elts[0], ast.Name):
                counted.add(node.target.elts[0].id)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                        other.add(n.id)
    return counted - other


def _reads(stmt) -> set[str]:
    return {n for n, k, _ in uses([stmt]) if k == "r"}


def _writes(stmt) -> set[str]:
    return {n for n, k, _ in uses([stmt]) if k in "wm"}


def _hoist(rng: InlineRange, counters: set[str]) -> tuple[list, list]:
    """(host statements, statements kept) for the leading computations on counters only."""
    constants = set(rng.constants)
    local = {*rng.inputs, *rng.state, *rng.constants} | {n for s in rng.statements for n in _writes(s)}
    host_names = set(counters)
    host, kept = [], []
    seen_reads: set[str] = set()
    seen_writes: set[str] = set()
    for stmt in rng.statements:
        reads, writes = _reads(stmt), _writes(stmt)
        plain_assign = isinstance(stmt, (ast.Assign, ast.AnnAssign)) and all(
            isinstance(t, ast.Name) for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]))
        movable = (plain_assign and reads & host_names and (reads & local) <= host_names | constants
                   and not writes & (seen_reads | seen_writes | set(rng.state) | constants))
        if movable:
            host.append(stmt)
            host_names |= writes
        else:
            kept.append(stmt)
            seen_reads |= reads
            seen_writes |= writes
    return host, kept


def _attr_reads(statements, name: str) -> list[str] | None:
    """The attributes the statements read from `name`, or None when `name` is used otherwise (as a
    whole value, a call's receiver, a store target, or through an array attribute)."""
    attrs: list[str] = []
    calls = {id(n.func) for s in statements for n in ast.walk(s) if isinstance(n, ast.Call)}
    parents = {id(child): node for s in statements for node in ast.walk(s) for child in ast.iter_child_nodes(node)}
    for s in statements:
        for node in ast.walk(s):
            if not (isinstance(node, ast.Name) and node.id == name):
                continue
            parent = parents.get(id(node))
            if not (isinstance(node.ctx, ast.Load) and isinstance(parent, ast.Attribute) and parent.value is node
                    and isinstance(parent.ctx, ast.Load) and id(parent) not in calls
                    and parent.attr not in _ARRAY_ATTRS and not parent.attr.startswith("_")):
                return None
            if parent.attr not in attrs:
                attrs.append(parent.attr)
    return attrs or None


class _ReplaceAttrs(ast.NodeTransformer):
    def __init__(self, ports: dict[tuple[str, str], str]) -> None:
        self.ports = ports

    def visit_Attribute(self, node: ast.Attribute):
        if isinstance(node.value, ast.Name) and (node.value.id, node.attr) in self.ports:
            return ast.copy_location(ast.Name(id=self.ports[node.value.id, node.attr], ctx=ast.Load()), node)
        return self.generic_visit(node)


def _first_reads(statements, candidates: set[str]) -> list[str]:
    out: list[str] = []
    written: set[str] = set()
    for n, k, _ in uses(statements):
        if k == "w":
            written.add(n)
        elif k == "r" and n in candidates and n not in written and n not in out:
            out.append(n)
    return out


def plan_boundary(rng: InlineRange) -> BoundaryPlan:
    """The range to export, the host statements before it and the attribute reads that are inputs."""
    counters = loop_counters(rng) & set(rng.inputs)
    host, kept = _hoist(rng, counters) if counters else ([], list(rng.statements))
    notes: list[str] = []
    if not kept:
        return BoundaryPlan(rng)
    host_made = {n for s in host for n in _writes(s)}
    inputs = _first_reads(kept, set(rng.inputs) | host_made)
    if host:
        moved = ", ".join(f"`{n}`" for n in sorted(counters & {r for s in host for r in _reads(s)}))
        lines = f"{host[0].lineno}-{host[-1].end_lineno}" if len(host) > 1 else str(host[0].lineno)
        made = [n for n in inputs if n in host_made]
        notes.append(f"line(s) {lines} compute from the counter {moved} and constants only: they run on the host "
                     f"before the boundary, and {', '.join(f'`{n}`' for n in made) or 'nothing they make'} "
                     "enters the export as an input instead")
    taken = {*inputs, *rng.state, *rng.constants} | {n for s in kept for n in _writes(s)}
    ports: dict[tuple[str, str], str] = {}
    attr_inputs: list[AttrInput] = []
    new_inputs: list[str] = []
    for name in inputs:
        attrs = _attr_reads(kept, name) if name not in host_made else None
        if not attrs:
            new_inputs.append(name)
            continue
        for attr in attrs:
            port = f"{name}_{attr}"
            while port in taken:
                port += "_"
            taken.add(port)
            ports[name, attr] = port
            attr_inputs.append(AttrInput(port, name, attr))
            new_inputs.append(port)
        notes.append(f"`{name}` is read only through its attributes ({', '.join(attrs)}): each is an input of its "
                     f"own ({', '.join(ports[name, a] for a in attrs)})")
    if not host and not attr_inputs:
        return BoundaryPlan(rng)
    statements = [copy.deepcopy(s) for s in kept]
    if ports:
        statements = [_ReplaceAttrs(ports).visit(s) for s in statements]
    outputs = tuple(n for n in rng.outputs if n not in host_made or any(n in _writes(s) for s in kept))
    exported = replace(rng, statements=tuple(statements), inputs=tuple(new_inputs), outputs=outputs)
    return BoundaryPlan(exported, tuple(host), tuple(attr_inputs), tuple(sorted(counters)), tuple(notes))
