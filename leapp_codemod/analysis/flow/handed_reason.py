"""Why a parameter's class is unknown when the analysis reached no caller of its function: the entry's own
parameters and those of the function an inline range is cut from. Said in the words of the code that binds
the value (`handed_values`), so the user sees which name to `--bind` and where it is made."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.model.function_values import range_scope
from leapp_codemod.analysis.model.handed import Handed, handed_values
from leapp_codemod.analysis.model.libraries import in_project, library_available
from leapp_codemod.knowledge.libraries import RUNTIME_FACTORIES

MAX_TEXT = 60
_RESULT_UNKNOWN = ", whose result's class is unknown"


def handed_reason(ctx: FunctionContext, name: str) -> str | None:
    """`policy` is a parameter of run_mujoco (the function lines 208-242 are cut from), bound at
    sim.py:316 to `load_policy(path)`, whose class is unknown; None when `name` is no parameter of either."""
    scope = range_scope(ctx.module, ctx.fn)
    if scope is not None and name in scope.params:
        fn = scope
        where = f"`{name}` is a parameter of {fn.qualname}, the function lines {_lines(ctx.fn.qualname)} are cut from"
    elif scope is None and name in ctx.fn.params:
        fn, where = ctx.fn, f"`{name}` is a parameter of {ctx.fn.qualname}"
    else:
        return None
    handed = handed_values(ctx.project, fn, name)
    if not handed:
        return f"{where}; no call of {fn.qualname} in the scanned code passes it"
    unknown = next((h for h in handed if _unknown(ctx, h) is not None), handed[0])
    via = f" (passed on by {', '.join(unknown.through)})" if unknown.through else ""
    return (f"{where}{via}; the value is bound at {unknown.module.path}:{unknown.line} to `{_short(unknown.value)}`"
            f"{_unknown(ctx, unknown) or ''}")


def _unknown(ctx: FunctionContext, handed: Handed) -> str | None:
    """Why the handed value's class is unknown, or None when it is a project class or a library object."""
    value = handed.value
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Call):   # `model, norm = load(...)`
        inner = _unknown(ctx, Handed(value.value, handed.module, handed.line))
        if inner is None:
            return None
        return ", an item of the call's result, whose class is unknown" if inner == _RESULT_UNKNOWN \
            else f", an item of the call's result{inner}"
    if not isinstance(value, ast.Call):
        return ", whose class is unknown"
    name = ctx.project.qualify(value.func, handed.module)
    if not name:
        return _RESULT_UNKNOWN
    dotted = ctx.project.external_name(name)
    if dotted in RUNTIME_FACTORIES:
        return f", an object `{dotted}` chooses when the program runs"
    if ctx.project.class_of(name) is not None:
        return None
    if not in_project(ctx.project, name):
        return None if library_available(ctx.project, name) else \
            ", from a module neither in the scanned code nor installed in this environment"
    return _RESULT_UNKNOWN


def _lines(qualname: str) -> str:
    return qualname.rpartition("<lines ")[2].rstrip(">")


def _short(expr: ast.expr) -> str:
    text = ast.unparse(expr)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 3] + "..."
