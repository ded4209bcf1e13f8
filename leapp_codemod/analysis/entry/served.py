"""The model a policy getter serves: `policy = runner.get_inference_policy()` then `policy(obs)` in a loop.

A getter (named with a getter word and a served word: `get_inference_policy`, `load_policy`, `make_policy`)
returns an object built from a project class (`return Policy(...)`, `-> MLPModel`) or a bound method of the
model it holds (`return self.alg.actor_critic.act_inference`). Calling the local it was bound to calls that
class's call target or that method. A getter called on an object of unknown class (`runner` from a registry)
stands for the project getters of that name, when there are few of them.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.entry.drivers import name_words
from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.infer.lattice import Facts
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.project import Project

GETTER_WORDS = frozenset({"get", "load", "make", "build", "create", "restore"})
# ... of the policy the application runs (`get_inference_policy`, `make_policy`), not of a part of it.
SERVED_WORDS = frozenset({"policy", "inference"})
# A getter called on an unknown receiver stands for at most this many project getters of its name.
MAX_DUCK_GETTERS = 3


def _returned(fn: FunctionInfo) -> tuple[list[ast.expr], list[ast.Attribute]]:
    """What `fn` returns: constructors/annotations (callee expressions) and bound methods (`self.m.act`)."""
    returned = [fn.node.returns] if fn.node.returns is not None else []
    methods: list[ast.Attribute] = []
    built: dict[str, list[ast.expr]] = {}
    for node in ast.walk(fn.node):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    built.setdefault(target.id, []).append(node.value.func)
    for node in ast.walk(fn.node):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
            returned.append(node.value.func)
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
            returned += built.get(node.value.id, [])
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Attribute):
            methods.append(node.value)
    return returned, methods


def served_models(project: Project, support) -> dict[str, FunctionInfo]:
    """Call targets of what a policy getter, loader or factory returns: fid -> the getter."""
    out: dict[str, FunctionInfo] = {}
    for fn in project.functions():
        words = name_words(fn.name)
        if not (words & GETTER_WORDS and words & SERVED_WORDS):
            continue
        module = project.modules[fn.module]
        returned, methods = _returned(fn)
        for expr in returned:
            name = project.qualify(expr, module) if isinstance(expr, (ast.Name, ast.Attribute)) else None
            cls = project.class_of(name)
            target = project.call_target(cls) if cls is not None else None
            if target is not None:
                out.setdefault(target.id, fn)
        if methods:   # `return self.alg.actor_critic.act_inference`: what calling the bound method runs
            ctx = FunctionContext(fn, module, project, Facts(), support)
            for attr in methods:
                call = ast.copy_location(ast.Call(func=attr, args=[], keywords=[]), attr)
                for target in ctx.resolve_call(call):
                    out.setdefault(target.id, fn)
    return out


def dotted(fid: str) -> str:
    return fid.replace(":", ".")


def is_project_call(call: ast.Call, served_locals: dict[str, list[str]], resolved: set[int]) -> bool:
    if id(call) in resolved:
        return True
    return isinstance(call.func, ast.Name) and bool(served_locals.get(call.func.id))


def served_locals(fn: FunctionInfo, resolved: dict[ast.Call, list], by_getter: dict[str, list[str]],
                  getters_named: dict[str, list[str]]) -> dict[str, list[str]]:
    """Local names bound to what a policy getter returns: name -> call targets of the served models.

    `policy = make_policy(cfg)` then `policy(obs)` in a loop calls the served model. `getters_named`: getter
    name -> ids of the project getters so named, for a getter called on an object of unknown class."""
    out: dict[str, list[str]] = {}
    for node in ast.walk(fn.node):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            getters = [g.id for g in resolved.get(node.value, ())]
            func = node.value.func
            if not getters and isinstance(func, ast.Attribute):
                named = getters_named.get(func.attr, [])
                getters = named if len(named) <= MAX_DUCK_GETTERS else []
            for getter in getters:
                for name in targets:
                    out.setdefault(name, []).extend(by_getter.get(getter, []))
    return out
