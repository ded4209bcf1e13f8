"""Order in the output slice (`relevance`): a fill of a plain local counts only when an output reads the local
after it (later in the code, or in a loop around both). Statements are `relevance._Stmt`s."""
from __future__ import annotations

import ast


def fills_needed(s, needed: set[str], ordered: dict[str, frozenset[str]], stmts: list, out: set[int]) -> bool:
    """Does `s` fill an object an output needs: one it fills before an output reads it or a name sharing it (for
    an ordered local: `ordered` maps it to those names), or at all (any other name)?"""
    names = s.fills & needed
    return any(name not in ordered or _read_after(s, ordered[name], stmts, out) for name in names)


def _read_after(s, names: frozenset[str], stmts: list, out: set[int]) -> bool:
    """Does an output statement read one of `names` after `s` runs: later in the code, or in a loop around both?"""
    loops = {id(a.node) for a in _ancestors(s) if isinstance(a.node, _LOOPS)}
    end = s.node.end_lineno or s.node.lineno
    for t in stmts:
        if t is s or id(t.node) not in out or not (names & t.reads or any(names & r for r in t.reads_for.values())):
            continue
        if t.node.lineno > end or id(t.node) in loops or any(id(a.node) in loops for a in _ancestors(t)):
            return True
    return False


def _ancestors(s) -> list:
    found = []
    while s.parent is not None:
        s = s.parent
        found.append(s)
    return found


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
