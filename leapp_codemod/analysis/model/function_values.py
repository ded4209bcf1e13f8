"""Functions made while the program runs, and where a call sits: closures (`def` inside a function), lambdas,
the function enclosing a call, whether a function's name is unique in the project, and the project functions
stored under a field name."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.project import Project


def only_definition(project: Project, fn: FunctionInfo) -> bool:
    """No other project function or method has `fn`'s name (outside `fn`'s own class and its subclasses)."""
    key = ("definitions", fn.name)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = [f for m in list(project.modules.values()) if not project.is_library(m.name)
                                     for f in m.functions.values() if f.name == fn.name]
    if fn.class_name is None:
        return all(f is fn for f in found)
    owner = project.modules[fn.module].classes.get(fn.class_name)
    for other in found:
        cls = project.modules[other.module].classes.get(other.class_name or "")
        if other is not fn and (cls is None or owner not in project.mro(cls)):
            return False
    return True


def enclosing_function(project: Project, module: ModuleIndex, node: ast.AST) -> FunctionInfo | None:
    """The innermost indexed function of `module` whose body holds `node` (None at module level)."""
    key = ("enclosing", module.name)
    table = project.memo.get(key)
    if table is None:
        table = project.memo[key] = {}
        for fn in sorted(module.functions.values(), key=lambda f: f.qualname.count(".")):
            for inner in fn.nodes:   # deeper functions come later and win
                table[id(inner)] = fn
    return table.get(id(node))


def nested_function(project: Project, fn: FunctionInfo, name: str) -> FunctionInfo | None:
    """The function `name` defined directly inside `fn` (a closure), as `module:fn.<locals>.name`."""
    key = ("nested", fn.id, name)
    if key not in project.memo:
        found = None
        for node in ast.walk(fn.node):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not fn.node and node.name == name:
                qualname = f"{fn.qualname}.<locals>.{name}"
                found = FunctionInfo(f"{fn.module}:{qualname}", fn.module, qualname, node, None, fn.path)
                break
        project.memo[key] = found
    return project.memo[key]


def range_scope(module: ModuleIndex, fn: FunctionInfo, project: Project | None = None) -> FunctionInfo | None:
    """The function an inline range (`run.<lines 20-31>`) was cut out of; None for other functions and
    for a range at module level. With `project`, also a closure's (`main.<locals>.step.<lines 3-5>`)."""
    scope, sep, _ = fn.qualname.rpartition("<lines ")
    if not sep or not scope:
        return None
    scope = scope.removesuffix(".")
    found = module.functions.get(scope)
    if found is None and project is not None:
        chain = scope_chain(project, module, scope)
        found = chain[-1] if chain else None
    return found


def scope_chain(project: Project, module: ModuleIndex, qualname: str) -> list[FunctionInfo]:
    """The functions `outer`, `outer.<locals>.inner`, ... down to `qualname` (`outer.<locals>.inner` or, as a
    range names its scope, `outer.inner`); shorter when one is not found."""
    names = qualname.replace(".<locals>.", ".").split(".")
    for known in range(len(names), 0, -1):
        outer = module.functions.get(".".join(names[:known]))
        if outer is not None:
            break
    else:
        return []
    chain = [outer]
    for part in names[known:]:
        inner = nested_function(project, chain[-1], part)
        if inner is None:
            break
        chain.append(inner)
    return chain


def enclosing_scopes(project: Project, module: ModuleIndex, fn: FunctionInfo) -> list[FunctionInfo]:
    """The functions whose locals a closure (or a range cut from one) reads, innermost first: for
    `main.<locals>.step`, `main`; for `main.<locals>.step.<lines 3-5>`, `step` then `main`."""
    if "<lines " in fn.qualname:
        qualname = fn.qualname.rpartition("<lines ")[0].removesuffix(".")
        chain = scope_chain(project, module, qualname) if qualname else []
    else:
        chain = scope_chain(project, module, fn.qualname)[:-1] if ".<locals>." in fn.qualname else []
    return list(reversed(chain))


def lambda_function(project: Project, module: ModuleIndex, outer: FunctionInfo | None,
                    lam: ast.Lambda) -> FunctionInfo:
    """A lambda as a function (`def <lambda>(args): return body`, at the lambda's lines) named after the
    function it is written in and its line: what calling the value it makes runs."""
    key = ("lambda", id(lam))
    if key not in project.memo:
        node = ast.FunctionDef(name="<lambda>", args=lam.args, body=[ast.Return(value=lam.body)],
                               decorator_list=[], returns=None, type_params=[])
        for made in (node, node.body[0]):
            ast.copy_location(made, lam)
        qualname = f"<lambda line {lam.lineno}>"
        qualname = f"{outer.qualname}.<locals>.{qualname}" if outer is not None else qualname
        path = outer.path if outer is not None else module.path
        project.memo[key] = FunctionInfo(f"{module.name}:{qualname}", module.name, qualname, node, None, path)
    return project.memo[key]


def field_stores(project: Project) -> dict[str, list[tuple[ast.expr, ModuleIndex]]]:
    """Field name -> function references stored under it anywhere in the project: keyword arguments
    (`ObsTerm(func=mdp.joint_pos_rel)`), class-body fields (`func = mdp.clip`) and attribute stores
    (`policy.on_step = smooth`). Only values naming a project function count."""
    key = ("field_stores", project.own_module_count())
    if key in project.memo:
        return project.memo[key]
    stores: dict[str, list[tuple[ast.expr, ModuleIndex]]] = {}

    def keep(field: str, value: ast.expr, module: ModuleIndex) -> None:
        if isinstance(value, (ast.Name, ast.Attribute)):
            name = project.qualify(value, module)
            if name and isinstance(project.lookup(name), FunctionInfo):
                stores.setdefault(field, []).append((value, module))

    for module in [m for m in project.modules.values() if not project.is_library(m.name)]:
        for node in module.nodes:
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg:
                        keep(kw.arg, kw.value, module)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute):
                        keep(target.attr, node.value, module)
            elif isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                        for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                            if isinstance(target, ast.Name):
                                keep(target.id, stmt.value, module)
    project.memo[key] = stores
    return stores
