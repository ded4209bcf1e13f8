"""A receiver whose class a setting picks by name: from a dict of classes (`self.valve = {"relief": Relief,
"check": Check}[cfg.kind]()`, `cls = PUMPS[settings["pump"]]; self.pump = cls()`), or by any lookup
`picked_by_name` knows (`getattr(robots, cfg.robot)`, `globals()[name]`, `eval(name)`, a decorator registry).

`resolve_call` follows the method of every candidate that defines it when there are at most `MAX_PICKED`
(recorded as "picked by name (N candidates)"); when the project's configs name exactly one of them, only that
one (recorded with the config that names it); with more, it follows none and the call is listed as not
followed, with the count and the key that picks."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.model import runtime_bind
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo
from leapp_codemod.analysis.model.picked_by_name import (
    MAX_PICKED,
    NamePick,
    configured,
    name_pick,
)


@dataclass(frozen=True)
class Picked:
    classes: tuple[ClassInfo, ...]   # every class the dict offers
    key: str                         # the expression that picks one (`cfg.kind`)
    lookups: tuple[NamePick, ...] = ()   # the lookups by name, when they are (for the configs' choice)


def picked(ctx, receiver: ast.expr) -> Picked | None:
    """The classes a setting picks the receiver's class from, when every binding of it is such a pick."""
    bindings = _bindings(ctx, receiver)
    if not bindings:
        return None
    classes: list[ClassInfo] = []
    keys: list[str] = []
    lookups: list[NamePick] = []
    for value, fn, module in bindings:
        found = _pick(ctx.project, value, fn, module)
        if found is None:
            return None
        classes += [c for c in found.classes if all(c.id != k.id for k in classes)]
        keys += [found.key] if found.key not in keys else []
        lookups += found.lookups
    return Picked(tuple(classes), ", ".join(keys), tuple(lookups)) if len(classes) > 1 else None


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


def _pick(project, value: ast.expr, fn, module, depth: int = 0) -> Picked | None:
    """`D[key]()` or `cls()` with `cls = D[key]` in the same function, `D` a dict literal of project classes
    (written there or a module global), `key` no constant."""
    if not isinstance(value, ast.Call):
        return None
    if ("duck",) in project.memo:
        lookup = name_pick(project, value.func, module, fn)
        if lookup is not None:   # `getattr(robots, cfg.robot)(...)`, `cls = globals()[name]; cls(...)`
            return Picked(lookup.classes, lookup.key_text, (lookup,))
        built = _built_by_helper(project, value, module, depth)
        if built is not None:    # `make_gimbal(name)` returning `eval(name)()`
            return built
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


def follow(ctx, call: ast.Call, found: list[FunctionInfo], choice: Picked) -> list[FunctionInfo]:
    """What a call on (or of) a picked object runs (`found`: the candidates' methods, or what calling each
    candidate instance runs), recorded with how: the candidates the configs name, else all when they are few,
    else none (listed as not followed)."""
    project = ctx.project
    method = call.func.attr if isinstance(call.func, ast.Attribute) and not _called_object(ctx, call) else None
    run = (lambda c: project.find_method(c, method)) if method else project.call_target
    owners = [c for c in choice.classes if run(c) in found]
    what = f"define `{method}`" if method else "can be called"
    for lookup in choice.lookups:
        named = configured(project, lookup, ctx.fn, owners)
        if named is not None and len(named[0]) <= MAX_PICKED:
            chosen = [run(c) for c in named[0]]
            which = f"`{named[0][0].name}`" if len(chosen) == 1 else ", ".join(f"`{c.name}`" for c in named[0])
            runtime_bind.record(project, call, ctx.fn.path, chosen,
                                f"picked by name: {which}, named by {named[1]}, of the {len(owners)} classes "
                                f"picked by `{choice.key[:60]}` that {what}")
            return chosen
    if len(found) > MAX_PICKED:
        return []   # listed as not followed, with the count and the key
    runtime_bind.record(project, call, ctx.fn.path, found,
                        f"picked by name ({_count(len(found))}): one of the {len(choice.classes)} classes picked "
                        f"by `{choice.key[:60]}`")
    return found


def _called_object(ctx, call: ast.Call) -> bool:
    """`self.actor(x)`: the call runs the object held in the attribute, not a method of that name."""
    func = call.func
    return isinstance(func.value, ast.Name) and func.value.id == ctx.self_name and ctx.cls is not None \
        and ctx.project.find_method(ctx.cls, func.attr) is None


def _built_by_helper(project, call: ast.Call, module, depth: int) -> Picked | None:
    """A project function whose every return is an instance of a class picked by name."""
    from leapp_codemod.analysis.model.local_values import returned_picks
    picks = returned_picks(project, call, module, lambda value, target, home: _pick(
        project, value, target, home, depth + 1)) if depth < 2 else None
    if picks is None:
        return None
    classes = tuple({c.id: c for p in picks for c in p.classes}.values())
    return Picked(classes, picks[0].key, tuple(lk for p in picks for lk in p.lookups))


def picked_reason(ctx, receiver: ast.expr, method: str = "") -> str | None:
    """Why a call on a receiver picked among too many classes is not followed."""
    found = picked(ctx, receiver)
    if found is None:
        return None
    owners = [c for c in found.classes if method and ctx.project.find_method(c, method) is not None] \
        or [c for c in found.classes if ctx.project.call_target(c) is not None]   # `self.actor(x)`: the object
    if len(owners) <= MAX_PICKED:
        return None
    names = ", ".join(c.name for c in owners[:4])
    return (f"`{ast.unparse(receiver)[:60]}` is one of {len(owners)} classes ({names}, ...) picked by "
            f"`{found.key[:60]}`, too many to follow all; name the one your config picks with --bind")


def constructed(ctx, call: ast.Call) -> list[FunctionInfo] | None:
    """`cls(...)`, `getattr(robots, cfg.robot)(...)` with the class picked by name: the `__init__` of the one
    the configs name, else of every candidate when they are few (recorded); None when the call is no such
    construction, [] when the candidates are too many (listed as not followed)."""
    project = ctx.project
    if ("duck",) not in project.memo or isinstance(call.func, ast.Attribute):
        return None
    lookup = name_pick(project, call.func, ctx.module, ctx.fn)
    if lookup is None:
        return None
    classes = list(lookup.classes)
    named = configured(project, lookup, ctx.fn, classes)
    if named is not None and len(named[0]) <= MAX_PICKED:
        classes = named[0]
        how = f"picked by name: {', '.join(f'`{c.name}`' for c in classes)}, named by {named[1]}"
    elif len(classes) > MAX_PICKED:
        return []
    else:
        how = f"picked by name ({_count(len(classes))}) by `{lookup.key_text}` in {lookup.source}"
    inits = [m for m in (project.find_method(c, "__init__") for c in classes) if m is not None]
    if inits:
        runtime_bind.record(project, call, ctx.fn.path, inits, how)
    return inits


def _count(n: int) -> str:
    return "1 candidate" if n == 1 else f"{n} candidates"
