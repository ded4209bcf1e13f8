"""What a function's locals and returns hold, as written: the assignments of each local name, the values a
function returns (a returned local replaced by the calls assigned to it), and the strings a name may hold
(`getattr(obj, name)` with the name a constant, an f-string, an enumerated loop, or a parameter every caller
passes a constant string)."""
from __future__ import annotations

import ast
import re

from leapp_codemod.analysis.model.index import FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.walk import self_returned

MAX_DEPTH = 6


def assignments(project: Project, fn: FunctionInfo) -> dict[str, list[tuple[ast.expr, str]]]:
    key = ("assignments", fn.id)
    if key not in project.memo:
        project.memo[key] = _assignments(fn)
    return project.memo[key]


def returned_values(project: Project, fn: FunctionInfo) -> list[ast.expr]:
    key = ("returns", fn.id)
    if key not in project.memo:
        project.memo[key] = [n.value for n in fn.nodes if isinstance(n, ast.Return) and n.value is not None]
    return project.memo[key]


def returned_picks(project: Project, call: ast.Call, module: ModuleIndex, pick) -> list | None:
    """What `pick(value, function, its module)` answers for every value the project function `call` runs
    returns (`build(cfg)` returning a class looked up by name), or None when the call runs no project function,
    it returns nothing, or some value gives no answer."""
    name = project.qualify(call.func, module)
    target = project.lookup(name) if name else None
    if not isinstance(target, FunctionInfo) or project.is_library(target.module):
        return None
    home = project.modules[target.module]
    picks = [pick(value, target, home) for value in returned_values(project, target)]
    return picks if picks and all(p is not None for p in picks) else None


def returned_builds(project: Project, fn: FunctionInfo) -> list[ast.expr]:
    """What `fn` returns, a returned local replaced by the calls assigned to it: `model = Model(cfg);
    model.load(path); return model` returns `Model(cfg)`."""
    key = ("returned_builds", fn.id)
    if key not in project.memo:
        assigned = _assignments(fn)
        out: list[ast.expr] = []
        for value in returned_values(project, fn):
            value = self_returned(value)   # `return model.eval()` returns `model`
            if isinstance(value, ast.Name) and value.id in assigned:
                out += [v for v, how in assigned[value.id] if how == "value" and isinstance(v, ast.Call)]
            else:
                out.append(value)
        project.memo[key] = out
    return project.memo[key]


def _assignments(fn: FunctionInfo) -> dict[str, list[tuple[ast.expr, str]]]:
    """Local name -> (value, how): 'value' for `x = v`, 'element'/'item' for `for x in v` / `for k, x in v.items()`."""
    out: dict[str, list[tuple[ast.expr, str]]] = {}
    for node in fn.nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append((node.value, "value"))
        elif isinstance(node, (ast.For, ast.comprehension)):
            target, iterable = node.target, node.iter
            if isinstance(target, ast.Name):
                out.setdefault(target.id, []).append((iterable, "element"))
            elif isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name):
                out.setdefault(target.elts[1].id, []).append((iterable, "item"))
                if isinstance(target.elts[0], ast.Name):
                    out.setdefault(target.elts[0].id, []).append((iterable, "key"))
    return out


def name_pattern(expr: ast.expr, where, ctx, depth: int) -> re.Pattern | None:
    """A regex of the strings an expression may hold: constants, f-strings, `+` and enumerated loops."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return re.compile(re.escape(expr.value))
    if isinstance(expr, ast.JoinedStr):
        parts = [re.escape(v.value) if isinstance(v, ast.Constant) else r"\w*" for v in expr.values]
        return re.compile("".join(parts))
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left = name_pattern(expr.left, where, ctx, depth)
        right = name_pattern(expr.right, where, ctx, depth)
        if left is None and right is None:
            return None
        return re.compile((left.pattern if left else r"\w*") + (right.pattern if right else r"\w*"))
    if isinstance(expr, ast.Name) and where.fn is not None and expr.id in where.fn.params \
            and expr.id not in assignments(ctx.project, where.fn):   # what every caller passes: constants
        passed = ctx.facts.param_constants.get(where.fn.id, {}).get(expr.id)
        if passed and all(isinstance(v, str) for v in passed):
            return re.compile("|".join(re.escape(v) for v in sorted(passed)))
        return None
    if isinstance(expr, ast.Name) and where.fn is not None and depth < MAX_DEPTH:
        options = []
        for value, how in assignments(ctx.project, where.fn).get(expr.id, ()):
            if how == "element" and isinstance(value, (ast.Tuple, ast.List, ast.Set)):
                options += [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            elif how == "value" and isinstance(value, ast.Constant) and isinstance(value.value, str):
                options.append(value.value)
            else:
                return None
        if options:
            return re.compile("|".join(re.escape(o) for o in options))
    return None


def global_value(project: Project, qualified: str, hops: int = 0) -> tuple[ast.expr, ModuleIndex] | None:
    """The value a module-level name is assigned, following re-exports (`pkg.ALGOS` -> `pkg.utils.ALGOS`)."""
    module_name, _, name = qualified.rpartition(".")
    module = project.modules.get(module_name)
    if module is None or hops > 8:
        return None
    if name in module.globals:
        return module.globals[name], module
    if name in module.imports:
        return global_value(project, module.imports[name], hops + 1)
    return None
