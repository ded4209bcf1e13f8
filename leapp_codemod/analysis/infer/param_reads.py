"""Reads of a parameter that still hold what the callers passed.

The data-flow environment is one set of names per function: a parameter that the function later rebinds to
pipeline data (`std = torch.ones_like(mu) * std`) is data everywhere in it, also where it is tested before that
binding (`if std > 0:`). When no caller passes pipeline data for the parameter (every pipeline call passes a
setting such as `self.cfg.min_std`, a constant, or leaves the default), a read that no store of the name can
reach still holds the caller's setting: it decides nothing about the data.
"""
from __future__ import annotations

import ast

from leapp_codemod.knowledge.vocab import CONTAINER_MUTATORS

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def holds_callers_setting(ctx, name: ast.Name) -> bool:
    """Is the read `name` a parameter of `ctx.fn` that the pipeline's calls of it (one at least: the entry has
    none) never pass pipeline data (nor a run-time shape) for, read where no store of the name (a rebinding, an
    item or field write, a container fill) can have run before: one earlier in the function, or anywhere in a
    loop around the read?"""
    fn = ctx.fn
    line = getattr(name, "lineno", None)
    if line is None or name.id not in fn.params or name.id in fn.outer_values:
        return False
    facts = ctx.facts
    if not facts.callers.get(fn.id):
        return False   # no pipeline call seen (the entry, a callback): what it receives is not known
    if name.id in facts.data_params.get(fn.id, ()) or name.id in facts.shape_params.get(fn.id, ()):
        return False
    index = _stores(fn)
    if name.id in index["nested_params"]:
        return False   # a nested function's parameter of the same name: another value
    loops = [span for span in index["loops"] if span[0] <= line <= span[1]]
    return not any(at <= line or any(lo <= at <= hi for lo, hi in loops) for at in index["stores"].get(name.id, ()))


def _stores(fn) -> dict:
    """Per function, once: name -> lines that can change what the name holds; the line spans of its loops; the
    parameter names of the functions and lambdas defined inside it."""
    found = fn.walks.get("param_read_stores")
    if found is not None:
        return found
    stores: dict[str, list[int]] = {}
    loops: list[tuple[int, int]] = []
    nested: set[str] = set()
    for node in fn.nodes:
        root = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = node
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and (node.func.attr in CONTAINER_MUTATORS or node.func.attr.endswith("_")):
            root = node.func.value   # `buf.append(x)`, `std.mul_(k)`: filled or changed in place
        while isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        if isinstance(root, ast.Name):
            stores.setdefault(root.id, []).append(node.lineno)
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            loops.append((node.lineno, node.end_lineno or node.lineno))
        if isinstance(node, _NESTED) and node is not fn.node:
            args = node.args
            nested |= {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    found = fn.walks["param_read_stores"] = {"stores": stores, "loops": loops, "nested_params": nested}
    return found
