"""Construction sites of a library class reached through the constructors of its subclasses.

A library class stores what its constructor is given: skrl's `Agent.__init__(models=...)` keeps `self.models`,
Stable-Baselines3's `BaseAlgorithm.__init__(policy, ...)` keeps `self.policy_class`. The project never calls
that base; it builds a subclass (`PPO(models={"policy": MyPolicy(...)})`, `PPO(MyPolicy, env)`) whose own
`__init__` hands its parameters on (`super().__init__(models=models, ...)`, `Base.__init__(self, policy, env)`,
`super().__init__(*args, **kwargs)`), sometimes through several levels. Each project call of such a subclass
(or of a class that inherits one of those constructors) is a site of the base too: here it is rewritten as a
call of the base's constructor whose keywords are the project's own argument expressions, so every question
asked about what a constructor parameter holds (`argument_for`, the names the site's scope binds) reads the
project's values. Only what a forwarding call passes from the subclass constructor's own parameters is carried
over; values the library computes itself are its own code (followed or known), not the project's.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.model.function_values import enclosing_function
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo

MAX_LEVELS = 4

# `**...` in a rewritten call: the constructor is given more than the project's site shows (values the library
# computes or passes itself), so a parameter the call does not name is unknown, never its default.
_UNKNOWN_REST = ast.keyword(arg=None, value=ast.Name(id="library_arguments", ctx=ast.Load(), lineno=1, col_offset=0,
                                                     end_lineno=1, end_col_offset=0))


@dataclass(frozen=True)
class Rewritten:
    """A call read in the module and scope of the project site it stands for."""

    call: ast.Call
    module: object
    scope: dict


@dataclass(frozen=True)
class Forward:
    """How a subclass constructor calls its base's: the base parameter -> the subclass parameter it passes,
    and the subclass's `**kwargs` name when it hands that on whole."""

    params: tuple[tuple[str, str], ...]
    spread: str | None
    complete: bool     # nothing else is passed (no value the library computes itself)


def subclass_sites(project, cls: ClassInfo, direct, argument_for, depth: int = 0) -> list:
    """Project sites of the subclasses of library class `cls` whose constructors reach `cls.__init__`, each as
    (synthetic call of `cls`, the outer site whose module and scope it is read in). `direct(project, klass)` gives
    the sites the project writes for a class itself (their `call`, `module`, `scope`); `argument_for(init, call,
    param)` what a call passes for a constructor parameter."""
    init = project.find_method(cls, "__init__")
    if init is None or depth > MAX_LEVELS:
        return []
    out = []
    for sub in _direct_subclasses(project, cls):
        sub_init = project.find_method(sub, "__init__")
        outer = [Rewritten(s.call, s.module, s.scope) for s in direct(project, sub)]
        if project.is_library(sub.module):
            outer += [Rewritten(call, site.module, site.scope)
                      for call, site in subclass_sites(project, sub, direct, argument_for, depth + 1)]
        if sub_init is init:
            out += [(site.call, site) for site in outer]   # the subclass keeps the base's constructor
            continue
        forward = _forward(project, sub, sub_init, init)
        if forward is None:
            continue
        out += [(_rewritten(project, site, sub_init, forward, argument_for), site) for site in outer]
    return out


def _direct_subclasses(project, cls: ClassInfo) -> list[ClassInfo]:
    from leapp_codemod.analysis.model.resolve_types import subclasses
    return [sub for sub in subclasses(project, cls) if any(b is cls for b in project.bases(sub))]


def _forward(project, sub: ClassInfo, sub_init: FunctionInfo, init: FunctionInfo) -> Forward | None:
    """The call in `sub_init` that runs `init` (`super().__init__(...)`, `Base.__init__(self, ...)`), read as
    which of `sub_init`'s parameters it passes for which of `init`'s."""
    if sub.methods.get("__init__") is not sub_init:
        return None
    module = project.modules[sub_init.module]
    own = set(sub_init.params)
    spread_param = sub_init.node.args.kwarg.arg if sub_init.node.args.kwarg is not None else None
    for node in sub_init.nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"):
            continue
        owner = node.func.value
        if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
            target = next((k.methods["__init__"] for k in project.mro(sub)[1:] if "__init__" in k.methods), None)
            positional = init.positional_params[1:]
            args = node.args
        else:
            base = project.class_of(project.qualify(owner, module) or "")
            target = project.find_method(base, "__init__") if base is not None else None
            positional = init.positional_params[1:]
            args = node.args[1:]   # `Base.__init__(self, ...)`
        if target is not init:
            continue
        pairs: list[tuple[str, str]] = []
        passed = 0
        for i, arg in enumerate(args):
            if isinstance(arg, ast.Starred):
                passed += 1
                break
            passed += 1
            if i < len(positional) and isinstance(arg, ast.Name) and arg.id in own:
                pairs.append((positional[i], arg.id))
        spread = None
        for kw in node.keywords:
            passed += 1
            if kw.arg is None and isinstance(kw.value, ast.Name) and kw.value.id == spread_param:
                spread = spread_param
                passed -= 1
            elif kw.arg is not None and isinstance(kw.value, ast.Name) and kw.value.id in own:
                pairs.append((kw.arg, kw.value.id))
        return Forward(tuple(pairs), spread, passed == len(pairs))
    return None


def _rewritten(project, site, sub_init: FunctionInfo, forward: Forward, argument_for) -> ast.Call:
    """The outer site's call as a call of the base constructor: keywords from the outer argument expressions."""
    keywords = []
    for base_param, own_param in forward.params:
        value = argument_for(sub_init, site.call, own_param)
        if value is not None:
            keywords.append(ast.keyword(arg=base_param, value=value))
    if forward.spread is not None:   # `**kwargs` handed on: the outer keywords the subclass does not name
        named = set(sub_init.params)
        keywords += [k for k in site.call.keywords if k.arg is None or k.arg not in named]
    if not forward.complete or any(isinstance(a, ast.Starred) for a in site.call.args):
        keywords.append(_UNKNOWN_REST)   # what else the base is given is the library's: unknown to the site
    call = ast.copy_location(ast.Call(func=site.call.func, args=[], keywords=keywords), site.call)
    _keep(project, site, call)
    return call


def spread_sites(project, cls: ClassInfo, library_sites: list) -> list:
    """Sites of library class `cls` a project writes as a keyword dict another library object spreads into its
    constructor: `PPO("MlpPolicy", env, policy_kwargs=dict(features_extractor_class=Lidar, net_arch=[64]))`, which
    SB3 builds as `self.policy_class(..., **self.policy_kwargs)`. A `*_kwargs` argument whose keys are all
    parameters of `cls.__init__` (or that takes `**kwargs`), one at least, is such a site: given as the call
    `cls(**that dict, **<the library's own arguments>)` with the site it is read in. `library_sites` are the
    project's calls of installed libraries' classes."""
    init = project.find_method(cls, "__init__")
    if init is None:
        return []
    names = set(init.params[1:])
    spread = init.node.args.kwarg is not None
    out = []
    for site in library_sites:
        for kw in site.call.keywords:
            if kw.arg is None or not kw.arg.endswith("kwargs"):
                continue
            for items in _dict_items(kw.value, site.scope):
                if items and (spread or all(k in names for k, _ in items)) and any(k in names for k, _ in items):
                    keywords = [*(ast.keyword(arg=k, value=v) for k, v in items), _UNKNOWN_REST]
                    call = ast.copy_location(ast.Call(func=site.call.func, args=[], keywords=keywords), site.call)
                    _keep(project, site, call)
                    out.append((call, site))
    return out


def _dict_items(value: ast.expr, scope: dict) -> list[list[tuple[str, ast.expr]]]:
    """The (key, value) pairs of a dict a keyword argument passes: a literal, `dict(a=...)`, or a name the
    site's scope binds to one of those."""
    if isinstance(value, ast.Name):
        return [items for bound in scope.get(value.id, ()) if not isinstance(bound, ast.Name)
                for items in _dict_items(bound, scope)]
    if isinstance(value, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
        return [[(k.value, v) for k, v in zip(value.keys, value.values)]]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" and not value.args \
            and all(k.arg is not None for k in value.keywords):
        return [[(k.arg, k.value) for k in value.keywords]]
    return []


def _keep(project, site, call: ast.Call) -> None:
    fn = enclosing_function(project, site.module, site.call)
    project.memo[("enclosing", site.module.name)][id(call)] = fn   # the rewritten call lies where the outer one does
    project.memo.setdefault(("forwarded calls",), []).append(call)   # kept alive while the memo holds its id


CLASS_SUFFIXES = ("_class", "_cls", "Cls", "Class")


def class_keyword(call: ast.Call, param: str) -> ast.expr | None:
    """The class a site names for the object a library builds into `param` (`features_extractor_class=Lidar` for
    `features_extractor`): the library's `*_class` + `*_kwargs` convention, read when the site passes no value."""
    names = {param + suffix for suffix in CLASS_SUFFIXES}
    return next((k.value for k in call.keywords if k.arg in names and isinstance(k.value, (ast.Name, ast.Attribute))),
                None)
