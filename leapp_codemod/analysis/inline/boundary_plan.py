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
from leapp_codemod.source.chains import counter_kind
from leapp_codemod.source.parse import is_literal

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
            fn = counter_kind(node.iter)
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


def _literal_assign(stmt) -> bool:
    """`period = 0.8`: a name bound to a literal, which both sides of the boundary may compute."""
    return (isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets)
            and is_literal(stmt.value))


def _hoist(rng: InlineRange, counters: set[str]) -> tuple[list, list, set]:
    """(host statements, statements kept, names the host binds) for the computations on counters only
    (and the literal constants they read, which stay in the range too)."""
    constants = set(rng.constants)
    local = {*rng.inputs, *rng.state, *rng.constants} | {n for s in rng.statements for n in _writes(s)}
    host_names = set(counters)
    host, kept = [], []
    seen_reads: set[str] = set()
    seen_writes: set[str] = set()
    for stmt in rng.statements:
        reads, writes = _reads(stmt), _writes(stmt)
        plain_assign = isinstance(stmt, (ast.Assign, ast.AnnAssign)) and all(
            isinstance(t, ast.Name) or (isinstance(t, (ast.Tuple, ast.List)) and all(
                isinstance(e, ast.Name) for e in t.elts))
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]))
        movable = (plain_assign and reads & host_names and (reads & local) <= host_names | constants
                   and not writes & (seen_reads | seen_writes | set(rng.state) | constants))
        if _literal_assign(stmt) and not writes & (seen_reads | seen_writes):
            host.append(stmt)
            kept.append(copy.deepcopy(stmt))
            host_names |= writes
            seen_writes |= writes
        elif movable:
            host.append(stmt)
            host_names |= writes
        else:
            kept.append(stmt)
            seen_reads |= reads
            seen_writes |= writes
    if not any(_reads(s) & counters for s in host):
        return [], list(rng.statements), set()
    host = [s for s in host if not _literal_assign(s) or _writes(s) & {r for h in host for r in _reads(h)}]
    literal_names = {n for s in host if _literal_assign(s) for n in _writes(s)}
    kept_writes = {n for s in kept if not _literal_assign(s) for n in _writes(s)}
    return host, kept, (host_names - kept_writes) | literal_names


def _host_only(node, host_names: set[str], local: set[str]) -> bool:
    """An expression the host can compute: it reads a host-bound name, and no other local."""
    if isinstance(node, (ast.Name, ast.Constant, ast.Starred, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                         ast.GeneratorExp, ast.NamedExpr, ast.Slice)) or not isinstance(node, ast.expr):
        return False
    names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
    if any(not isinstance(n.ctx, ast.Load) for n in names):
        return False
    reads = {n.id for n in names}
    return bool(reads & host_names) and (reads & local) <= host_names


class _Lift(ast.NodeTransformer):
    """Replace each largest host-only sub-expression of a kept statement by a name the host binds."""

    def __init__(self, host_names: set[str], local: set[str], taken: set[str]) -> None:
        self.host_names, self.local, self.taken = host_names, local, taken
        self.lifted: list[tuple[str, ast.expr]] = []

    def visit(self, node):
        if isinstance(node, ast.expr) and _host_only(node, self.host_names, self.local):
            name = f"host_l{node.lineno}"
            while name in self.taken:
                name += "_"
            self.taken.add(name)
            self.lifted.append((name, node))
            return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)
        return super().visit(node)


def _lift(kept: list, host_names: set[str], local: set[str], taken: set[str]):
    """(kept statements with host-only sub-expressions replaced, [(name, expression)] the host computes)."""
    lifter = _Lift(host_names, local, taken)
    out = []
    for stmt in kept:
        if _literal_assign(stmt):
            out.append(stmt)
            continue
        out.append(lifter.visit(copy.deepcopy(stmt)))
    return out, lifter.lifted


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
    host, kept, host_names = _hoist(rng, counters) if counters else ([], list(rng.statements), set())
    notes: list[str] = []
    if not kept:
        return BoundaryPlan(rng)
    local = {*rng.inputs, *rng.state, *rng.constants} | {n for s in rng.statements for n in _writes(s)}
    lifted: list = []
    if host_names:
        kept, lifted = _lift(kept, host_names, local - set(rng.constants),
                             local | {n for s in rng.statements for n in _reads(s)})
    host_made = {n for s in host for n in _writes(s)} | {name for name, _ in lifted}
    literal_names = {n for s in host if _literal_assign(s) for n in _writes(s)}
    inputs = _first_reads(kept, (set(rng.inputs) | host_made) - literal_names)
    if host or lifted:
        moved = ", ".join(f"`{n}`" for n in sorted(counters))
        lines = sorted({s.lineno for s in host if not _literal_assign(s)} | {e.lineno for _, e in lifted})
        made = [n for n in inputs if n in host_made]
        notes.append(f"line(s) {', '.join(map(str, lines))} compute from the counter {moved} and constants only: "
                     f"the host computes that before the boundary, and "
                     f"{', '.join(f'`{n}`' for n in made) or 'nothing it makes'} enters the export as an input "
                     "instead")
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
    if not host and not lifted and not attr_inputs:
        return BoundaryPlan(rng)
    host = [*host, *(ast.copy_location(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=expr), expr)
                     for name, expr in lifted)]
    statements = [copy.deepcopy(s) for s in kept]
    if ports:
        statements = [_ReplaceAttrs(ports).visit(s) for s in statements]
    outputs = tuple(n for n in rng.outputs if n not in host_made or any(n in _writes(s) for s in kept))
    host = [ast.fix_missing_locations(s) for s in host]
    exported = replace(rng, statements=tuple(statements), inputs=tuple(new_inputs), outputs=outputs)
    return BoundaryPlan(exported, tuple(host), tuple(attr_inputs), tuple(sorted(counters)), tuple(notes))
