"""Receivers bound at run time: what a call through a value built from a config, a factory or a
binding the user gave runs.

In the order `resolve_call` asks: a binding (`--bind self.adapter=pkg.mod:Adapter`,
`[tool.leapp-codemod.bind]`), Hydra/OmegaConf (`hydra.utils.instantiate(cfg.adapter)` builds the
`_target_` the project's YAML configs name under `adapter`; `hydra.utils.get_class(...)` returns such a
class), then, when the receiver stays unknown, duck typing: the project classes that define the method
and are constructed or named somewhere, when there are at most `MAX_DUCK` of them. Every call resolved
one of these ways is recorded with how, for the report.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.hydra_configs import HydraTarget, matching, project_config_roots, read_targets
from leapp_codemod.analysis.model.function_values import enclosing_function
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo
from leapp_codemod.analysis.model.resolve_types import is_abstract
from leapp_codemod.model import Resolved
from leapp_codemod.knowledge.vocab import CONTAINER_MUTATORS
from leapp_codemod.source.astwalk import walk

INSTANTIATE = frozenset({"hydra.utils.instantiate", "hydra.utils.call", "hydra._internal.utils.instantiate"})
GET_CLASS = frozenset({"hydra.utils.get_class", "hydra.utils.get_method", "hydra.utils.get_object",
                       "hydra._internal.utils._locate"})
MAX_TARGETS = 8      # more `_target_`s than this under one key: name one with --bind
MAX_DUCK = 3         # more project classes than this define the method: duck typing does not guess
# Method names too common to identify a class by (containers, tensors, environments, loggers).
DUCK_EXCLUDED = frozenset({"__init__", "__call__", "forward", "step", "reset", "get", "update", "run", "close",
                           "append", "extend", "items", "keys", "values", "copy", "to", "eval", "train",
                           "load", "save", "info", "debug", "log", "write", "read", "start", "stop"}) \
    | CONTAINER_MUTATORS   # `pending.pop(0)`, `kwargs.pop("k")`: a list's or a dict's, not a project class's


# ---------------------------------------------------------------------------------------------- memo
def _memo(project, key, build):
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = build()
    return found


def hydra_targets(project) -> list[HydraTarget]:
    def build():
        return read_targets(project_config_roots(project))
    return _memo(project, ("hydra_targets",), build)


def bindings(project) -> dict[str, str]:
    """Expression text (`self.adapter`, `policy`) -> dotted class or function the user bound it to."""
    return project.memo.get(("bindings",), {})


def set_bindings(project, binds: tuple[tuple[str, str], ...]) -> None:
    project.memo[("bindings",)] = {expr.strip(): target.strip().replace(":", ".") for expr, target in binds}


RESOLUTIONS_KEY = ("resolutions",)   # project memo: how each run-time-bound call was resolved


def record(project, call: ast.Call, path: str, targets, how: str) -> None:
    table = project.memo.setdefault(RESOLUTIONS_KEY, {})
    key = (path, call.lineno, ast.unparse(call.func))
    if key not in table:
        names = tuple(sorted(t.id for t in targets))
        table[key] = Resolved(path, call.lineno, _text(call.func), names, how)


def resolutions(project) -> tuple[Resolved, ...]:
    return tuple(sorted(project.memo.get(RESOLUTIONS_KEY, {}).values(), key=lambda r: (r.path, r.line, r.text)))


def _text(func: ast.expr) -> str:
    text = ast.unparse(func)
    return (text if len(text) <= 60 else text[:57] + "...") + "(...)"


# ---------------------------------------------------------------------------------------------- types
def bound_types(ctx, expr: ast.expr) -> set[str]:
    """Class ids the user bound this expression to (`--bind self.adapter=pkg.mod:Adapter`)."""
    binds = bindings(ctx.project)
    if not binds:
        return set()
    target = binds.get(ast.unparse(expr))
    cls = ctx.project.class_of(target) if target else None
    return {cls.id} if cls is not None else set()


def bound_callable(ctx, func: ast.expr) -> FunctionInfo | None:
    binds = bindings(ctx.project)
    target = binds.get(ast.unparse(func)) if binds else None
    found = ctx.project.lookup(target) if target else None
    return found if isinstance(found, FunctionInfo) else None


def config_chain(expr: ast.expr) -> tuple[str, ...] | None:
    """The config keys an expression reads: `cfg.policy` -> ("policy",), `self.cfg["model"].enc` ->
    ("cfg", "model", "enc"), `cfg` -> (); None when it is not a chain of names and constant keys."""
    keys: list[str] = []
    node = expr
    while True:
        if isinstance(node, ast.Attribute):
            keys.insert(0, node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            keys.insert(0, node.slice.value)
            node = node.value
        elif isinstance(node, ast.Name):
            return tuple(keys)
        else:
            return None


def instantiated_targets(ctx, call: ast.Call, module) -> list[HydraTarget] | None:
    """The `_target_` entries `instantiate(<arg>)` may build, or None when the call is not Hydra's."""
    name = ctx.project.qualify(call.func, module)
    name = ctx.project.external_name(name) if name else None
    if (name not in INSTANTIATE and not own_instantiate(ctx.project, name)) or not call.args:
        return None
    chain = config_chain(call.args[0])
    if chain is None:
        return []
    if chain and chain[-1] == "_target_":
        chain = chain[:-1]
    nested = _argument_targets(ctx.project, enclosing_function(ctx.project, module, call), call.args[0])
    return nested if nested else own_configs(ctx, matching(hydra_targets(ctx.project), chain))


def _argument_targets(project, fn: FunctionInfo | None, arg: ast.expr) -> list[HydraTarget]:
    """`instantiate(model)` in `fn`, with `model` a parameter of the `__init__` of a class a config
    instantiates: the entries under that config's `model` key (`_recursive_: false` hands the sub-config
    over as is), also when a `defaults:` list composes them there from a group file."""
    if not isinstance(arg, ast.Name) or fn is None or fn.name != "__init__" or arg.id not in fn.params:
        return []
    cls = project.modules[fn.module].classes.get(fn.class_name or "")
    if cls is None:
        return []
    targets = hydra_targets(project)
    out: list[HydraTarget] = []
    for owner in targets:
        built = project.class_of(owner.target)
        if built is None or cls not in project.mro(built):
            continue
        keys = owner.keys + (arg.id,)
        out += [t for t in targets if t.keys == keys and t not in out]
    return out


_IMPORTERS = frozenset({"importlib.import_module", "__import__", "pydoc.locate"})


def own_instantiate(project, name: str | None) -> bool:
    """A project function that builds what a config's `_target_` names, as Hydra's `instantiate` does: it
    reads the `"_target_"` key and imports the named module (`importlib.import_module`, then `getattr`)."""
    fn = project.lookup(name) if name else None
    if not isinstance(fn, FunctionInfo):
        return False
    key = ("own_instantiate", fn.id)
    if key not in project.memo:
        module = project.modules[fn.module]
        reads = any(isinstance(n, ast.Constant) and n.value == "_target_" for n in fn.nodes)
        imports = any(isinstance(n, ast.Call) and project.external_name(project.qualify(n.func, module) or "")
                      in _IMPORTERS for n in fn.nodes)
        project.memo[key] = reads and imports
    return project.memo[key]


def own_configs(ctx, found: list[HydraTarget]) -> list[HydraTarget]:
    """Of the entries found, those in config files whose top-level `_target_` is the instantiating class or a
    subclass of it (`self.model = instantiate(cfg.model)` in `EvalAgent`, configs of `EvalDiffusionAgent`),
    when there are any; else all of them."""
    cls = getattr(ctx, "cls", None)
    if cls is None or len({t.target for t in found}) < 2:
        return found
    project = ctx.project
    roots = {t.path for t in hydra_targets(project) if not t.keys
             and (owner := project.class_of(t.target)) is not None and cls in project.mro(owner)}
    own = [t for t in found if t.path in roots]
    return own or found


def hydra_result_types(ctx, call: ast.Call, module) -> set[str] | None:
    """Types of `instantiate(cfg.x)` (instances of the named classes; for a `_partial_` entry nothing is
    built yet) or None when the call is not Hydra's."""
    found = instantiated_targets(ctx, call, module)
    if found is None:
        return None
    classes = _target_classes(ctx.project, found)
    if not classes or len(classes) > MAX_TARGETS:
        return set()
    wheres = ", ".join(sorted({t.where for t in found if ctx.project.class_of(t.target) is not None})[:3])
    record(ctx.project, call, module.path, [c for c, _ in classes], f"hydra _target_ in {wheres}")
    return {c.id for c, partial in classes if not partial}


def hydra_callable_values(ctx, call: ast.Call, module) -> list | None:
    """What calling the value of `get_class(cfg._target_)` / `get_method(...)` or of a `_partial_`
    `instantiate(cfg.x)` runs: the named classes (calling one builds it) or functions; None when the call
    is none of those."""
    func = call.func
    last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if last not in ("instantiate", "call", "get_class", "get_method", "get_object", "_locate"):
        return None
    name = ctx.project.qualify(func, module)
    name = ctx.project.external_name(name) if name else None
    if name in GET_CLASS and call.args:
        chain = config_chain(call.args[0])
        if chain is None:
            return []
        if chain and chain[-1] == "_target_":
            chain = chain[:-1]
        targets = matching(hydra_targets(ctx.project), chain)
        partial_only = False
    else:
        targets = instantiated_targets(ctx, call, module)
        if targets is None:
            return None
        partial_only = True
    out = []
    for target in targets:
        if partial_only and not target.partial:
            continue
        found = ctx.project.lookup(target.target)
        if found is not None and found not in out:
            out.append(found)
    if len(out) > MAX_TARGETS:
        return []
    if out:
        wheres = ", ".join(sorted({t.where for t in targets})[:3])
        record(ctx.project, call, module.path, out, f"hydra _target_ in {wheres}")
    return out


def _target_classes(project, targets: list[HydraTarget]) -> list[tuple[ClassInfo, bool]]:
    out: list[tuple[ClassInfo, bool]] = []
    for target in targets:
        cls = project.class_of(target.target)
        if cls is not None and (cls, target.partial) not in out:
            out.append((cls, target.partial))
    return out


def hydra_argument_types(ctx, cls: ClassInfo, param: str) -> set[str]:
    """What Hydra passes for `param` of `cls.__init__` when a config instantiates `cls` with a nested
    `_target_` under that key (recursive instantiation)."""
    out: set[str] = set()
    for target in hydra_targets(ctx.project):
        if ctx.project.class_of(target.target) is not cls:
            continue
        for key, nested in target.arguments:
            if key == param:
                found = ctx.project.class_of(nested)
                if found is not None:
                    out.add(found.id)
    return out


def instantiate_keyword_calls(project) -> list[tuple[FunctionInfo, ast.Call]]:
    """(function, call) of each `instantiate(cfg.x, key=value)` in the scanned code that passes keyword
    arguments: Hydra hands them to the `__init__` of the class the config names (indexed once)."""
    def build():
        out = []
        for fn in project.functions():
            if project.is_library(fn.module):
                continue
            module = project.modules[fn.module]
            for node in fn.nodes:
                if isinstance(node, ast.Call) and any(k.arg for k in node.keywords) and node.args \
                        and isinstance(node.func, (ast.Name, ast.Attribute)) \
                        and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "instantiate":
                    name = project.qualify(node.func, module)
                    if name and project.external_name(name) in INSTANTIATE:
                        out.append((fn, node))
        return out
    return _memo(project, ("instantiate_keyword_calls",), build)


def hydra_keyword_types(ctx, cls: ClassInfo, param: str) -> set[str]:
    """What `instantiate(cfg.plan, dist=self.dist)` passes for `param` of `cls.__init__`, where `cfg.plan`
    names `cls` (or a subclass inheriting that `__init__`)."""
    out: set[str] = set()
    for fn, call in instantiate_keyword_calls(ctx.project):
        value = next((k.value for k in call.keywords if k.arg == param), None)
        if value is None:
            continue
        caller = ctx.for_function(fn)
        targets = instantiated_targets(caller, call, ctx.project.modules[fn.module]) or []
        if any(cls in ctx.project.mro(c) for c, _ in _target_classes(ctx.project, targets)):
            out |= caller.types_of(value)
    return out


# ---------------------------------------------------------------------------------------------- duck typing
def _named_in_code(project, candidates: set[str]) -> set[str]:
    """Which of the class names `candidates` the project's code mentions outside their own class body:
    passed to a registration (`Auto.register(Config, Model)`), a classmethod call (`Model.from_pretrained`),
    a registry dict value, imported by name (`from agents.ppo import PPOAgent` in a script that `torch.load`s the
    whole agent). A class named nowhere is dead code, not a candidate receiver."""
    found: set[str] = set()
    for module in list(project.modules.values()):
        if project.is_library(module.name):
            continue
        stack: list[tuple[ast.AST, str]] = [(module.tree, "")]
        while stack:
            node, inside = stack.pop()
            if isinstance(node, ast.ClassDef):
                inside = node.name
            elif isinstance(node, ast.Name) and node.id in candidates and node.id != inside:
                found.add(node.id)
            elif isinstance(node, ast.Attribute) and node.attr in candidates and node.attr != inside:
                found.add(node.attr)
            elif isinstance(node, ast.ImportFrom):   # imported by name: a script unpickling a model needs its class
                found.update(alias.name for alias in node.names if alias.name in candidates)
            stack.extend((child, inside) for child in ast.iter_child_nodes(node))
    return found


def _defining_classes(project) -> dict[str, list[ClassInfo]]:
    """Method name -> project classes that define it (not abstractly) and are constructed, named in the
    code outside their own body, or named in a config somewhere."""
    def build():
        from leapp_codemod.analysis.model.resolve_sites import sites_of
        named = {t.target for t in hydra_targets(project)}
        unbuilt = {cls.name for module in project.modules.values() if not project.is_library(module.name)
                   for cls in module.classes.values() if not sites_of(project, cls)}
        mentioned = _named_in_code(project, unbuilt) if unbuilt else set()
        table: dict[str, list[ClassInfo]] = {}
        for module in list(project.modules.values()):
            if project.is_library(module.name):
                continue
            for cls in module.classes.values():
                used = None
                for name, method in cls.methods.items():
                    if name in DUCK_EXCLUDED or name.startswith("_") or is_abstract(method):
                        continue
                    if used is None:
                        used = bool(sites_of(project, cls)) or f"{module.name}.{cls.name}" in named \
                            or cls.name in mentioned
                    if used:
                        table.setdefault(name, []).append(cls)
        return table
    return _memo(project, ("duck_table",), build)


def duck_callees(ctx, call: ast.Call) -> list[FunctionInfo]:
    """`recv.meth(...)` on a receiver of unknown class: the `meth` of the few project classes that define it
    and are used somewhere (none when more than `MAX_DUCK` do, or the name is too common). The ones the calling
    module defines or imports by name come first, and stand alone even when many classes define `meth`
    (`ac = torch.load(path)` in a script that defines the one actor-critic class of its own with `act`)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr in DUCK_EXCLUDED or func.attr.startswith("_"):
        return []
    classes = _defining_classes(ctx.project).get(func.attr, [])
    near = [cls for cls in classes if _named_by_module(ctx.project, ctx.module, cls)]
    if near and len(near) <= MAX_DUCK:   # the calling module's own: also among many (an unpickled model's class)
        return [cls.methods[func.attr] for cls in near]
    if not classes or len(classes) > MAX_DUCK:
        return []
    return [cls.methods[func.attr] for cls in classes]


def _named_by_module(project, module, cls: ClassInfo) -> bool:
    """The calling module defines or imports the class (by its defining or a re-exporting module): of several
    classes that define a method, the ones the caller's own module knows are the ones it is handed."""
    if cls.module == module.name:
        return True
    return any(project.class_of(target) is cls for name, target in module.imports.items() if name == cls.name)


def duck_candidates(project, method: str) -> list[ClassInfo]:
    return list(_defining_classes(project).get(method, []))


# ---------------------------------------------------------------------------------------------- registries
def _registries(project) -> dict[str, list[ClassInfo]]:
    """"module.GLOBAL" -> the classes (or functions) a decorator registry stores in that module-level dict:
    `@register("bang") class BangHead` where `register` (or the function it returns) does `HEADS[name] = cls`."""
    def build():
        stores: dict[str, list[str]] = {}    # decorator function id -> the "module.GLOBAL"s it fills
        for module in list(project.modules.values()):
            if project.is_library(module.name):
                continue
            for fn in module.functions.values():
                if fn.class_name is not None:
                    continue
                params = {a.arg for n in ast.walk(fn.node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                          for a in (*n.args.posonlyargs, *n.args.args)}
                aliases = global_aliases(fn.node, module)
                for node in ast.walk(fn.node):
                    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in params:
                        for target in node.targets:
                            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                                for table in ([target.value.id] if target.value.id in module.globals
                                              else aliases.get(target.value.id, [])):
                                    stores.setdefault(fn.id, []).append(f"{module.name}.{table}")
        members: dict[str, list] = {}
        if not stores:
            return members
        for module in list(project.modules.values()):
            if project.is_library(module.name):
                continue
            decorated = [*module.classes.values()]
            for item in decorated:
                for decorator in item.node.decorator_list:
                    func = decorator.func if isinstance(decorator, ast.Call) else decorator
                    name = project.qualify(func, module)
                    found = project.lookup(name) if name else None
                    if isinstance(found, FunctionInfo) and found.id in stores:
                        for table in stores[found.id]:
                            members.setdefault(table, []).append(item)
        return members
    return _memo(project, ("registries",), build)


def global_aliases(fn_node: ast.AST, module) -> dict[str, list[str]]:
    """Local names bound to module-level globals: `table = OBS_TERMS if kind == "obs" else ACTION_TERMS` ->
    {"table": ["OBS_TERMS", "ACTION_TERMS"]} (every global the name may be)."""
    out: dict[str, list[str]] = {}
    for node in walk(fn_node):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            options = [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
            names = [o.id for o in options if isinstance(o, ast.Name) and o.id in module.globals]
            if names and len(names) == len(options):
                out.setdefault(node.targets[0].id, []).extend(names)
    return out


def registry_members(project, qualified: str) -> list[ClassInfo]:
    """Classes a decorator registry stores in the module-level dict `qualified` ("app.heads.HEADS"); entry
    mode only (lint mode analyzes one file on its own)."""
    if ("duck",) not in project.memo:
        return []
    return list(_registries(project).get(qualified, []))


# ---------------------------------------------------------------------------------------------- eval of a config name
def config_named(ctx, call: ast.Call, module) -> list | None:
    """`eval(cfg.policy_head.network)`: the project classes or functions the configs name under that group
    and key, looked up as `eval` would, in the calling module's namespace; None when the call is no `eval`
    of a config value."""
    from leapp_codemod.analysis.model.config_groups import group_values
    func = call.func
    if not (isinstance(func, ast.Name) and func.id == "eval") or "eval" in module.imports \
            or "eval" in module.functions or len(call.args) != 1:
        return None
    arg = call.args[0]
    fn = enclosing_function(ctx.project, module, call) if isinstance(arg, ast.Name) else None
    if fn is not None and fn.name == "__init__" and arg.id in fn.params:
        group, key = "any config", arg.id   # `eval(conv_encoder)`: what the configs give that constructor key
        names = set().union(*(v for (_, k), v in group_values(ctx.project).items() if k == key))
    else:
        chain = config_chain(arg)
        if not chain or len(chain) < 2:
            return []
        group, key = chain[-2], chain[-1]
        names = group_values(ctx.project).get((group, key), ())
    out = []
    for name in sorted(names):
        qualified = ctx.project.qualify(ast.Name(id=name, ctx=ast.Load()), module) if "." not in name else name
        found = ctx.project.lookup(qualified) if qualified else None
        if isinstance(found, (ClassInfo, FunctionInfo)) and found not in out:
            out.append(found)
    if not out or len(out) > MAX_TARGETS:
        return []
    record(ctx.project, call, module.path, out, f"named by the configs' `{key}` under `{group}`")
    return out
