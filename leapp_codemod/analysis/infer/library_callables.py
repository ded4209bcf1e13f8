"""Which library callables a call really runs, read from where the called object was built: the call itself
(`T.ToPILImage()(frame)`), a local, a module global or an attribute bound to a library object (`self.tf =
T.Compose([...])`), a project helper that returns one (`make_tf()(frame)`), the items of a transform pipeline
(`Compose([ToPILImage(), Resize(...)])`, also a list spliced from a parameter's default). Known library facts
(knowledge/library_internals.py) are then matched against these names, so what is known about a library is
reported whether or not it is installed (nothing here reads or imports the library)."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.local_values import returned_builds
from leapp_codemod.analysis.model.script_bindings import module_bindings
from leapp_codemod.analysis.model.walk import is_self_attr, self_name_of
from leapp_codemod.knowledge.library_internals import PIPELINE_BUILDERS, key_of

MAX_DEPTH = 5


@dataclass(frozen=True)
class Built:
    """A library callable the call runs: its dotted name and the call that built it (or is it)."""

    name: str
    call: ast.Call
    path: str          # display path of the module the building call is in

    @property
    def where(self) -> str:
        return f"{self.path}:{self.call.lineno}"


@dataclass(frozen=True)
class _Scope:
    module: ModuleIndex
    fn: FunctionInfo | None
    cls: ClassInfo | None


def library_callables(func: ast.expr, ctx) -> list[Built]:
    """The library callables calling `func` runs, in source order, deduplicated. Empty when the called object
    was not built by a library call the scan can see."""
    scope = _Scope(ctx.module, ctx.fn, ctx.cls)
    found = _builds(func, scope, ctx, 0, top=True)
    return list({(b.name, id(b.call)): b for b in found}.values())


def _library_name(call: ast.Call, scope: _Scope, project) -> str | None:
    """The dotted name of a library callable `call` calls directly (None for project code and unknown names)."""
    qualified = project.qualify(call.func, scope.module)
    if qualified is None or project.lookup(qualified) is not None:
        return None
    if isinstance(call.func, ast.Name) and scope.fn is not None and call.func.id in scope.fn.params:
        return None
    name = project.external_name(qualified)
    root = name.split(".", 1)[0]
    if project.module_named(root) is not None and not project.is_library(root):
        return None   # a project module's name the lookup could not settle
    return name


def _builds(expr: ast.expr, scope: _Scope, ctx, depth: int, top: bool = False) -> list[Built]:
    if depth > MAX_DEPTH:
        return []
    project = ctx.project
    if isinstance(expr, ast.Call):
        name = _library_name(expr, scope, project)
        if name is not None:
            out = [Built(name, expr, scope.module.path)]
            if key_of(name) in PIPELINE_BUILDERS and expr.args:
                out += _items(expr.args[0], scope, ctx, depth + 1)
            return out
        return [b for callee, value in _returns(expr, scope, ctx, top)
                for b in _builds(value, _Scope(project.modules[callee.module], callee,
                                               _class_of(callee, project)), ctx, depth + 1)]
    return [b for value, where in _values(expr, scope, project) for b in _builds(value, where, ctx, depth + 1)]


def _items(expr: ast.expr, scope: _Scope, ctx, depth: int) -> list[Built]:
    """The callables a pipeline's list holds: list and tuple displays, `a + b` of them, names bound to them."""
    if isinstance(expr, (ast.List, ast.Tuple)):
        return [b for elt in expr.elts for b in (_items(elt.value, scope, ctx, depth) if isinstance(elt, ast.Starred)
                                                 else _builds(elt, scope, ctx, depth + 1))]
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _items(expr.left, scope, ctx, depth) + _items(expr.right, scope, ctx, depth)
    if isinstance(expr, ast.Name) and depth <= MAX_DEPTH:
        return [b for value, where in _values(expr, scope, ctx.project) for b in _items(value, where, ctx, depth + 1)]
    return []


def _values(expr: ast.expr, scope: _Scope, project) -> list[tuple[ast.expr, _Scope]]:
    """What a name or a `self` attribute was bound to, each with the scope its names are read in."""
    if isinstance(expr, ast.Name):
        if scope.fn is not None:
            bound = scope.fn.assigned(expr.id)
            if bound:
                return [(v, scope) for v in bound]
            default = _default(scope.fn, expr.id)
            if default is not None:
                return [(default, scope)]
            if expr.id in scope.fn.params:
                return []
        outer = _Scope(scope.module, None, None)
        return [(v, outer) for v in module_bindings(project, scope.module).get(expr.id, ())]
    if isinstance(expr, ast.Attribute) and scope.fn is not None and scope.cls is not None \
            and is_self_attr(expr, self_name_of(scope.fn)):
        return [(value, _Scope(project.modules[klass.module], klass.methods.get(method), klass))
                for klass in project.mro(scope.cls) if klass.module in project.modules
                for method, value in klass.attr_values.get(expr.attr, ())]
    return []


def _default(fn: FunctionInfo, name: str) -> ast.expr | None:
    """The default value of parameter `name` (`def make_tf(extra=[])`), for a list spliced into a pipeline."""
    args = fn.node.args
    positional = [*args.posonlyargs, *args.args]
    for param, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        if param.arg == name:
            return default
    for param, default in zip(args.kwonlyargs, args.kw_defaults):
        if param.arg == name:
            return default
    return None


def _returns(call: ast.Call, scope: _Scope, ctx, top: bool) -> list[tuple[FunctionInfo, ast.expr]]:
    """The values the project functions `call` may run return (not a constructor: an object built from a project
    class is project code the scan follows itself)."""
    project = ctx.project
    if top:
        callees = ctx.resolve_call(call)
    else:
        qualified = project.qualify(call.func, scope.module)
        found = project.lookup(qualified) if qualified else None
        if found is None and isinstance(call.func, ast.Attribute) and scope.cls is not None and scope.fn is not None \
                and isinstance(call.func.value, ast.Name) and call.func.value.id == self_name_of(scope.fn):
            found = project.find_method(scope.cls, call.func.attr)
        callees = [found] if isinstance(found, FunctionInfo) else []
    return [(callee, value) for callee in callees if callee.name != "__init__" and callee.module in project.modules
            for value in returned_builds(project, callee)]


def _class_of(fn: FunctionInfo, project) -> ClassInfo | None:
    if fn.class_name is None:
        return None
    return project.modules[fn.module].classes.get(fn.class_name)
