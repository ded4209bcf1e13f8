"""Attributes a library base class builds from a class the project hands it.

rlpyt's `BaseAgent.__init__(ModelCls, ...)` later sets `self.model = ModelCls(**kwargs)`; a project agent
never assigns `self.model` itself, it only names the class: as a constructor default (`ModelCls=AgentModel`),
in a subclass's default (`ModelCls=AtariModel`) or as a class attribute. The attribute whose name is the
class parameter's stem (`ModelCls` -> `model`, `policy_class` -> `policy`) holds an instance of those classes.
"""
from __future__ import annotations

import ast
import re

from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo

_CLASS_SUFFIX = re.compile(r"_?(cls|class|klass|type)$", re.IGNORECASE)


def _stem(param: str) -> str | None:
    stem = _CLASS_SUFFIX.sub("", param)
    return stem.lower().strip("_") if stem and stem != param else None


def _assigned_anywhere(attr: str, family: list[ClassInfo]) -> bool:
    return any(attr in k.attr_values or attr in k.class_attrs or attr in k.methods for k in family)


def _class_default(project, init: FunctionInfo, param: str) -> ClassInfo | None:
    args = init.node.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    module = project.modules[init.module]
    for arg, default in pairs:
        if arg.arg == param and isinstance(default, (ast.Name, ast.Attribute)):
            return project.class_of(project.qualify(default, module))
    return None


def _handed_to_library(project, klass: ClassInfo, init: FunctionInfo) -> set[str]:
    """Parameters of `init` passed on to `super().__init__(...)` when a base of `klass` is a library class."""
    if not any(isinstance(b, str) for b in project.bases(klass)):
        return set()
    out = set()
    for node in init.nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__" \
                and isinstance(node.func.value, ast.Call) and isinstance(node.func.value.func, ast.Name) \
                and node.func.value.func.id == "super":
            out |= {a.id for a in (*node.args, *(k.value for k in node.keywords)) if isinstance(a, ast.Name)}
    return out & set(init.params)


def library_built_classes(project, cls: ClassInfo, attr: str) -> set[str]:
    """Class ids of what a library base builds into `self.<attr>` from a class parameter, or empty."""
    from leapp_codemod.analysis.model.resolve_types import subclasses
    family = [*project.mro(cls), *subclasses(project, cls)]
    if _assigned_anywhere(attr, family):
        return set()
    params = set()
    for klass in project.mro(cls):
        init = klass.methods.get("__init__")
        if init is not None:
            params |= {p for p in _handed_to_library(project, klass, init) if _stem(p) == attr.lower().strip("_")}
    out = set()
    if any(isinstance(b, str) for k in project.mro(cls) for b in project.bases(k)):
        for klass in family:                      # `policy_class = MlpPolicy` read by the library base
            module = project.modules[klass.module]
            for name, value in klass.class_attrs.items():
                found = project.class_of(project.qualify(value, module)) if _stem(name) == attr.lower().strip("_") \
                    and isinstance(value, (ast.Name, ast.Attribute)) else None
                if found is not None:
                    out.add(found.id)
    for param in params:
        for klass in family:
            init = klass.methods.get("__init__")
            found = _class_default(project, init, param) if init is not None else None
            if found is not None:
                out.add(found.id)
    return out
