"""Attributes the project sets on a library object after building it.

`agent = PPO(models={}, ...)` then `agent.policy = Head()`; `runner.alg.actor = MyActor()`: the library's code
later calls `self.policy.act(...)` on what the project stored. Every `<obj>.<attr> = value` in the project's own
modules (not on `self`) is indexed once per scan; a question about `self.<attr>` of a library class reads the
stores whose object holds that class (or a subclass of it).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.model.function_values import enclosing_function
from leapp_codemod.analysis.model.index import ClassInfo, ModuleIndex
from leapp_codemod.analysis.model.script_bindings import module_bindings


@dataclass(frozen=True)
class Store:
    target: ast.Attribute
    value: ast.expr
    module: ModuleIndex


def attribute_stores(project) -> dict[str, list[Store]]:
    """attr -> every `<obj>.<attr> = value` the project's own modules write on an object other than `self`."""
    key = ("handed stores", project.own_module_count())
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = {}
        for module in list(project.modules.values()):
            if project.is_library(module.name):
                continue
            for node in module.nodes:
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
                    target = node.targets[0]
                    if not (isinstance(target.value, ast.Name) and target.value.id in ("self", "cls")):
                        found.setdefault(target.attr, []).append(Store(target, node.value, module))
    return found


def stores_on(ctx, cls: ClassInfo, attr: str) -> list[tuple[Store, object]]:
    """(store, context of the function it is in or None at module level) for the stores of `attr` whose object
    holds an instance of `cls` or of a class derived from it."""
    project = ctx.project
    out = []
    for store in attribute_stores(project).get(attr, ()):
        fn = enclosing_function(project, store.module, store.target)
        owner = store.target.value
        if fn is not None:
            where = ctx.for_function(fn)
            types = where.types_of(owner)
        elif isinstance(owner, ast.Name):
            where = None
            types = set().union(*(ctx.call_result_types(v, store.module) for v in
                                  module_bindings(project, store.module).get(owner.id, ()) if isinstance(v, ast.Call)))
        else:
            continue
        classes = [c for c in (ctx.class_for_type(t) for t in types) if c is not None]
        if any(cls in project.mro(c) for c in classes):
            out.append((store, where))
    return out
