"""Inputs of an inline range that the driver loop rebinds after the range, from the range's own outputs, by
array arithmetic alone (`u_prev = np.clip(u, -1, 1)` a few lines below the range, read by the range on the next
iteration): a value one iteration leaves for the next, computed outside the range. A rebinding by a call on an
object of the loop (`obs = env.step(cmd)`, `frame = cam.read()`) is a new reading, not such a value.

Only the standard library's `ast` is used, so that `scan` can share it."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.inline.uses import uses
from leapp_codemod.knowledge.libraries import ARRAY_MATH_ROOTS


def array_math_aliases(tree: ast.Module) -> frozenset[str]:
    """Names the module binds to an array-math library or something imported from one (`np`, `torch`, `clip`)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {(a.asname or a.name).partition(".")[0] for a in node.names
                    if a.name.partition(".")[0] in ARRAY_MATH_ROOTS}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").partition(".")[0] in ARRAY_MATH_ROOTS:
            out |= {a.asname or a.name for a in node.names}
    return frozenset(out)


def _arithmetic_of(value: ast.expr, outputs: set[str], aliases: frozenset[str], fixed: set[str]) -> bool:
    """Does `value` compute from the range's outputs only (and settings the loop never rebinds), calling only
    array-math functions and methods of what it computes?"""
    names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    if not names & outputs or not names <= outputs | aliases | fixed:
        return False
    for call in (n for n in ast.walk(value) if isinstance(n, ast.Call)):
        func = call.func
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(func, ast.Name) and func.id not in aliases:
            return False        # a function of the project or a builtin: not known to be arithmetic
        if isinstance(root, ast.Name) and root.id not in aliases and root.id not in outputs:
            return False        # a method of an object of the loop (`env.step`): a new reading
    return True


def fed_after(loop: ast.AST | None, start: int, end: int, inputs, outputs,
              aliases: frozenset[str]) -> dict[str, ast.Assign]:
    """{input: its first rebinding after the range} for the inputs the loop rebinds only after the range, each
    time by array arithmetic of the range's outputs (see the module docstring)."""
    if loop is None:
        return {}
    body = [n for stmt in loop.body for n in ast.walk(stmt)]
    loop_written = {n for n, k, _ in uses(loop.body) if k in "wm"}
    fixed = {n for n, _, _ in uses(loop.body)} - loop_written
    out: dict[str, ast.Assign] = {}
    for name in inputs:
        writes = [n for n in body if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                  and any(isinstance(t, ast.Name) and t.id == name
                          for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
        if not writes or any(w.lineno <= end for w in writes) or any(
                line <= end and k in "wm" for n, k, line in uses(loop.body) if n == name):
            continue
        if all(isinstance(w, ast.Assign) and _arithmetic_of(w.value, set(outputs), aliases, fixed) for w in writes):
            out[name] = min(writes, key=lambda w: w.lineno)
    return out
