"""Instantiation sites: what the project passes to a class's constructor.

`self.env = env` in `HistoryWrapper.__init__` holds whatever the callers of `HistoryWrapper(...)` pass:
`HistoryWrapper(RobotAgent())` in a `__main__` block, `HistoryWrapper(env=agent)` after
`agent = RobotAgent()`. Every call of every project class is indexed once per scan (only when an
attribute assigned from a constructor parameter needs a type), with the names assigned in the
same scope so that a name passed along can be followed to the call that built it.
"""
from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from leapp_codemod.analysis.model.config_values import config_values, decided_block
from leapp_codemod.analysis.model.subclass_sites import spread_sites, subclass_sites
from leapp_codemod.analysis.model.handed import handed_types
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.resolve_types import annotation_classes
from leapp_codemod.knowledge.libraries import FOREIGN_ROOTS, MODELED_ROOTS
from leapp_codemod.knowledge.vocab import SELF_RETURNING_METHODS


@dataclass(frozen=True)
class Site:
    call: ast.Call
    module: ModuleIndex
    scope: dict[str, list[ast.expr]]     # names assigned in the scope of the call -> their values


def _scopes(tree: ast.Module, values: Callable[[], dict[str, frozenset]] | None = None, with_owner: bool = False):
    """The own nodes of the module body and of every function, nested ones separately (with `with_owner`, as
    (scope node, its nodes)); the block of an `if` on a config key the project's configs decide is left out
    (`if cfg["sim"]: env = Sim()`)."""
    pending: list[ast.AST] = [tree]
    while pending:
        scope = pending.pop()
        nodes, stack = [], list(ast.iter_child_nodes(scope))
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                pending.append(node)
                continue
            nodes.append(node)
            dead = decided_block(node.test, values) if isinstance(node, ast.If) and values is not None else None
            stack.extend(child for child in ast.iter_child_nodes(node)
                         if dead is None or child not in getattr(node, dead))
        yield (scope, nodes) if with_owner else nodes


def _own_instances(tree: ast.Module) -> dict[int, tuple[str, str]]:
    """id of each top-level class's method -> (its first parameter, the class's name): inside the method that
    parameter is an instance of the class (`Machine(self)` in `Robot.__init__` hands a Robot)."""
    out = {}
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for fn in cls.body:
            static = any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in
                         getattr(fn, "decorator_list", ()))
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.args and not static:
                out[id(fn)] = (fn.args.args[0].arg, cls.name)
    return out


def _instance_of(cls_name: str, where: ast.AST) -> ast.Call:
    """`Cls()`: a stand-in expression whose type is an instance of the class the scope's method belongs to."""
    return ast.copy_location(ast.Call(ast.Name(cls_name, ast.Load()), [], []), where)


def _index_sites(project: Project) -> dict[str, list[Site]]:
    sites: dict[str, list[Site]] = {}
    local_roots = {name.partition(".")[0] for name in project.modules if not project.is_library(name)}
    local_roots |= {alias.partition(".")[0] for alias, name in project.aliases.items()   # `from fake import X`
                    if not project.is_library(name)}
    values = partial(config_values, project)   # read only when an `if` names a config key
    for module in [m for m in project.modules.values() if not project.is_library(m.name)]:
        instances = _own_instances(module.tree)
        for owner, nodes in _scopes(module.tree, values, with_owner=True):
            scope: dict[str, list[ast.expr]] = {}
            if id(owner) in instances:
                me, cls_name = instances[id(owner)]
                scope[me] = [_instance_of(cls_name, owner)]
            calls = []
            for node in nodes:
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            scope.setdefault(target.id, []).append(node.value)
                        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, ast.Call):
                            for i, item in enumerate(target.elts):   # `net, stats = load(path)`: `load(path)[0]`
                                if isinstance(item, ast.Name):
                                    part = ast.Subscript(node.value, ast.Constant(i), ast.Load())
                                    scope.setdefault(item.id, []).append(ast.copy_location(part, node))
                elif isinstance(node, ast.Call):
                    calls.append(node)
            for call in calls:
                name = project.qualify(call.func, module)
                if not name:
                    continue
                if name.partition(".")[0] not in local_roots:
                    if name.partition(".")[0] not in UNFOLLOWED_ROOTS:
                        sites.setdefault(LIBRARY_KEY + name, []).append(Site(call, module, scope))
                    continue
                cls = project.class_of(name)
                if cls is not None:
                    sites.setdefault(cls.id, []).append(Site(call, module, scope))
    return sites


# Packages never followed (the rules model them) and the standard library: their calls build no followed class.
UNFOLLOWED_ROOTS = MODELED_ROOTS | FOREIGN_ROOTS | frozenset(sys.stdlib_module_names)

# Key prefix of the project's calls of names outside it (`tensordict.nn.TensorDictModule(Head(), ...)`), by the
# dotted name they are called through: sites of an installed library's classes, found when one is asked for.
LIBRARY_KEY = "library:"


def _library_sites(project: Project, cls: ClassInfo) -> list[Site]:
    """The project's own calls that build an installed library's class (through any name it is exported as)."""
    by_class = sites_by_class(project)
    key = ("library_sites", cls.id, project.own_module_count())
    if key not in project.memo:
        project.memo[key] = [site for name, found in by_class.items() if name.startswith(LIBRARY_KEY)
                             and name.rpartition(".")[2] == cls.name
                             and project.class_of(name[len(LIBRARY_KEY):]) is cls for site in found]
    return project.memo[key]


def _direct_sites(project: Project, cls: ClassInfo) -> list[Site]:
    """The sites the project writes for `cls` itself (a library class by its exported names)."""
    if not project.is_library(cls.module):
        return sites_of(project, cls)
    every = [site for name, found in sites_by_class(project).items() if name.startswith(LIBRARY_KEY) for site in found]
    return _library_sites(project, cls) + [Site(call, site.module, site.scope)
                                           for call, site in spread_sites(project, cls, every)]


def sites_by_class(project: Project) -> dict[str, list[Site]]:
    """Every call of a project class in the project's own modules: class id -> sites."""
    key = ("sites", project.own_module_count())
    if key not in project.memo:
        project.memo[key] = _index_sites(project)
    return project.memo[key]


def sites_of(project: Project, cls: ClassInfo) -> list[Site]:
    """Calls that build `cls` or a subclass that inherits its `__init__`."""
    by_class = sites_by_class(project)
    init = project.find_method(cls, "__init__")
    if project.is_library(cls.module):
        key = ("forwarded sites", cls.id, len(project.modules))
        if key not in project.memo:
            project.memo[key] = []   # a class reached again while its sites are gathered adds nothing more
            found = _direct_sites(project, cls) + [Site(call, site.module, site.scope) for call, site
                                                   in subclass_sites(project, cls, _direct_sites, argument_for)]
            project.memo[key] = list({(id(s.call.func), s.call.lineno, s.call.col_offset,
                                       tuple((k.arg, id(k.value)) for k in s.call.keywords)): s for s in found}.values())
        return project.memo[key]
    out = list(by_class.get(cls.id, ()))
    for class_id, found in by_class.items():
        if class_id == cls.id or not found or class_id.startswith(LIBRARY_KEY):
            continue
        other = project.class_of(class_id.replace(":", "."))
        if other is not None and init is not None and project.find_method(other, "__init__") is init:
            out += found
    return out


def script_argument_types(project: Project, fn: FunctionInfo) -> dict[str, set[str]]:
    """The classes the project's code passes for the parameters of a plain function: a script that builds
    `planner = MPCPlanner(...)` (at its top level or in `main()`) and then calls `act(env, planner, obs)`, also
    through functions that pass it on, a `functools.partial` and a lambda (`handed_types`)."""
    if fn.class_name is not None:
        return {}
    return handed_types(project, fn)


def enclosing_argument_types(project: Project, fn: FunctionInfo, rng) -> dict[str, set[str]]:
    """For an inline range's synthetic function `fn`: the classes the callers of the function around the
    range pass for its parameters the range reads and never rebinds (`agent.sample(...)` in a loop of
    `evaluate(env, agent)`, called with an `agent = DDPM(...)` built in an if-chain of the caller; a
    TorchScript module `torch.jit.load` returns)."""
    module = project.modules.get(fn.module)
    enclosing = module.functions.get(rng.scope_qualname) if module is not None and rng.scope_qualname else None
    if enclosing is None or enclosing is fn:
        return {}
    out = {p: c for p, c in handed_types(project, enclosing).items() if p in fn.params}
    args = enclosing.node.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):   # `def evaluate(self, net: Net = None)`
        if arg.arg in fn.params and arg.annotation is not None:
            declared = annotation_classes(project, arg.annotation, module)
            if declared:
                out.setdefault(arg.arg, set()).update(declared)
    return out


def calls_named(project) -> dict[str, list[tuple[ast.Call, dict, ModuleIndex]]]:
    """Every call in the project's own modules by the name it calls (`f(...)`, `obj.f(...)`), with the
    names its scope binds and its module (memoised per scan)."""
    key = ("calls_named",)
    found = project.memo.get(key)
    if found is not None:
        return found
    found = project.memo[key] = {}
    values = partial(config_values, project)   # read only when an `if` names a config key
    for module in list(project.modules.values()):
        if project.is_library(module.name):
            continue
        for nodes in _scopes(module.tree, values):
            scope: dict[str, list[ast.expr]] = {}
            for node in nodes:
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            scope.setdefault(target.id, []).append(node.value)
            for node in nodes:
                if isinstance(node, ast.Call):
                    func = node.func
                    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
                    if name:
                        found.setdefault(name, []).append((node, scope, module))
    return found


def argument_for(init: FunctionInfo, call: ast.Call, param: str) -> ast.expr | None:
    """The expression a constructor call passes for `param` of `__init__` (self excluded)."""
    positional = init.positional_params[1:]
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if i < len(positional) and positional[i] == param:
            return arg
    for kw in call.keywords:
        if kw.arg == param:
            return kw.value
    return None


def passed_argument(fn: FunctionInfo, call: ast.Call, param: str) -> ast.expr | None:
    """The expression `call` passes for `param` of `fn` (a method called bound: `self` is not passed)."""
    positional = fn.positional_params[1:] if fn.is_method else fn.positional_params
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if i < len(positional) and positional[i] == param:
            return arg
    return next((k.value for k in call.keywords if k.arg == param), None)


def handed_call(call: ast.Call, handoff: tuple[str, int, str, int]) -> ast.Call | None:
    """The call a thread or process will make: `Thread(target=f, args=(a, b))` as `f(a, b)`."""
    func_kw, func_pos, args_kw, args_pos = handoff
    keywords = {k.arg: k.value for k in call.keywords}
    func = keywords.get(func_kw, call.args[func_pos] if len(call.args) > func_pos else None)
    args = keywords.get(args_kw, call.args[args_pos] if len(call.args) > args_pos else None)
    if func is None or isinstance(func, ast.Constant):
        return None
    elts = list(args.elts) if isinstance(args, (ast.Tuple, ast.List)) else []
    return ast.copy_location(ast.Call(func=func, args=elts, keywords=[]), call)


def applied_call(call: ast.Call) -> ast.Call | None:
    """The call an applier (ELEMENT_APPLIERS) makes on each item: `map(f, xs, ys)` as `f(xs[0], ys[0])`."""
    if len(call.args) < 2 or isinstance(call.args[0], (ast.Constant, ast.Starred)):
        return None
    items = [ast.copy_location(ast.Subscript(value=a, slice=ast.Constant(0), ctx=ast.Load()), a)
             for a in call.args[1:] if not isinstance(a, ast.Starred)]
    return ast.copy_location(ast.Call(func=call.args[0], args=items, keywords=[]), call)


def param_default(init, param: str) -> ast.expr | None:
    """The default value a function gives its parameter `param` (positional or keyword-only), if any."""
    args = init.node.args
    positional = [*args.posonlyargs, *args.args]
    for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        if arg.arg == param:
            return default
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if arg.arg == param:
            return default
    return None


def forwarded_sites(project, sub: ClassInfo, init) -> list | None:
    """The construction sites of `sub` as calls of the base `init`, when `sub.__init__` only forwards
    (`def __init__(self, ModelCls=Atari, **kwargs): super().__init__(ModelCls=ModelCls, **kwargs)`): what
    the site passes reaches the base through `**kwargs`, the subclass's own parameters as it forwards them.
    None when the subclass's constructor does anything else."""
    own = sub.methods["__init__"]
    parent = next((k for k in project.mro(sub)[1:] if "__init__" in k.methods), None)
    body = [st for st in own.node.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
    kwarg = own.node.args.kwarg.arg if own.node.args.kwarg else None
    if parent is None or parent.methods["__init__"] is not init or len(body) != 1 or kwarg is None \
            or own.node.args.vararg is not None or not isinstance(body[0], ast.Expr):
        return None
    call = body[0].value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"
            and isinstance(call.func.value, ast.Call) and isinstance(call.func.value.func, ast.Name) and call.func.value.func.id == "super"
            and not call.args and [k.value.id for k in call.keywords if k.arg is None
                                   and isinstance(k.value, ast.Name)] == [kwarg]
            and sum(k.arg is None for k in call.keywords) == 1):
        return None
    own_params = set(own.params[1:])
    out = []
    for site in sites_of(project, sub):
        keywords = [k for k in site.call.keywords if k.arg not in own_params]   # through **kwargs (and `**x`)
        for kw in (k for k in call.keywords if k.arg is not None):
            value = kw.value
            if isinstance(value, ast.Name) and value.id in own_params:
                value = argument_for(own, site.call, value.id) or param_default(own, value.id)
            if value is None or len(site.call.args) > len(own.positional_params) - 1:
                return None
            keywords.append(ast.keyword(arg=kw.arg, value=value))
        out.append(Site(ast.Call(func=site.call.func, args=[], keywords=keywords), site.module, site.scope))
    return out
