"""What names a scope binds and how: the statements, parameters, `global`/`nonlocal` declarations, imports and
module constants an inline range's classification reads (`analysis.inline.range.classify`)."""
from __future__ import annotations

import ast

from leapp_codemod.source.parse import is_literal

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

def scope_statements(scope: ast.AST) -> list[ast.stmt]:
    return list(scope.body)


def imported_only(scope: ast.AST) -> set[str]:
    """Names the enclosing function binds only by `import` statements (`import cv2`, `from m import f` in its
    body): looked up as the module's imports (the index keeps a function's imports), not inputs of the range."""
    imported: set[str] = set()
    for node in ast.walk(scope) if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else ():
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
    assigned = {n.id for n in ast.walk(scope) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} \
        if imported else set()
    return imported - assigned - params(scope)


def params(scope: ast.AST) -> set[str]:
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    args = scope.args
    out = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    return out | {a.arg for a in (args.vararg, args.kwarg) if a is not None}


def self_param(scope: ast.AST) -> str | None:
    args = scope.args
    positional = [*args.posonlyargs, *args.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in scope.decorator_list)
    return positional[0].arg if positional and not static else None


def declared_global(scope: ast.AST) -> set[str]:
    out: set[str] = set()
    stack = list(getattr(scope, "body", []))
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            out |= set(n.names)
        if not isinstance(n, _SCOPES):
            stack.extend(ast.iter_child_nodes(n))
    return out


def fixed_globals(tree: ast.Module) -> set[str]:
    """Module names only ever bound to literals or by def/class/import statements."""
    fixed, other = set(), set()
    for stmt in ast.walk(tree):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            fixed.add(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            fixed |= {a.asname or a.name.split(".")[0] for a in stmt.names}
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With, ast.NamedExpr)):
            literal = isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None and is_literal(stmt.value)
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None) or stmt]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            (fixed if literal else other).update(names)
    return fixed - other
