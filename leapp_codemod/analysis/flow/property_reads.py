"""Reading a `@property` runs its getter: the getters an attribute read reaches, on `self` (the class of the
function) or on an object of a project class the scan knows (`state.next_obs` with `state` a `Rollout`)."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.walk import is_property, is_self_attr


def _property_names(project) -> frozenset[str]:
    """Names of every `@property` getter of the project's classes (asked once per project: most reads are not)."""
    key = ("property names",)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = frozenset(
            name for module in project.modules.values() for cls in module.classes.values()
            for name, method in cls.methods.items() if is_property(method))
    return found


def property_getters(ctx: FunctionContext, node: ast.AST) -> list[FunctionInfo]:
    if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)):
        return []
    if is_self_attr(node, ctx.self_name):
        classes = [ctx.cls] if ctx.cls is not None else []
    elif node.attr in _property_names(ctx.project):
        classes = [c for c in (ctx.class_for_type(t) for t in ctx.types_of(node.value)) if c is not None]
    else:
        return []
    getters = (ctx.project.find_method(cls, node.attr) for cls in classes)
    return [g for g in getters if g is not None and is_property(g)]
