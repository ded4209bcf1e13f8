"""`generate --split NAME=MODULE:FUNCTION[,...] --reason TEXT`: the pipeline as a chain of LEAPP nodes.

Node NAME ends where its helper returns: the helper's result is published as that node's outputs
(the producer is finalized) and declared at once as the inputs of the next node (an explicit
connection); the last node ends at the entry's return. Every computation lies inside a node.

A cut is only valid when nothing crosses it except the helper's result: `generate` reads the
entry's body and refuses a split where a value computed (or an input read) before a helper call is
used after it. Entry inputs first read after a cut are declared on the node that reads them.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from leapp_codemod.generate.source_info import SourceError, read_entry, read_function

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


class SplitError(Exception):
    """A one-line reason the split cannot be generated."""


@dataclass(frozen=True)
class Boundary:
    node: str                                  # the producer node that ends when the helper returns
    function: str                              # "module:qualname" of the helper
    targets: tuple[tuple[str, str], ...]       # (module, "Class.attr" or "name") replaced during a step
    outputs: tuple[tuple[str, str], ...]       # (output name, expression on `result`)
    late_inputs: tuple[str, ...]               # entry inputs declared on the node after this boundary
    call_line: int                             # where the entry calls it (0: not called directly)


@dataclass(frozen=True)
class SplitSpec:
    reason: str
    boundaries: tuple[Boundary, ...]
    first_inputs: tuple[str, ...]              # entry inputs declared on the first node
    last: str                                  # the final node (the graph's NODE)
    checked_statically: bool

    @property
    def order(self) -> tuple[str, ...]:
        return tuple(b.node for b in self.boundaries) + (self.last,)


def parse_split(text: str) -> list[tuple[str, str, str]]:
    """`a=m:f,b=m:C.g` -> [("a", "m", "f"), ("b", "m", "C.g")]."""
    out = []
    for item in (p.strip() for p in text.split(",") if p.strip()):
        name, sep, target = item.partition("=")
        module, colon, qualname = target.partition(":")
        if not sep or not colon or not name or not module or not qualname:
            raise SplitError(f"--split must be NAME=MODULE:FUNCTION[,NAME=MODULE:FUNCTION...], got {item!r}")
        if not _NAME.match(name) or "/" in name:
            raise SplitError(f"--split node name {name!r} must be an identifier-like name without '/'")
        out.append((name.strip(), module.strip(), qualname.strip()))
    if not out:
        raise SplitError("--split names no helper")
    names = [n for n, _, _ in out]
    if len(set(names)) != len(names):
        raise SplitError(f"--split names a node twice: {', '.join(sorted({n for n in names if names.count(n) > 1}))}")
    return out


def _module_of(path: Path, root: Path) -> str:
    rel = path.resolve().relative_to(root.resolve()).with_suffix("")
    parts = list(rel.parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve_from(importer: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join([*base, node.module] if node.module else base)


def function_bindings(root: Path, app_dir: Path, module: str, name: str) -> list[tuple[str, str]]:
    """Every (module, name) through which application code looks a module-level function up."""
    found = [(module, name)]
    for path in sorted(app_dir.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        importer = _module_of(path, root)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and _resolve_from(importer, node, path.name == "__init__.py") == module:
                for alias in node.names:
                    if alias.name == name and (importer, alias.asname or name) not in found:
                        found.append((importer, alias.asname or name))
    return found


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _reads_outside(node: ast.AST, inner: ast.AST) -> set[str]:
    """Names read in `node` but outside the subtree `inner`."""
    inside = {id(n) for n in ast.walk(inner)}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and id(n) not in inside}


def _writes(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


def _call_of(stmt: ast.stmt, names: set[str], attr: str) -> ast.Call | None:
    for sub in ast.walk(stmt):
        if isinstance(sub, ast.Call):
            f = sub.func
            if (isinstance(f, ast.Name) and f.id in names) or (isinstance(f, ast.Attribute) and f.attr == attr):
                return sub
    return None


def plan_cuts(fn: ast.FunctionDef, inputs: tuple[str, ...], calls: list[tuple[set[str], str]],
              where: str) -> tuple[tuple[str, ...], list[tuple[str, ...]], list[int]] | None:
    """(inputs of the first node, late inputs per boundary, call line per boundary), or None when a helper
    is not called by a top-level statement of the entry. Raises SplitError when a value crosses a cut."""
    body = fn.body
    positions: list[tuple[int, ast.Call]] = []
    for names, attr in calls:
        hit = next(((i, c) for i, s in enumerate(body) if (c := _call_of(s, names, attr)) is not None), None)
        if hit is None:
            return None
        if isinstance(body[hit[0]], (ast.For, ast.AsyncFor, ast.While, ast.If, ast.Try)):
            raise SplitError(f"{where}:{hit[1].lineno}: {attr} is called inside a loop or branch; a node boundary "
                             "must run exactly once per step")
        positions.append(hit)
    if [p for p, _ in positions] != sorted(p for p, _ in positions) or len({p for p, _ in positions}) != len(positions):
        raise SplitError(f"{where}: the split helpers must be called in the order given, one per statement")
    segment_of_stmt: list[int] = []
    seg = 0
    for i in range(len(body)):
        if seg < len(positions) and i == positions[seg][0]:
            seg += 1
        segment_of_stmt.append(seg)
    reads: dict[int, set[str]] = {s: set() for s in range(len(positions) + 1)}
    writes: dict[int, set[str]] = {s: set() for s in range(len(positions) + 1)}
    lines: dict[tuple[int, str], int] = {}
    for i, stmt in enumerate(body):
        seg = segment_of_stmt[i]
        boundary = next((c for p, c in positions if p == i), None)
        if boundary is not None:
            before = _reads(boundary)
            reads[seg - 1] |= before
            after = _reads_outside(stmt, boundary)
            reads[seg] |= after
            for name in after:
                lines.setdefault((seg, name), stmt.lineno)
        else:
            got = _reads(stmt)
            reads[seg] |= got
            for name in got:
                lines.setdefault((seg, name), stmt.lineno)
        writes[seg] |= _writes(stmt)
    first_read = {name: min((s for s in reads if name in reads[s]), default=0) for name in inputs}
    for seg in range(1, len(positions) + 1):
        for name in sorted(reads[seg]):
            crossing = (name in inputs and first_read[name] < seg) or any(
                name in writes[s] and name not in writes[seg] for s in range(seg))
            if crossing:
                raise SplitError(f"{where}:{lines.get((seg, name), fn.lineno)}: `{name}` is computed or read before "
                                 f"the call at line {positions[seg - 1][1].lineno} and used after it, so it would "
                                 "cross a node boundary unannotated; pass it through the helper or split elsewhere")
    first = tuple(n for n in inputs if first_read[n] == 0)
    late = [tuple(n for n in inputs if first_read[n] == seg) for seg in range(1, len(positions) + 1)]
    return first, late, [c.lineno for _, c in positions]


def build_split(root: Path, app_dir: Path, entry_module: str, entry_qualname: str, inputs: tuple[str, ...],
                last: str, text: str, reason: str | None, has_state: bool) -> SplitSpec:
    if reason is None or not reason.strip():
        raise SplitError("--split needs --reason TEXT: say why the pipeline must be more than one node "
                         "(two devices, two rates, ...)")
    if has_state:
        raise SplitError("--split: the pipeline keeps recurrent state; splitting a stateful pipeline is not "
                         "supported, export it as one node")
    wanted = parse_split(text)
    if last in {n for n, _, _ in wanted}:
        raise SplitError(f"--split node name {last!r} is the name of the final node; choose another")
    boundaries_in = []
    calls = []
    for name, module, qualname in wanted:
        try:
            helper = read_entry(root, module, qualname)
        except SourceError as exc:
            raise SplitError(f"--split {name}: {exc}") from None
        if not helper.outputs:
            raise SplitError(f"--split {name}: {module}:{qualname} returns nothing to publish")
        attr = qualname.rpartition(".")[2]
        if "." in qualname:
            targets = ((module, qualname),)
            names: set[str] = set()
        else:
            targets = tuple(function_bindings(root, app_dir, module, qualname))
            names = {n for m, n in targets if m == entry_module}
        calls.append((names, attr))
        boundaries_in.append((name, f"{module}:{qualname}", targets,
                              tuple((o.name, o.access) for o in helper.outputs)))
    entry_fn = read_function(root, entry_module, entry_qualname)
    where = entry_fn.path.relative_to(root.resolve()).as_posix() if entry_fn.path.is_absolute() else str(entry_fn.path)
    plan = plan_cuts(entry_fn.node, inputs, calls, where)
    if plan is None:
        first, late, lines = inputs, [()] * len(wanted), [0] * len(wanted)
    else:
        first, late, lines = plan
    boundaries = tuple(Boundary(n, f, t, o, lt, ln) for (n, f, t, o), lt, ln in zip(boundaries_in, late, lines))
    return SplitSpec(reason.strip(), boundaries, first, last, plan is not None)
