"""Objects the caller keeps from one call of the step to the next: the driver builds `mem = {...}` (or a list,
an array, a small object) once and passes the same object on every iteration of its loop
(`for t in range(n): act = step(obs, mem)`). What the step writes into it, the next call reads: recurrent
state, even though it lives neither on `self` nor in a global. Also a module-level container the step fills
(`HIST = {}` at the top of the module, `HIST["prev"] = x` in the step)."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.command_line import module_scopes
from leapp_codemod.analysis.model.index import called_name

# Calls that build an empty or filled container a module keeps (`deque(maxlen=4)`, `dict()`).
CONTAINER_BUILDERS = frozenset({"dict", "list", "deque", "OrderedDict", "defaultdict"})


def kept_arguments(project, fn) -> frozenset[str]:
    """Parameters of the entry `fn` that some call in the project, inside a loop, passes a name bound before
    that loop and never rebound in it: the same object on every call. Calls are matched by the function's
    name, like `caller_settings`."""
    params = fn.positional_params[1:] if fn.is_method else fn.positional_params
    required = set(params[:len(params) - len(fn.node.args.defaults)])
    kept: set[str] = set()
    for module in list(project.modules.values()):
        if project.is_library(module.name):
            continue
        for scope in module_scopes(project, module):
            for loop in (n for n in ast.walk(scope) if isinstance(n, (ast.For, ast.While))):
                rebound = _bound_in(loop)
                for node in ast.walk(loop):
                    if not (isinstance(node, ast.Call) and called_name(node.func) == fn.name):
                        continue
                    passed = [(params[i], a) for i, a in enumerate(node.args)
                              if i < len(params) and not isinstance(a, ast.Starred)]
                    passed += [(k.arg, k.value) for k in node.keywords if k.arg in params]
                    if len(node.args) > len(params) or not required <= {p for p, _ in passed}:
                        continue   # another function of the same name (`env.step(cmd)`), not a call of the entry
                    kept.update(p for p, a in passed if isinstance(a, ast.Name) and a.id not in rebound
                                and _own_object(project, module, _bound_before(scope, a.id, loop.lineno)))
    return frozenset(kept)


def _bound_in(loop: ast.AST) -> set[str]:
    """Names the loop (its target included) binds."""
    return {n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


# Libraries whose constructors build a plain container or array the caller keeps (`np.zeros(5)`, `deque()`).
CONTAINER_LIBRARIES = frozenset({"numpy", "torch", "collections", "copy"})


def _bound_before(scope: ast.AST, name: str, line: int) -> ast.expr | None:
    """The value `name` is last bound to in `scope` above `line`."""
    found = None
    for node in ast.walk(scope):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno < line and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets) \
                    and (found is None or node.lineno > found.lineno):
                found = node
    return found.value if found is not None else None


def _own_object(project, module, value: ast.expr | None) -> bool:
    """Is `value` a container or an object of the application's own (a literal, a comprehension, an array
    or container constructor, a project class), not a number and not a library's object (a simulator's
    data, whose fields the library reads and writes)?"""
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp)):
        return True
    if not isinstance(value, ast.Call):
        return False
    if called_name(value.func) in CONTAINER_BUILDERS:
        return True
    name = project.qualify(value.func, module)
    if not name:
        return False
    if project.lookup(name) is not None:
        return True
    return project.external_name(name).partition(".")[0] in CONTAINER_LIBRARIES


def module_container(module, name: str) -> bool:
    """Is the module global `name` a container the module keeps (`{}`, `[]`, `deque(maxlen=3)`, `dict()`)?"""
    value = module.globals.get(name)
    if isinstance(value, (ast.Dict, ast.List)):
        return True
    return isinstance(value, ast.Call) and called_name(value.func) in CONTAINER_BUILDERS
