"""Classes picked by name at run time: the name is data (a config field, a command-line flag, a parameter),
the namespace it is looked up in is the project's, so the candidates are known statically.

Shapes (each with a name that is no constant; `cls = <lookup>; obj = cls(...)` or `<lookup>(...)` directly):
- `getattr(robots, cfg.robot)` with `robots` a project module: the classes the module defines or imports;
- `getattr(sys.modules[__name__], name)`, `globals()[name]`, `globals().get(name)`, `eval(name)`: the classes of
  the calling module's own namespace (defined or imported there);
- `REGISTRY[name]`, `REGISTRY.get(name)` with `REGISTRY` a module-level dict literal of classes or a dict a
  decorator fills (`@register("arm") class ArmHead`).

The call resolution keeps the candidates that implement the method called on the result, follows all of
them when there are at most `MAX_PICKED`, and records "picked by name (N candidates)"; when the project's
configs (YAML/JSON/TOML values of the key, or an argparse default of the flag) name exactly one candidate,
only that one is followed and the record says so. Syntactic; never imports or runs the scanned code.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.model.config_values import config_key, config_values
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex

MAX_PICKED = 4      # candidates followed at most; above, the call is listed as not followed
_MAX_HOPS = 3       # local names followed back to the lookup


@dataclass(frozen=True)
class NamePick:
    """The classes a lookup by name may give, under the names it may be looked up by."""

    named: tuple[tuple[str, ClassInfo], ...]   # (lookup name, class) for every candidate
    key: ast.expr                              # the expression giving the name
    source: str                                # where it is looked up (`getattr(robots, ...)`)

    @property
    def classes(self) -> tuple[ClassInfo, ...]:
        out: list[ClassInfo] = []
        for _, cls in self.named:
            if all(cls.id != c.id for c in out):
                out.append(cls)
        return tuple(out)

    @property
    def key_text(self) -> str:
        return ast.unparse(self.key)[:60]


def name_pick(project, value: ast.expr, module: ModuleIndex, fn: FunctionInfo | None, hops: int = 0) -> NamePick | None:
    """The pick `value` (a class object) is, when it is a lookup by a non-constant name in a project namespace;
    a local name counts when every binding of it in `fn` is one."""
    if isinstance(value, ast.Name) and fn is not None and value.id not in fn.params and hops < _MAX_HOPS:
        bound = fn.assigned(value.id)
        before = [b for b in bound if b.lineno < value.lineno]
        bound = before or bound   # `cls = getattr(m, cfg.x)` ... `cls(...)`, rebound to something else only later
        picks = [name_pick(project, b, module, fn, hops + 1) for b in bound]
        if not picks or any(p is None for p in picks):
            return None
        named = _unique([n for p in picks for n in p.named])
        return NamePick(named, picks[0].key, picks[0].source)
    if isinstance(value, ast.Call):
        return _called_lookup(project, value, module, fn) or _returned_pick(project, value, module, hops)
    if isinstance(value, ast.Subscript) and not isinstance(value.slice, (ast.Constant, ast.Slice)):
        return _table_lookup(project, value.value, value.slice, module)
    return None


def _called_lookup(project, call: ast.Call, module: ModuleIndex, fn) -> NamePick | None:
    func = call.func
    builtin = func.id if isinstance(func, ast.Name) and func.id not in module.imports \
        and func.id not in module.functions and func.id not in module.globals else None
    if builtin == "getattr" and len(call.args) >= 2 and not isinstance(call.args[1], ast.Constant):
        owner = call.args[0]
        if _own_module(owner):
            return _namespace(project, module, call.args[1], "the module's own names")
        qualified = project.qualify(owner, module)
        held = project.modules.get(qualified) if qualified else None
        if held is None or project.is_library(held.name):
            return None
        return _namespace(project, held, call.args[1], f"getattr({ast.unparse(owner)[:30]}, ...)")
    if builtin == "eval" and len(call.args) == 1 and not isinstance(call.args[0], ast.Constant):
        return _namespace(project, module, call.args[0], "eval(...) in the module's namespace")
    if isinstance(func, ast.Attribute) and func.attr == "get" and call.args \
            and not isinstance(call.args[0], ast.Constant):
        return _table_lookup(project, func.value, call.args[0], module)
    return None


def _returned_pick(project, call: ast.Call, module: ModuleIndex, hops: int) -> NamePick | None:
    """`fuser_for(sensor)` with the project function returning a lookup by name (`return getattr(
    sys.modules[__name__], sensor + "Fuser")`): that pick, when every value it returns is one."""
    from leapp_codemod.analysis.model.local_values import returned_picks
    picks = returned_picks(project, call, module, lambda value, target, home: name_pick(
        project, value, home, target, hops + 1)) if hops < _MAX_HOPS else None
    if picks is None:
        return None
    return NamePick(_unique([n for p in picks for n in p.named]), picks[0].key, picks[0].source)


def _table_lookup(project, table: ast.expr, key: ast.expr, module: ModuleIndex) -> NamePick | None:
    """`globals()[name]`, `REGISTRY[name]` (a dict literal of project classes, or a decorator registry)."""
    if isinstance(table, ast.Call) and isinstance(table.func, ast.Name) and table.func.id in ("globals", "vars") \
            and not table.args:
        return _namespace(project, module, key, f"{table.func.id}()")
    if not isinstance(table, ast.Name):
        return None
    from leapp_codemod.analysis.model.local_values import global_value
    from leapp_codemod.analysis.model.runtime_bind import registry_members
    qualified = project.qualify(table, module)
    if not qualified:
        return None
    named: list[tuple[str, ClassInfo]] = []
    for member in registry_members(project, qualified):
        if isinstance(member, ClassInfo):
            named += [(n, member) for n in _registered_names(member)]
    found = global_value(project, qualified)
    if found is not None and isinstance(found[0], ast.Dict):
        keys, values = list(found[0].keys), list(found[0].values)
        for stmt in found[1].tree.body:   # `MODELS["mlp"] = MlpPolicy` below the literal, at module level
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and target.value.id == qualified.rpartition(".")[2] and isinstance(target.slice, ast.Constant):
                keys.append(target.slice)
                values.append(stmt.value)
        for k, v in zip(keys, values):
            cls = project.class_of(project.qualify(v, found[1]))
            if cls is None:
                return None   # a table of anything else (functions, settings) is no class pick
            if isinstance(k, ast.Constant):
                named.append((str(k.value), cls))
            named.append((cls.name, cls))
    return NamePick(_unique(named), key, ast.unparse(table)[:40]) if named else None


def _unique(named: list[tuple[str, ClassInfo]]) -> tuple[tuple[str, ClassInfo], ...]:
    seen: dict[tuple[str, str], tuple[str, ClassInfo]] = {}
    for name, cls in named:
        seen.setdefault((name, cls.id), (name, cls))
    return tuple(seen.values())


def _own_module(owner: ast.expr) -> bool:
    """`sys.modules[__name__]`."""
    return isinstance(owner, ast.Subscript) and isinstance(owner.slice, ast.Name) and owner.slice.id == "__name__" \
        and isinstance(owner.value, ast.Attribute) and owner.value.attr == "modules"


def _namespace(project, module: ModuleIndex, key: ast.expr, source: str) -> NamePick | None:
    """Every project class `module` defines or imports, under the name it has there."""
    named = _names_in(project, module, 0)
    return NamePick(_unique(named), key, source) if named else None


def _names_in(project, module: ModuleIndex, depth: int) -> list[tuple[str, ClassInfo]]:
    """(name, class) of the project classes `module` defines, imports, or star-imports (two levels)."""
    named: list[tuple[str, ClassInfo]] = [(name, cls) for name, cls in module.classes.items() if "." not in name]
    for local, target in module.imports.items():
        cls = project.class_of(target)
        if cls is not None and not project.is_library(cls.module):
            named.append((local, cls))
    for star in module.star_imports if depth < 2 else ():
        held = project.modules.get(star)
        if held is not None and not project.is_library(held.name):
            named += [(n, c) for n, c in _names_in(project, held, depth + 1) if not n.startswith("_")]
    return named


def _registered_names(cls: ClassInfo) -> list[str]:
    """The class's name and the constant names its decorators register it under (`@register("arm")`)."""
    names = [cls.name]
    for decorator in cls.node.decorator_list:
        if isinstance(decorator, ast.Call):
            names += [a.value for a in decorator.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return names


# ---------------------------------------------------------------------------------------------- configs
def configured(project, pick: NamePick, fn: FunctionInfo | None,
               keep: list[ClassInfo]) -> tuple[list[ClassInfo], str] | None:
    """The classes of `keep` the project's configs name for the pick's key (YAML/JSON/TOML values of the
    key, an argparse default of the flag), with a note saying where that was read (`` `cautious` in the
    project's configs (`planner`) ``); None when they name none of them."""
    leaf = _key_leaf(pick.key, fn)
    if leaf is None:
        return None
    sources = [("the project's configs", {str(v) for v in config_values(project).get(leaf, ())})]
    flag = argparse_defaults(project).get(leaf)
    if flag is not None:
        sources.append((f"the `--{leaf}` default", {flag}))
    ids = {c.id for c in keep}
    chosen: dict[str, ClassInfo] = {}
    notes: list[str] = []
    for where, values in sources:
        hits = [(name, cls) for name, cls in pick.named if name in values and cls.id in ids]
        chosen.update((cls.id, cls) for _, cls in hits)
        names = sorted({n for n, _ in hits})
        if names:
            notes.append(f"{', '.join(f'`{n}`' for n in names)} in {where} (`{leaf}`)")
    if not chosen:
        return None
    return [c for c in keep if c.id in chosen], " and ".join(notes)


def picked_classes(project, pick: NamePick, fn: FunctionInfo | None) -> set[str]:
    """The classes an object built from the pick may be: the few the project's configs name, else every
    candidate (a call on it then keeps those that define the method, and follows at most `MAX_PICKED`)."""
    named = configured(project, pick, fn, list(pick.classes))
    chosen = named[0] if named is not None and len(named[0]) <= MAX_PICKED else pick.classes
    return {c.id for c in chosen}


def _key_leaf(key: ast.expr, fn: FunctionInfo | None, hops: int = 0) -> str | None:
    """The config key or flag the name comes from: `cfg.robot`, `args.robot`, `opts["robot"]`, or a local
    bound once from one (`name = cfg.robot`)."""
    if isinstance(key, ast.Name) and fn is not None and hops < _MAX_HOPS:
        bound = fn.assigned(key.id)
        return _key_leaf(bound[0], fn, hops + 1) if len(bound) == 1 else None
    found = config_key(key)
    if found is None and isinstance(key, ast.Attribute) and isinstance(key.value, ast.Name):
        found = key.attr   # `s.robot` with `s` a parsed namespace under another name
    return found


def argparse_defaults(project) -> dict[str, str]:
    """Flag dest -> its constant string default, from every `add_argument` of the project's own modules
    (read once per project; flags defined twice with different defaults are left out)."""
    memo_key = ("argparse defaults",)
    if memo_key in project.memo:
        return project.memo[memo_key]
    seen: dict[str, set[str]] = {}
    for module in list(project.modules.values()):
        if project.is_library(module.name):
            continue
        for node in module.nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                dest = next((k.value.value for k in node.keywords if k.arg == "dest"
                             and isinstance(k.value, ast.Constant)), None)
                long = next((f for f in flags if f.startswith("--")), None)
                name = dest or (long.lstrip("-").replace("-", "_") if long else None)
                default = next((k.value.value for k in node.keywords if k.arg == "default"
                                and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)), None)
                if name and default is not None:
                    seen.setdefault(name, set()).add(default)
    out = {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}
    project.memo[memo_key] = out
    return out
