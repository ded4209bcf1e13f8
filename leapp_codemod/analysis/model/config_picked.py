"""A receiver whose class a setting picks from a dict of classes: `self.valve = {"relief": Relief, "check":
Check}[cfg.kind]()`, `cls = PUMPS[settings["pump"]]; self.pump = cls()`.

`resolve_call` follows the method of every candidate when there are at most `MAX_PICKED` (recorded as such
for the report); with more, it follows none and the call is listed as not followed, with the count and the
key that picks."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.model.index import ClassInfo

MAX_PICKED = 4


@dataclass(frozen=True)
class Picked:
    classes: tuple[ClassInfo, ...]   # every class the dict offers
    key: str                         # the expression that picks one (`cfg.kind`)


def picked(ctx, receiver: ast.expr) -> Picked | None:
    """The classes a setting picks the receiver's class from, when every binding of it is such a pick."""
    bindings = _bindings(ctx, receiver)
    if not bindings:
        return None
    classes: list[ClassInfo] = []
    keys: list[str] = []
    for value, fn, module in bindings:
        found = _pick(ctx.project, value, fn, module)
        if found is None:
            return None
        classes += [c for c in found.classes if all(c.id != k.id for k in classes)]
        keys += [found.key] if found.key not in keys else []
    return Picked(tuple(classes), ", ".join(keys)) if len(classes) > 1 else None


def _bindings(ctx, receiver: ast.expr) -> list:
    """(value, function it is assigned in, module) for `self.x` or a local name."""
    project = ctx.project
    if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) \
            and receiver.value.id == ctx.self_name and ctx.cls is not None:
        return [(value, klass.methods.get(method), project.modules[klass.module])
                for klass in project.mro(ctx.cls) for method, value in klass.attr_values.get(receiver.attr, ())]
    if isinstance(receiver, ast.Name) and receiver.id not in ctx.fn.params:
        return [(value, ctx.fn, ctx.module) for value in ctx.fn.assigned(receiver.id)]
    return []


def _pick(project, value: ast.expr, fn, module) -> Picked | None:
    """`D[key]()` or `cls()` with `cls = D[key]` in the same function, `D` a dict literal of project classes
    (written there or a module global), `key` no constant."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    if isinstance(func, ast.Name) and fn is not None:
        assigned = fn.assigned(func.id)
        func = assigned[-1] if len(assigned) == 1 else func
    if not isinstance(func, ast.Subscript) or isinstance(func.slice, ast.Constant):
        return None
    table, where = func.value, module
    if isinstance(table, ast.Name) and table.id in module.globals:
        table = module.globals[table.id]
    elif isinstance(table, ast.Name) and table.id in module.imports:
        owner, _, name = module.imports[table.id].rpartition(".")
        where = project.module_named(owner)
        table = where.globals.get(name) if where is not None else None
    if not isinstance(table, ast.Dict) or not table.values:
        return None
    classes = [project.class_of(project.qualify(v, where)) for v in table.values]
    if any(c is None for c in classes):
        return None
    unique = {c.id: c for c in classes}
    return Picked(tuple(unique.values()), ast.unparse(func.slice))


def picked_reason(ctx, receiver: ast.expr) -> str | None:
    """Why a call on a receiver picked among too many classes is not followed."""
    found = picked(ctx, receiver)
    if found is None or len(found.classes) <= MAX_PICKED:
        return None
    names = ", ".join(c.name for c in found.classes[:4])
    return (f"`{ast.unparse(receiver)[:60]}` is one of {len(found.classes)} classes ({names}, ...) picked by "
            f"`{found.key[:60]}`, too many to follow all; name the one your config picks with --bind")
