"""What the project's code hands a function's parameter, followed back through the functions that only pass
it on.

`run.py` builds `model = ParcelNet()` and calls `conveyor(frames, classifier=model)`; `conveyor` passes its
`classifier` on as `shift(f, net=classifier)`, and `shift` as `pick_bin(frame, sorter=net)`: what `pick_bin`'s
`sorter` holds is the `ParcelNet()` three calls up. Followed the same way: a `functools.partial(pick_bin,
sorter=model)` (its arguments are the call's), a lambda that calls the function (`lambda f: pick_bin(f, model)`:
a name the lambda does not bind is its enclosing scope's), a method called on `self` by the class's own
methods, and one called on an object the caller's class builds (`self.timers.arm(cb)` with `self.timers =
Pacer(self)`). Used for the parameters of an entry function and of the function an inline range is cut from, whose
callers the analysis does not reach (it starts at the entry).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.model.index import FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.libraries import in_project, library_available
from leapp_codemod.analysis.model.returned_classes import built_classes
from leapp_codemod.knowledge.libraries import RUNTIME_FACTORIES
from leapp_codemod.knowledge.vocab import SELF_RETURNING_METHODS

MAX_HOPS = 4          # functions a value may be passed on through
PARTIALS = frozenset({"functools.partial", "functools.partialmethod"})


@dataclass(frozen=True)
class Handed:
    """One value a parameter may hold: the expression that makes it, where, and the functions that passed it
    on (`("shift", "conveyor")`: `shift` got it from `conveyor`, which bound it)."""

    value: ast.expr
    module: ModuleIndex
    line: int
    through: tuple[str, ...] = ()
    holder: FunctionInfo | None = None   # the function the value is written in (its `self` is that class's)


@dataclass
class _Scope:
    node: ast.AST
    params: frozenset[str]
    function: FunctionInfo | None
    bindings: dict[str, list[tuple[ast.expr, int]]] = field(default_factory=dict)


@dataclass(frozen=True)
class _Site:
    call: ast.Call
    module: ModuleIndex
    chain: tuple[_Scope, ...]   # innermost scope first


def handed_values(project: Project, fn: FunctionInfo, param: str, hops: int = 0,
                  through: tuple[str, ...] = ()) -> list[Handed]:
    """Every value the project's calls of `fn` hand its parameter `param` (`None` left out)."""
    key = ("handed", fn.id, param)
    active = project.memo.setdefault(("handed active",), set())
    if key in active or hops > MAX_HOPS:
        return []
    active.add(key)
    try:
        out: list[Handed] = []
        for site, arg in _arguments(project, fn, param):
            out += _follow(project, site, arg, hops, through)
        return out
    finally:
        active.discard(key)


def handed_types(project: Project, fn: FunctionInfo) -> dict[str, set[str]]:
    """Parameter -> the classes the handed values are built as: project classes as "module:Class", and the
    dotted callee of an installed library's constructor or loader (`torch.jit.load`), whose object is known."""
    out: dict[str, set[str]] = {}
    for param in fn.params:
        for handed in handed_values(project, fn, param):
            value = handed.value
            while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr in SELF_RETURNING_METHODS and isinstance(value.func.value, ast.Call):
                value = value.func.value   # `Net(...).to(device)` is the Net
            name = project.qualify(value.func, handed.module) if isinstance(value, ast.Call) else None
            returned = built_classes(project, value, handed.module)   # `load_policy(path)` returns a Net
            if returned:
                out.setdefault(param, set()).update(returned)
            if not name:
                continue
            cls = project.class_of(name)
            if cls is not None:
                out.setdefault(param, set()).add(cls.id)
            elif not in_project(project, name) and library_available(project, name) \
                    and project.external_name(name) not in RUNTIME_FACTORIES and "." in name:
                out.setdefault(param, set()).add(project.external_name(name))
    return out


def _follow(project: Project, site: _Site, arg: ast.expr, hops: int, through: tuple[str, ...],
            renamed: frozenset[str] = frozenset()) -> list[Handed]:
    """`renamed`: the names already followed in this scope chain (`a = b` ... `b = a` is a cycle, not a value)."""
    if isinstance(arg, ast.Constant) and arg.value is None:
        return []
    if not isinstance(arg, ast.Name):
        return [Handed(arg, site.module, arg.lineno, through, _holder(site))]
    for depth, scope in enumerate(site.chain):
        if arg.id in scope.bindings:
            out: list[Handed] = []
            for value, line in scope.bindings[arg.id]:
                if isinstance(value, ast.Name):   # `net = classifier`
                    if value.id != arg.id and value.id not in renamed:
                        out += _follow(project, _Site(site.call, site.module, site.chain[depth:]), value, hops,
                                       through, renamed | {arg.id})
                elif not (isinstance(value, ast.Constant) and value.value is None):
                    out.append(Handed(value, site.module, line, through, _holder(site)))
            return out
        if arg.id in scope.params:   # passed on: what the callers of that function hand it
            if scope.function is None:
                return []   # a lambda's own parameter: whoever calls the lambda decides
            return handed_values(project, scope.function, arg.id, hops + 1, (*through, scope.function.qualname))
    return [Handed(arg, site.module, arg.lineno, through, _holder(site))]   # a module-level function or class


def _holder(site: _Site) -> FunctionInfo | None:
    return next((s.function for s in site.chain if s.function is not None), None)


def _arguments(project: Project, fn: FunctionInfo, param: str) -> list[tuple[_Site, ast.expr]]:
    """(site, argument) of each call of `fn` (and each `functools.partial` of it) that passes `param`."""
    dotted = f"{fn.module}.{fn.qualname}"
    constructor = fn.name == "__init__" and fn.class_name is not None
    out = []
    for site in _calls(project).get(fn.class_name if constructor else fn.name, ()):
        call, module = site.call, site.module
        if constructor:   # `Picker(net, opts)`: the class's construction sites
            if project.qualify(call.func, module) != f"{fn.module}.{fn.class_name}":
                continue
            args, offset = call.args, 1
        elif isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                and call.func.value.id == "self":
            if not (fn.is_method and _same_class(project, site, fn)):
                continue
            args, offset = call.args, 1
        elif fn.class_name is None and project.qualify(call.func, module) == dotted:
            args, offset = call.args, 0
        elif fn.is_method and isinstance(call.func, ast.Attribute) and _built_receiver(project, site, fn):
            args, offset = call.args, 1   # `runner.rollout(policy, env)` with `runner = Runner(...)`
        else:
            continue
        arg = _passed(fn, args, call.keywords, param, offset)
        if arg is not None:
            out.append((site, arg))
    for site in _calls(project).get("partial", ()) if fn.class_name is None else ():
        call = site.call
        if call.args and project.external_name(project.qualify(call.func, site.module) or "") in PARTIALS \
                and project.qualify(call.args[0], site.module) == dotted:
            arg = _passed(fn, call.args[1:], call.keywords, param, 0)
            if arg is not None:
                out.append((site, arg))
    return out


def _built_receiver(project: Project, site: _Site, fn: FunctionInfo) -> bool:
    """`obj.meth(...)` with `obj` built in sight as `fn`'s class or a subclass (`runner = Runner(10)`, or
    `Runner(10).rollout(...)`), every binding of it such a construction."""
    receiver = site.call.func.value
    values = [receiver] if isinstance(receiver, ast.Call) else []
    if isinstance(receiver, ast.Name):
        scope = next((s for s in site.chain if receiver.id in s.bindings), None)
        values = [v for v, _ in scope.bindings[receiver.id]] if scope is not None else []
    elif isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) \
            and receiver.value.id == "self":   # `self.timers.set_timer(...)` with `self.timers = TimerManager(...)`
        values = [v for v in _self_attr_values(project, site, receiver.attr)
                  if not (isinstance(v, ast.Constant) and v.value is None)]
    if not values:
        return False
    for value in values:
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr in SELF_RETURNING_METHODS and isinstance(value.func.value, ast.Call):
            value = value.func.value
        cls = project.class_of(project.qualify(value.func, site.module)) if isinstance(value, ast.Call) else None
        if cls is None or all(k.id != f"{fn.module}:{fn.class_name}" for k in project.mro(cls)):
            return False
    return True


def _self_attr_values(project: Project, site: _Site, attr: str) -> list[ast.expr]:
    """Every value the class of the method the site is in (and its bases) binds to `self.<attr>`."""
    owner = _holder(site)
    cls = project.modules[owner.module].classes.get(owner.class_name) if owner and owner.class_name else None
    return [value for klass in (project.mro(cls) if cls is not None else ()) for _, value in
            klass.attr_values.get(attr, ())]


def _same_class(project: Project, site: _Site, fn: FunctionInfo) -> bool:
    """The `self.meth(...)` site is in a method of `fn`'s class or of a subclass."""
    owner = _holder(site)
    if owner is None or owner.class_name is None:
        return False
    cls = project.modules[owner.module].classes.get(owner.class_name)
    return cls is not None and any(k.id == f"{fn.module}:{fn.class_name}" for k in project.mro(cls))


def _passed(fn: FunctionInfo, args: list[ast.expr], keywords: list[ast.keyword], param: str,
            offset: int) -> ast.expr | None:
    positional = fn.positional_params[offset:]
    for i, arg in enumerate(args):
        if isinstance(arg, ast.Starred):
            return None
        if i < len(positional) and positional[i] == param:
            return arg
    return next((k.value for k in keywords if k.arg == param), None)


def _calls(project: Project) -> dict[str, list[_Site]]:
    """Every call in the project's own modules by the name it calls, with the chain of scopes around it
    (memoised per scan)."""
    key = ("handed calls",)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = {}
        for module in list(project.modules.values()):
            if not project.is_library(module.name):
                functions = {id(f.node): f for f in module.functions.values()}
                _walk(module.tree, (_Scope(module.tree, frozenset(), None),), module, functions, found)
    return found


def _walk(node: ast.AST, chain: tuple[_Scope, ...], module: ModuleIndex, functions: dict,
          found: dict[str, list[_Site]]) -> None:
    scope = chain[0]
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = child.args
            params = frozenset(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
            inner = _Scope(child, params, functions.get(id(child)))
            outer = tuple(s for s in chain if not isinstance(s.node, ast.ClassDef))   # methods skip the class body
            _walk(child, (inner, *outer), module, functions, found)
            continue
        if isinstance(child, ast.ClassDef):
            _walk(child, (_Scope(child, frozenset(), None), *chain), module, functions, found)
            continue
        if isinstance(child, (ast.Assign, ast.AnnAssign)) and child.value is not None:
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    scope.bindings.setdefault(target.id, []).append((child.value, child.lineno))
                elif isinstance(target, (ast.Tuple, ast.List)):   # `model, norm = load(...)`: `load(...)[0]`
                    for i, item in enumerate(target.elts):
                        if isinstance(item, ast.Name):
                            part = ast.copy_location(ast.Subscript(child.value, ast.Constant(i), ast.Load()), child)
                            scope.bindings.setdefault(item.id, []).append((part, child.lineno))
        elif isinstance(child, ast.Call):
            func = child.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name:
                found.setdefault(name, []).append(_Site(child, module, chain))
        _walk(child, chain, module, functions, found)
