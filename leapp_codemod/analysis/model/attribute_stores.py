"""Stores into an attribute from outside the object's own methods (`policy.update = True` in a driver), which
make the attribute no setting: what the constructor stored may change between the step's calls."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import ClassInfo


def attribute_rebound(project, cls: ClassInfo, attr: str) -> bool:
    """Anything outside construction that rebinds `<obj>.<attr>` (`policy.update = True` from a driver), where
    `obj` may be an object of `cls`: not a name its function binds only to other project classes' objects
    (`node = OtherNode(...)` in a second version of the node)."""
    key = ("attr_stores",)
    stores = project.memo.get(key)
    if stores is None:
        stores = project.memo[key] = _attribute_stores(project)
    found = stores.get(attr, ())
    if not found or None in found:
        return bool(found)   # no store at all, or one into an object of any class
    from leapp_codemod.analysis.model.resolve_types import subclasses   # resolve_types reads the settings
    family = {k.id for k in (*project.mro(cls), *subclasses(project, cls))}
    return any(built & family for built in found)


def _attribute_stores(project) -> dict[str, list[frozenset[str] | None]]:
    """attr -> for each store `<obj>.<attr> = ...` outside `self`: the project classes `obj` is built as (a name
    its scope binds only to constructions of project classes, and None), else None (any object)."""
    stores: dict[str, list[frozenset[str] | None]] = {}
    for module in list(project.modules.values()):
        if project.is_library(module.name):
            continue
        scopes = [module.tree, *(f.node for f in module.functions.values())]
        for scope in scopes:
            built = None   # found only for a scope that stores into another object's attribute through a name
            for node in _own_nodes(scope):
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        for elt in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                            if isinstance(elt, ast.Attribute) and not (isinstance(elt.value, ast.Name)
                                                                       and elt.value.id == "self"):
                                if not isinstance(elt.value, ast.Name):
                                    stores.setdefault(elt.attr, []).append(None)
                                    continue
                                if built is None:
                                    built = _built_names(project, module, scope)
                                stores.setdefault(elt.attr, []).append(built.get(elt.value.id))
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                        and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                    stores.setdefault(str(node.args[1].value), []).append(None)
    return stores


def _own_nodes(scope: ast.AST):
    """The nodes of a module or function, not those of the functions and classes defined in it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _built_names(project, module, scope: ast.AST) -> dict[str, frozenset[str]]:
    """Name -> the project classes it is built as, for each name the scope binds only to `None` and to
    constructions of project classes (at least one)."""
    values: dict[str, list[ast.expr]] = {}
    params = {a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)} \
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        else set()
    for node in _own_nodes(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr, ast.AugAssign,
                               ast.AnnAssign)):
            for name in (n.id for n in ast.walk(getattr(node, "target", None) or node) if isinstance(n, ast.Name)
                         and isinstance(n.ctx, ast.Store)):
                values.setdefault(name, []).append(None)   # bound some other way: any object
    out: dict[str, frozenset[str]] = {}
    for name, bound in values.items():
        classes: set[str] = set()
        for value in bound:
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            cls = project.class_of(project.qualify(value.func, module)) if isinstance(value, ast.Call) else None
            if cls is None:
                break
            classes.add(cls.id)
        else:
            if classes and name not in params:
                out[name] = frozenset(classes)
    return out
