"""A call of a bare name nothing the scan sees binds (`shade(x)` in a module whose only source of `shade` is a
`from somewhere import *` the scan cannot read): the code it runs is unknown, and the scan says so rather than
treating the call as a builtin's."""
from __future__ import annotations

import ast
import builtins


def _bound_names(tree: ast.Module) -> frozenset[str]:
    """Every name the module binds anywhere: assignments, loop and `with` targets, parameters, definitions,
    imports (also inside functions), `except ... as`, `global`/`nonlocal`."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, ast.MatchAs) and node.name:
            out.add(node.name)
    return frozenset(out)


def unbound_name_reason(ctx, name: str) -> str | None:
    """Why the call of `name` is not followed, when neither the module nor Python binds it; None when one does."""
    module = ctx.module
    key = ("bound names", module.name)
    bound = ctx.project.memo.get(key)
    if bound is None:
        bound = ctx.project.memo[key] = _bound_names(module.tree)
    if hasattr(builtins, name) or name in bound or name in module.globals or name in module.imports:
        return None
    stars = [s for s in module.star_imports if ctx.project.module_named(s) is None]
    if stars:
        return (f"`{name}` is bound by no definition or import the scan sees; it may come from "
                f"{', '.join(f'`from {s} import *`' for s in stars)}, which the scan cannot read")
    return f"`{name}` is bound by no definition or import the scan sees"
