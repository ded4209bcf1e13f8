"""What the scan knows a receiver holds without following it: objects of available libraries (built by a
library constructor, a project class that only runs its library base's code, a container filled with library
layers, a constructor argument left at a library default), and the factories whose result is chosen at run time.
Used by `not_followed` to leave known library code out of its list."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.context import FunctionContext, is_self_attr
from leapp_codemod.analysis.model.class_state import stored_items
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.libraries import in_project as _in_project
from leapp_codemod.analysis.model.libraries import library_available
from leapp_codemod.analysis.model.resolve_sites import param_default
from leapp_codemod.analysis.model.script_modules import script_submodule
from leapp_codemod.knowledge.libraries import RUNTIME_FACTORIES  # noqa: F401  (re-exported: not_followed)


def root_of(func: ast.expr) -> ast.expr:
    while isinstance(func, ast.Attribute):
        func = func.value
    return func


def known_library_object(ctx: FunctionContext, receiver: ast.expr) -> bool:
    """The receiver holds an object of an available library's class (`lcm.LCM()`, `torch.jit.load(...)`),
    not one a factory chose at run time nor one of a module that is neither scanned nor installed."""
    types = ctx.types_of(receiver)
    if any(":" in t for t in types):   # `Stack(...) if deep else nn.Identity()`: each one runs library code
        return all(library_behaviour(ctx, t) if ":" in t else library_type(ctx, t) for t in types)
    return any(t not in RUNTIME_FACTORIES and library_available(ctx.project, t) and not _in_project(ctx.project, t)
               for t in types)


def library_type(ctx: FunctionContext, t: str) -> bool:
    return t not in RUNTIME_FACTORIES and library_available(ctx.project, t) and not _in_project(ctx.project, t)


def library_behaviour(ctx: FunctionContext, type_name: str) -> bool:
    """A project class whose instances, called, run only an available library base's code
    (`Stack(nn.Sequential)` with an `__init__` alone): its layers are built in the project, its call is known."""
    cls = ctx.class_for_type(type_name)
    if cls is None or ctx.project.call_target(cls) is not None:
        return False
    return any(isinstance(base, str) and library_available(ctx.project, base) and not _in_project(ctx.project, base)
               for klass in ctx.project.mro(cls) for base in ctx.project.bases(klass))


def library_container(ctx: FunctionContext, container: ast.expr) -> bool:
    """`self.convs` built as `nn.ModuleList([nn.Conv2d(...)])` and grown with `self.convs.append(nn.Conv2d(...))`:
    every item the class's code puts in it is a library object, so calling an item runs known code."""
    if not is_self_attr(container, ctx.self_name) or ctx.cls is None:
        return False
    items: list[tuple[ast.expr, FunctionInfo | None]] = []
    for klass in ctx.project.mro(ctx.cls):
        for method, value in klass.attr_values.get(container.attr, ()):
            where = klass.methods.get(method)
            literal = _literal_items(value)
            if literal is None and isinstance(value, ast.Call) and library_value(ctx, value, where):
                literal = [i for a in value.args for i in _items_or_self(a)]
            if literal is None:
                return False
            items += [(i, where) for i in literal]
        items += [(v, klass.methods.get(m)) for m, v in stored_items(ctx.project, klass, container.attr)]
    return bool(items) and all(library_value(ctx, v, where) for v, where in items)


def _items_or_self(arg: ast.expr) -> list[ast.expr]:
    items = _literal_items(arg)
    return [arg] if items is None else items


def _literal_items(value: ast.expr) -> list[ast.expr] | None:
    if isinstance(value, (ast.List, ast.Tuple)):
        return [v.value if isinstance(v, ast.Starred) else v for v in value.elts]
    if isinstance(value, ast.Dict):
        return [v for v in value.values if v is not None]
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        return [value.elt]
    if isinstance(value, ast.DictComp):
        return [value.value]
    return None


def local_types(ctx: FunctionContext, expr: ast.expr, depth: int = 0) -> set[str]:
    """Types of a local of `ctx.fn` followed through its assignments (`model = Net(...).to(dev)`,
    `body = model.actor_body`), for a context whose dataflow facts were not computed."""
    if depth > 3:
        return set()
    if isinstance(expr, ast.Name):
        return set().union(*(local_types(ctx, v, depth + 1) for v in ctx.fn.assigned(expr.id)))
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and ctx.fn.assigned(expr.value.id):
        out: set[str] = set()
        for holder in local_types(ctx, expr.value, depth + 1):
            cls = ctx.class_for_type(holder)
            if cls is None:
                return set()
            out |= ctx.attr_types(cls, expr.attr)
        return out
    if isinstance(expr, ast.Call):
        return ctx.call_result_types(expr, ctx.module)
    return set()


def library_value(ctx: FunctionContext, value: ast.expr, where: FunctionInfo | None, depth: int = 0) -> bool:
    """A value built by an available library's constructor (`nn.Conv1d(...) if a else nn.Identity()`, a
    local assigned from `nn.Sequential(...)`): an object whose behaviour is known."""
    if depth > 3:
        return False
    if isinstance(value, ast.IfExp):
        return library_value(ctx, value.body, where, depth + 1) and library_value(ctx, value.orelse, where, depth + 1)
    if isinstance(value, ast.Call):
        module = ctx.project.modules[where.module] if where is not None else ctx.module
        spelled = ctx.project.qualify(value.func, module)
        name = ctx.project.external_name(spelled) if spelled else None   # `joblib.load` is `joblib.numpy_pickle.load`
        return bool(name) and not {name, spelled} & RUNTIME_FACTORIES and "." in name \
            and not _in_project(ctx.project, name) and library_available(ctx.project, name)
    if isinstance(value, ast.Constant) and value.value is None:
        return True
    if isinstance(value, (ast.Name, ast.Attribute)):   # `torch.mean` held as a value
        module = ctx.project.modules[where.module] if where is not None else ctx.module
        root = root_of(value)
        if script_submodule(ctx.project, module, value, where.node if where is not None else module.tree):
            return True   # `base.actor.backbone` of `base = torch.jit.load(p)`: a TorchScript submodule
        if isinstance(root, ast.Name) and root.id in module.imports:
            name = ctx.project.external_name(ctx.project.qualify(value, module) or "")
            return "." in name and not _in_project(ctx.project, name) and library_available(ctx.project, name)
    if isinstance(value, ast.Name) and where is not None:
        values = [n.value for n in ast.walk(where.node) if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)]
        return bool(values) and all(library_value(ctx, v, where, depth + 1) for v in values)
    return False


def default_only(ctx: FunctionContext, init: FunctionInfo, param: str) -> bool:
    """`__init__(self, ..., act=nn.ELU)` whose every construction in the scanned code leaves `act` out (no
    `*args`/`**kwargs` that might carry it, no Hydra config setting it), with a library default: the
    attribute holds that library callable."""
    from leapp_codemod.analysis.model.resolve_sites import argument_for, sites_of
    from leapp_codemod.analysis.model.runtime_bind import hydra_targets
    default = param_default(init, param)
    if init.name != "__init__" or init.class_name is None or default is None \
            or not library_value(ctx, default, init):
        return False
    cls = ctx.project.modules[init.module].classes.get(init.class_name)
    if cls is None:
        return False
    for site in sites_of(ctx.project, cls):
        call = site.call
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return False
        if argument_for(init, call, param) is not None:
            return False
    return not any(t.target == cls.id.replace(":", ".") and any(k == param for k, _ in t.arguments)
                   for t in hydra_targets(ctx.project))

