"""Does a module-level helper only read an argument (`_extract(self.table, t, shape)`)?

An attribute handed to a helper counts as mutated unless the helper provably leaves it alone: the helper stores
into nothing (no `x[i] = v`, no `x.a = v`), calls no method that changes its receiver (`append`, `fill_`, any
in-place `_` method), and hands the argument only to library functions that do not write their arguments
(`torch.from_numpy(arr)`, `np.cumsum(arr)`; not `np.copyto`, not with `out=`) or to builtins. A lookup table or a
noise schedule built in `__init__` and only read this way stays a constant of the model, not pipeline state.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.knowledge.vocab import ARGUMENT_WRITERS, CONTAINER_MUTATORS, INPLACE_EXCEPTIONS


def reads_only(fn: FunctionInfo | None, position: int, imports: dict[str, str], name: str = "") -> bool:
    """Does `fn` (the module's function `name`, None when the module defines none), given an object as its
    positional argument `position`, only read it? A builtin that only reads (`len`, `float`) does."""
    if fn is None and name in BUILTIN_READERS and name not in imports:
        return True
    if fn is None or fn.is_method or position >= len(fn.positional_params) or fn.node.args.vararg is not None:
        return False
    param = fn.positional_params[position]
    for node in fn.nodes:
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            return False
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Lambda, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(node, ast.Name) and node.id == param and isinstance(node.ctx, ast.Store):
            return False
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and (func.attr in CONTAINER_MUTATORS or func.attr in ARGUMENT_WRITERS
                                                or func.attr.endswith("_") and not func.attr.endswith("__")
                                                and func.attr not in INPLACE_EXCEPTIONS):
            return False
        if any(k.arg == "out" for k in node.keywords):
            return False
        handed = any(isinstance(a, ast.Name) and a.id == param
                     for a in [*node.args, *(k.value for k in node.keywords)])
        if handed and not (_library_call(func, imports) or isinstance(func, ast.Name) and func.id in BUILTIN_READERS):
            return False
    return True


BUILTIN_READERS = frozenset({"len", "float", "int", "bool", "min", "max", "sum", "abs", "isinstance", "tuple",
                              "list", "sorted", "print", "repr", "str", "type", "id", "hash"})


def _library_call(func: ast.expr, imports: dict[str, str]) -> bool:
    """`th.from_numpy`, `np.linalg.norm`: a function of an imported module (not a project object's method)."""
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(func, ast.Attribute) and isinstance(root, ast.Name) and root.id in imports
