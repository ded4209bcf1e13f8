"""Settings an object is built with: constructor arguments stored on `self` that no method rebinds.

A literal set in `__init__` (`self.show = False`) is not one: it is a switch left for a person to flip.

`Normalizer(n, update=False)` stores `self.update = update`; when every construction site in the project
passes a constant (or leaves the default) and nothing assigns `self.update` again, `if self.update:` is
decided before the program runs, like a module-level `RECORD = False`. Keys are "self.<attr>", values the
constants the attribute can hold (`UNKNOWN` when one site passes something else).
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import ClassInfo
from leapp_codemod.analysis.model.resolve_sites import argument_for, sites_of

CONSTRUCTION = frozenset({"__init__", "__post_init__", "setup", "__new__"})


def class_settings(project, cls: ClassInfo, unknown) -> dict[str, set]:
    key = ("class_settings", cls.id)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = _settings(project, cls, unknown)
    return found


def _settings(project, cls: ClassInfo, unknown) -> dict[str, set]:
    init = project.find_method(cls, "__init__")
    if init is None or any("__init__" in sub.methods for sub in _subclasses(project, cls)):
        return {}   # a subclass constructs it through super().__init__(...): not a site we read
    sites = None
    out: dict[str, set] = {}
    for klass in project.mro(cls):
        for attr, writes in klass.attr_values.items():
            if f"self.{attr}" in out or any(method not in CONSTRUCTION for method, _ in writes) or len(writes) != 1:
                continue
            if _mutated(project, cls, attr):
                continue
            method, value = writes[0]
            if not (isinstance(value, ast.Name) and value.id in init.params and method == "__init__"
                    and klass.methods.get("__init__") is init):
                continue
            if sites is None:
                sites = sites_of(project, cls)
            values = _passed(init, value.id, sites, unknown)
            if values:
                out[f"self.{attr}"] = values
    return out


def _subclasses(project, cls: ClassInfo):
    from leapp_codemod.analysis.model.resolve_types import subclasses
    return subclasses(project, cls)


def _passed(init, param: str, sites, unknown) -> set:
    """The constants every construction site passes for `param` (its default where none is given)."""
    if not sites:
        return set()
    default = _default(init, param)
    values: set = set()
    for site in sites:
        arg = argument_for(init, site.call, param)
        if arg is None:
            if any(isinstance(a, ast.Starred) for a in site.call.args) or any(k.arg is None for k in site.call.keywords):
                return {unknown}
            arg = default
        if isinstance(arg, ast.Constant) and isinstance(arg.value, (bool, str, int, float, type(None))):
            values.add(arg.value)
        else:
            return {unknown}
    return values


def _default(init, param: str) -> ast.expr | None:
    args = init.node.args
    positional = [*args.posonlyargs, *args.args]
    for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        if arg.arg == param:
            return default
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if arg.arg == param:
            return default
    return None


def _mutated(project, cls: ClassInfo, attr: str) -> bool:
    """Anything outside construction that rebinds `<obj>.<attr>` (`policy.update = True` from a driver)."""
    key = ("attr_stores",)
    stores = project.memo.get(key)
    if stores is None:
        stores = set()
        for module in project.modules.values():
            if project.is_library(module.name):
                continue
            for node in ast.walk(module.tree):
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        for elt in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                            if isinstance(elt, ast.Attribute) and not (isinstance(elt.value, ast.Name)
                                                                       and elt.value.id == "self"):
                                stores.add(elt.attr)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                        and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                    stores.add(str(node.args[1].value))
        project.memo[key] = stores
    return attr in stores
