"""Names that hold one literal wherever they are bound: constants, however often they are bound.

`B = 1` at the top of every pass of a loop, `horizon = 8` before the loop and again inside one of its branches,
`scale = -0.5` in a script's loop: the name is rebound, but always to the same number, so it is the same on
every iteration. What a range computes from it is right as a constant of the export. A name is such a constant
when every binding of it in its scope (nested functions and classes are their own scopes) is a plain
assignment of a literal (a number, a string, `None`, a bool, a tuple of those, a sign in front of a number), all
equal; any other binding (`+=`, a loop target, `with ... as`, `:=`, an unpacking, an import, a `del`, a
`global` declaration that lets other code rebind it) makes it a value that may change.
"""
from __future__ import annotations

import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def fixed_literal(scope: ast.AST, name: str) -> bool:
    """Is every binding of `name` in `scope` an assignment of the same literal (and is there one)?"""
    seen: list[object] = []
    accepted: set[int] = set()   # the targets of the literal assignments
    for node in _own_nodes(scope):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = literal_value(node.value)
            if value is _NOT_LITERAL:
                return False
            seen.append(value)
            accepted |= {id(t) for t in node.targets}
            continue
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and id(node) not in accepted:
            return False   # `B += 1`, `for B in ...`, `a, B = ...`, `with f() as B`, `del B`
        if isinstance(node, ast.NamedExpr) and node.target.id == name:
            return False
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (a.asname or a.name.partition(".")[0]) == name for a in node.names):
            return False
    return bool(seen) and all(_same(v, seen[0]) for v in seen)


_NOT_LITERAL = object()


def literal_value(expr: ast.expr) -> object:
    """The value of a literal (`1`, `-0.5`, `"mode"`, `(1, 2)`, `None`), or `_NOT_LITERAL`."""
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)) \
            and isinstance(expr.operand, ast.Constant) and isinstance(expr.operand.value, (int, float)) \
            and not isinstance(expr.operand.value, bool):
        return -expr.operand.value if isinstance(expr.op, ast.USub) else expr.operand.value
    if isinstance(expr, ast.Tuple):
        items = tuple(literal_value(e) for e in expr.elts)
        return _NOT_LITERAL if any(i is _NOT_LITERAL for i in items) else items
    return _NOT_LITERAL


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


def _own_nodes(scope: ast.AST):
    """The nodes of `scope`'s own code (not those of functions, lambdas or classes defined in it)."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            if not isinstance(node, ast.Lambda):
                yield ast.Name(id=node.name, ctx=ast.Store())   # `def B(): ...` binds `B` in this scope
            continue
        stack.extend(ast.iter_child_nodes(node))
