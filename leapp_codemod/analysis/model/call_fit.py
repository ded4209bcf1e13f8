"""Whether a function can accept a call's arguments: a candidate receiver that would raise `TypeError` on the
call (a keyword it does not take, more positional arguments than it has) is not what the call runs."""
from __future__ import annotations

import ast

_BINDERS = frozenset({"staticmethod"})


def _decorators(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else ""
            for d in fn.decorator_list}


def accepts(fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, bound: bool) -> bool:
    """False only when `call` surely cannot bind to `fn` (an unknown keyword, too many positional arguments);
    `*args`/`**kwargs` in the call, or in `fn`, keep it possible. `bound`: the first parameter is the receiver
    (a method, `__init__` of a constructor call, `__call__`)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return True
    args = fn.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    if bound and positional and not (_decorators(fn) & _BINDERS):
        positional = positional[1:]
    if args.vararg is None and len(call.args) > len(positional):
        return False
    if args.kwarg is None:
        named = set(positional) - {a.arg for a in args.posonlyargs} | {a.arg for a in args.kwonlyargs}
        if any(k.arg not in named for k in call.keywords):
            return False
    return True


def fitting(candidates: list, call: ast.Call) -> list:
    """The candidates (`FunctionInfo`) that can accept `call`, when at least one can and several were possible;
    else all of them (the call is then no evidence either way)."""
    if len(candidates) < 2:
        return candidates
    fit = [fn for fn in candidates if not isinstance(fn.node, (ast.FunctionDef, ast.AsyncFunctionDef))
           or accepts(fn.node, call, bound=fn.class_name is not None)]
    return fit or candidates
