"""Classes a class-level loader call builds: `PPO.load(path)`, `Policy.from_pretrained(d)`, `ALGOS[k].restore(p)`.

A classmethod that builds an instance of the class it is called on (`resolve_types.builds_own_class`) makes an
object of that class, whether the class is the project's or a followed library's. The class may be named directly
(`SAC`, `sb3.SAC`), through an alias bound in the same scope (`Algo = SAC`), a table of classes (`ALGOS[name]`
with `ALGOS = {"ppo": PPO, "sac": SAC}`), `getattr` on a module with a constant name (`getattr(sb3, "SAC")`, or a
module constant holding it), either arm of a conditional, or a local bound to any of these. Syntactic: used by
the handed-value types (`handed.py`, `returned_classes.py`) and by the function-level type questions.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.libraries import in_project
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.resolve_types import builds_own_class
from leapp_codemod.analysis.model.script_bindings import module_bindings

MAX_HOPS = 3   # names followed back to the class they are bound to


def loader_classes(project: Project, func: ast.expr, module: ModuleIndex, scope: FunctionInfo | None,
                   hops: int = 0) -> set[str]:
    """`X.load` (the callee of a call): the classes X names whose `load` builds an instance of the class it is
    called on; empty when `func` is no such attribute or X names no class."""
    if not isinstance(func, ast.Attribute):
        return set()
    out = set()
    for cls in named_classes(project, func.value, module, scope, hops):
        method = project.find_method(cls, func.attr)
        if method is not None and builds_own_class(method, project.modules[method.module]):
            out.add(cls.id)
    return out


def named_classes(project: Project, expr: ast.expr, module: ModuleIndex, scope: FunctionInfo | None,
                  hops: int = 0) -> list[ClassInfo]:
    """The classes a class-valued expression may name (see the module's docstring)."""
    if hops > MAX_HOPS:
        return []
    if isinstance(expr, (ast.Name, ast.Attribute)):
        name = project.qualify(expr, module)
        cls = project.class_of(name) if name and _may_name_class(project, name) else None
        if cls is not None:
            return [cls]
    if isinstance(expr, ast.IfExp):   # `SAC if continuous else DQN`
        return _unique(named_classes(project, expr.body, module, scope, hops)
                       + named_classes(project, expr.orelse, module, scope, hops))
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "getattr" \
            and len(expr.args) >= 2:
        return _module_attribute(project, expr.args[0], expr.args[1], module)
    if isinstance(expr, ast.Subscript) and not isinstance(expr.slice, ast.Slice):   # `ALGOS[name]`
        table = bound_value(project, expr.value, module, scope) if isinstance(expr.value, ast.Name) else None
        if isinstance(table, ast.Dict):
            return _unique([c for v in table.values if v is not None
                            for c in named_classes(project, v, module, scope, hops + 1)])
        return []
    if isinstance(expr, ast.Name):
        bound = bound_value(project, expr, module, scope)
        return named_classes(project, bound, module, scope, hops + 1) if bound is not None else []
    return []


def bound_value(project: Project, name: ast.Name, module: ModuleIndex, scope: FunctionInfo | None) -> ast.expr | None:
    """The last value `name` is bound to before it is read: in `scope` (a local), else at the module's level
    (its own statements, `if __name__ == "__main__":` blocks included)."""
    if scope is not None and name.id not in scope.params:
        values = list(scope.assigned(name.id))
        before = [v for v in values if v.lineno < name.lineno]
        if before:
            return before[-1]
        if values:
            return None
    values = list(module_bindings(project, module).get(name.id, ()))
    if scope is None:   # a script's statements run in order
        values = [v for v in values if v.lineno < name.lineno]
        return values[-1] if values else None
    return values[0] if len(values) == 1 else None   # a module global read in a function: bound once


def _module_attribute(project: Project, holder: ast.expr, key: ast.expr, module: ModuleIndex) -> list[ClassInfo]:
    """`getattr(sb3, "SAC")`, or with a module constant `ALGO = "SAC"`: the class the module holds."""
    if isinstance(key, ast.Name):
        key = module.globals.get(key.id, key)
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return []
    base = project.qualify(holder, module) if isinstance(holder, (ast.Name, ast.Attribute)) else None
    cls = project.class_of(f"{base}.{key.value}") if base else None
    return [cls] if cls is not None else []


def _may_name_class(project: Project, name: str) -> bool:
    """A project name, or a library name spelled like a class (`stable_baselines3.PPO`): looking up a library's
    lower-case names (`gym.make`, `torch.load`) would index modules only to find functions and modules."""
    return in_project(project, name) or name.rpartition(".")[2][:1].isupper()


def _unique(classes: list[ClassInfo]) -> list[ClassInfo]:
    return list({c.id: c for c in classes}.values())
