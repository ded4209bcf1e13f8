"""A check whose other side only raises (`if bad: raise ValueError(...)`, `assert ok`): it rejects inputs and
computes nothing, so the side traced is the side every accepted input takes. One rule for the scan (a shape
guard is no finding), for `generate` (a tensor branch at such a check needs no replacement) and for `run` (it
restricts no domain)."""
from __future__ import annotations

import ast
from functools import lru_cache


def _raises_only(body: list[ast.stmt]) -> bool:
    """Statements that only raise, after at most building the error's text or reporting it (`msg = f"..."`,
    `log.error(msg)`, then `raise ValueError(msg)`)."""
    return bool(body) and isinstance(body[-1], (ast.Raise, ast.Assert)) \
        and all(isinstance(s, (ast.Raise, ast.Assert)) or _message(s) for s in body[:-1])


_REPORTS = frozenset({"print", "error", "warning", "warn", "critical", "exception", "info", "debug", "logerr",
                      "logwarn", "logfatal"})


def _message(stmt: ast.stmt) -> bool:
    """`msg = f"shape {q.shape} != ..."`, `print(msg)`, `log.error(...)`: text for the error about to be raised."""
    if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
        value = stmt.value
        return isinstance(value, ast.JoinedStr) or isinstance(value, ast.Constant) and isinstance(value.value, str) \
            or isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "format" \
            and isinstance(value.func.value, ast.Constant)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name in _REPORTS
    return False


def only_raises(node: ast.AST) -> bool:
    """An `assert`, or an `if` one of whose sides only raises (`if bad: raise ...` with or without an `else`)."""
    if isinstance(node, ast.Assert):
        return True
    return isinstance(node, ast.If) and (_raises_only(node.body) or _raises_only(node.orelse))


@lru_cache(maxsize=256)
def _tree(path: str) -> ast.Module | None:
    try:
        with open(path, "rb") as fh:
            return ast.parse(fh.read(), filename=path)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _test_span(node: ast.AST) -> tuple[int, int]:
    test = node.test
    return test.lineno, test.end_lineno or test.lineno


def guard_at(path: str, line: int) -> str:
    """The source of the check at `path:line` when that line is the condition of a check that only raises
    (`if (q < 0).any(): raise ...`), '' for any other line or an unreadable file."""
    tree = _tree(path)
    return guard_in(tree, line) if tree is not None else ""


def guard_in(tree: ast.Module, line: int) -> str:
    """`guard_at` on a parsed file."""
    inner = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.Assert, ast.IfExp)):
            first, last = _test_span(node)
            if first <= line <= last and (inner is None or node.test.lineno >= inner.test.lineno):
                inner = node
    if inner is None or not only_raises(inner):
        return ""
    if isinstance(inner, ast.Assert):
        return f"assert {ast.unparse(inner.test)}"
    side = inner.body if _raises_only(inner.body) else inner.orelse
    head = f"if {ast.unparse(inner.test)}" if side is inner.body else f"if {ast.unparse(inner.test)}: ... else"
    return f"{head}: {_shown(side[0])}"


def _shown(stmt: ast.stmt) -> str:
    """`raise ValueError(...)`, `assert ok`: the statement without its message."""
    if isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call):
        return f"raise {ast.unparse(stmt.exc.func)}(...)"
    if isinstance(stmt, ast.Assert):
        return f"assert {ast.unparse(stmt.test)}"
    return ast.unparse(stmt).splitlines()[0]
