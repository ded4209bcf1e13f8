"""The statement range to export when a driver loop calls the policy inline (`--entry FILE:START-END`).

Starting from the loop statement that calls the policy, the range grows within its block:

* backward over assignments that feed it (their targets are read by the range), as long as they
  read no object the loop mutates (`mj_step(model, data)` mutates `data`, `plant.apply(a)` mutates
  `plant`, `data.ctrl[:] = ...` too: reading those is reading the simulator, the range's input
  boundary) and are not the loop's own update of a value from the previous iteration (`q = q + dq`);
* forward over assignments that post-process what the range computed (`target = action * scale +
  default`, `last_action = action`): they read range values and otherwise only values fixed
  during the loop.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.inline.range import uses

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


@dataclass(frozen=True)
class Suggestion:
    start: int
    end: int
    reason: str


def _blocks_with_parents(tree: ast.Module):
    """(block, loop or None) for every statement list, with the innermost loop enclosing it."""
    stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]
    while stack:
        node, loop = stack.pop()
        inner_loop = node if isinstance(node, _LOOPS) else loop
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            inner_loop = None
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block, inner_loop
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.stmt, ast.excepthandler)) and not _atomic_with(child):
                stack.append((child, inner_loop))


def _atomic_with(node: ast.AST) -> bool:
    """A `with` inside the loop (`with torch.no_grad():`) is one statement of the range; a `with` around
    the loop (a viewer, a log file) is structure to look through."""
    return isinstance(node, (ast.With, ast.AsyncWith)) and not any(isinstance(n, _LOOPS) for n in ast.walk(node))


def _assignable(target: ast.expr) -> bool:
    """A name, an unpacking of names, or an element of a local buffer (`obs[3:6] = g`)."""
    if isinstance(target, ast.Name):
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_assignable(e) for e in target.elts)
    if isinstance(target, ast.Starred):
        return _assignable(target.value)
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)


def _is_assignment(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return all(_assignable(t) for t in targets)
    if isinstance(stmt, ast.With):
        return all(_is_assignment(s) or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                   for s in stmt.body)
    return False


def _mutated(loop: ast.AST) -> set[str]:
    """Names of objects the loop mutates: passed whole to a call made for its effect, the receiver of
    such a method call, or written through an attribute or subscript."""
    out: set[str] = set()
    for node in ast.walk(loop):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            out |= {a.id for a in [*call.args, *(k.value for k in call.keywords)] if isinstance(a, ast.Name)}
            func = call.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                out.add(func.value.id)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(
                node.value, ast.Attribute):        # `data.ctrl[:] = tau` writes into `data`
            base = node.value
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(base, ast.Name):
                out.add(base.id)
    return out


def _reads(stmt: ast.stmt) -> set[str]:
    return {n for n, k, _ in uses([stmt]) if k == "r"}


def _writes(stmt: ast.stmt) -> set[str]:
    """Names the statement rebinds or writes into (`obs[3:6] = g` writes `obs`)."""
    return {n for n, k, _ in uses([stmt]) if k in "wm"}


def _rebinds(stmt: ast.stmt) -> set[str]:
    return {n for n, k, _ in uses([stmt]) if k == "w"}


def _attribute_mutations(loop: ast.AST) -> set[str]:
    """`self.total += x`: dotted attribute paths the loop writes (reading other attributes is fine)."""
    out = set()
    for node in ast.walk(loop):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(ast.unparse(node))
    return out


def _reads_mutated(stmt: ast.stmt, mutated: set[str], attr_paths: set[str]) -> bool:
    if _reads(stmt) & mutated:
        return True
    for node in ast.walk(stmt):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and ast.unparse(node) in attr_paths:
            return True
    return False


def suggest_range(tree: ast.Module, line: int) -> Suggestion | None:
    """The range around the loop statement at `line` that calls the policy, or None outside a loop."""
    best = None
    for block, loop in _blocks_with_parents(tree):
        if loop is None:
            continue
        for i, stmt in enumerate(block):
            if stmt.lineno <= line <= stmt.end_lineno and not any(
                    isinstance(s, ast.stmt) and s is not stmt and s.lineno <= line <= s.end_lineno
                    and _has_block(s) for s in ast.walk(stmt)):
                best = (block, loop, i)
    if best is None:
        return None
    block, loop, i = best
    mutated = _mutated(loop)
    attr_paths = _attribute_mutations(loop)
    bound_in_loop = {n for n, k, _ in uses([loop]) if k == "w"}
    first = last = i
    needed = _reads(block[i])
    while first > 0:
        prev = block[first - 1]
        writes = _writes(prev)
        if not _is_assignment(prev) or not writes & needed or _reads_mutated(prev, mutated, attr_paths):
            break
        carried = _reads(prev) & _rebinds(prev)
        if carried - {n for s in block[:first - 1] for n in _writes(s)}:
            break             # the loop's own update of a value from the previous iteration
        first -= 1
        needed |= _reads(prev)
    produced = {n for s in block[first:last + 1] for n in _writes(s)}
    while last + 1 < len(block):
        nxt = block[last + 1]
        reads = _reads(nxt)
        if not _is_assignment(nxt) or not reads & produced or (reads - produced) & bound_in_loop:
            break
        last += 1
        produced |= _writes(nxt)
    start = block[first].lineno
    end = block[last].end_lineno
    return Suggestion(start, end, f"the statements around the policy call at line {line} that build its input "
                                  "and post-process its output")


def _has_block(stmt: ast.stmt) -> bool:
    return isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.Try, ast.FunctionDef,
                             ast.AsyncFunctionDef, ast.ClassDef))
