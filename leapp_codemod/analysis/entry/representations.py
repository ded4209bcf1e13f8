"""An inline range whose model computes a representation for another model, not an action.

A perception node publishing a depth embedding for the controller, a loop filling a table of image features, a
latent a pre-compute script stores: the range's model call binds a name of REPRESENTATION_WORDS
(`depth_embedding = encoder(img)`) and nothing in the range binds a name of OUTPUT_ACTION_WORDS. Such a range
is a stage before the policy step (which another loop or node runs) and ranks below a control loop that sends
actions.
"""
from __future__ import annotations

import ast
import re

from leapp_codemod.knowledge.vocab import OUTPUT_ACTION_WORDS, REPRESENTATION_WORDS

REPRESENTATION_PENALTY = 2


def _words(name: str) -> set[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return {w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w}


def _bound_names(stmt: ast.stmt) -> list[str]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
        stmt, (ast.AnnAssign, ast.AugAssign)) else []
    out = []
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                out.append(node.id)
            elif isinstance(node, ast.Attribute):
                out.append(node.attr)
    return out


def representation_output(fn_node: ast.AST, start: int, end: int, model: str) -> str | None:
    """The name the range's model call binds when it names a representation and no statement of the range
    binds an action-like name; else None."""
    stmts = [s for s in ast.walk(fn_node) if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign))
             and start <= s.lineno <= end]
    bound = [name for s in stmts for name in _bound_names(s)]
    if any(_words(name) & OUTPUT_ACTION_WORDS for name in bound):
        return None
    for stmt in stmts:
        calls = [n for n in ast.walk(stmt) if isinstance(n, ast.Call)]
        if any(ast.unparse(c.func) == model or ast.unparse(c.func).endswith(f".{model}") for c in calls):
            named = [name for name in _bound_names(stmt) if _words(name) & REPRESENTATION_WORDS]
            if named:
                return named[0]
    return None


def representation_at(caller_node: ast.AST, line: int) -> str | None:
    """The representation-like name the statement calling a candidate at `line` binds (`scene_latent =
    vae(image)`), when it binds no action-like name; else None."""
    stmt = _statement_at(caller_node, line)
    if not isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return None
    names = _bound_names(stmt)
    if any(_words(name) & OUTPUT_ACTION_WORDS for name in names):
        return None
    named = [name for name in names if _words(name) & REPRESENTATION_WORDS]
    return named[0] if named else None


def _statement_at(node: ast.AST, line: int) -> ast.stmt | None:
    """The innermost statement of `node`'s blocks that spans `line` (descending only into blocks that do)."""
    found = None
    blocks = [getattr(node, "body", None) or []]
    while blocks:
        block = blocks.pop()
        for stmt in block if isinstance(block, list) else ():
            if isinstance(stmt, ast.stmt) and stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
                found = stmt
                blocks = [getattr(stmt, field, None) or [] for field in ("body", "orelse", "finalbody")]
                blocks += [handler.body for handler in getattr(stmt, "handlers", None) or ()]
                blocks += [case.body for case in getattr(stmt, "cases", None) or ()]
                break
    return found
