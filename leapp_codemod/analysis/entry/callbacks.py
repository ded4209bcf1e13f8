"""Functions a framework calls again and again: handed to a timer, a subscription, a callback registry or a
thread (`self.create_timer(dt, self.control_loop)`, `RecurrentThread(target=self.step)`). A registered
function is driven like a loop body, and its own body is a place a pipeline may be written inline.

A function a packaging file installs as a command (`'drive = pkg.node:main'` in a setup.py's
`console_scripts`, how ROS 2 Python packages start their nodes; `[project.scripts]` in a pyproject.toml, a
setup.cfg's `console_scripts`: see commands.py) is a driver root like a `__main__` block. When nothing
in the project starts it (no `__main__` block, no top-level loop, no command), a module-level function with a
loop that no code of the project names is a root: a launcher outside the scan, or the user, calls it."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.entry.commands import installed_commands
from leapp_codemod.analysis.entry.drivers import (
    loops_of,
    module_body_function,
    name_words,
)
from leapp_codemod.analysis.entry.registrar_wrappers import (
    callable_targets,
    wrapped_registrations,
    wrapper_params,
)
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.resolve_callables import nested_function
from leapp_codemod.knowledge.io import REGISTRAR_KEYWORDS, REGISTRAR_SUFFIXES, REGISTRARS

# Calls that register a function for a framework to call again and again (REGISTRARS, by name, by class-name
# suffix or by keyword): knowledge/io.py, shared with the inputs filled outside the step (LCM903).
# ... or a method named for registering, even with the function positional (`sub.Init(self.handler, 10)`,
# `signal.connect(self.on_frame)`, `bus.add_listener(self.on_msg)`), or any method of an object the class
# builds from a library class (`self.sub = ChannelSubscriber(...)`; `self.sub.Start(self.on_msg)`).
REGISTRAR_WORDS = frozenset({"subscribe", "subscriber", "subscription", "init", "register", "connect", "listen",
                             "listener", "on", "attach", "bind", "watch", "observe"})
# Calls that apply a function there and then, or register it for something other than a repeated drive:
# `pool.map(self.f, xs)`, `sorted(xs, key=self.rank)`, `atexit.register(self.close)`, a module hook.
APPLY_NAMES = frozenset({"map", "imap", "starmap", "map_async", "apply", "apply_async", "apply_along_axis",
                         "filter", "reduce", "sort", "sorted", "min", "max", "vmap", "jit", "grad", "partial",
                         "submit", "run_in_executor", "call"})
ONE_SHOT_ROOTS = frozenset({"atexit", "signal", "weakref", "functools", "itertools", "builtins", "torch", "numpy",
                            "jax", "operator", "copyreg", "faulthandler", "sys"})


def callers_of(project: Project) -> list[tuple[FunctionInfo, bool]]:
    """Every function that can call something, with whether it is a driver root: the project's functions,
    the closures they return (`get_action = build_get_action(agent)` then `get_action(obs)` in a loop) or
    define and call themselves (`def run_policy_step(): ...` in `main`, called in its loop), and the modules'
    top-level code."""
    key = ("entry-callers", len(project.modules))
    if key in project.memo:
        return project.memo[key]
    commands = installed_commands(project)
    out = [(fn, fn.id in commands) for fn in project.functions()]
    out += [(closure, False) for fn, _ in list(out) for closure in returned_closures(project, fn)
            + called_closures(project, fn)]
    for module in list(project.modules.values()):
        body = module_body_function(module)
        if body is not None:
            out.append((body, module.has_main_guard or any(True for _ in loops_of(body))))
    if not any(root for _, root in out):   # nothing starts the project: a launcher outside it, or the user, does
        named = _referenced_names(project)
        out = [(fn, root or _unreferenced_loop(fn, named, project)) for fn, root in out]
    project.memo[key] = out
    return out


def _referenced_names(project: Project) -> set[str]:
    """Every name the project's own code reads, as a name or an attribute (`run`, `runner.run`)."""
    found: set[str] = set()
    for name, module in project.modules.items():
        if not project.is_library(name):
            found |= {n.id for n in module.nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
            found |= {n.attr for n in module.nodes if isinstance(n, ast.Attribute)}
    return found


def _unreferenced_loop(fn: FunctionInfo, named: set[str], project: Project) -> bool:
    """A module-level function of the project with a loop that no code of the project names (`def deploy(cfg):
    while ...` that a launcher outside the scanned code, or the user, calls): it drives what it runs, like a
    script's `__main__` block."""
    return fn.class_name is None and "." not in fn.qualname and fn.name not in named \
        and not project.is_library(fn.module) and any(True for _ in loops_of(fn))


def returned_closures(project: Project, fn: FunctionInfo) -> list[FunctionInfo]:
    """The functions `fn` defines in its own body and returns by name (`def get_action(obs): ...` then
    `return get_action`): a caller runs them, one call per step, after `fn` built them once."""
    returned = _returned_names(fn)
    found = (nested_function(project, fn, name) for name in _own_defs(fn) if name in returned)
    return [closure for closure in found if closure is not None]


def _returned_names(fn: FunctionInfo) -> set[str]:
    return {node.value.id for node in ast.walk(fn.node)
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Name)}


def _own_defs(fn: FunctionInfo) -> list[str]:
    """Names of the functions `fn` defines in its own body (not in nested blocks)."""
    return [stmt.name for stmt in fn.node.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))]


def called_closures(project: Project, fn: FunctionInfo) -> list[FunctionInfo]:
    """The functions `fn` defines in its own body and calls by name inside a loop of its own (`def
    run_policy_step(): ...` then `action = run_policy_step()` each iteration), unless it returns them too
    (returned_closures has those)."""
    called = {node.func.id for loop in loops_of(fn) for node in ast.walk(loop)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    returned = _returned_names(fn)
    found = (nested_function(project, fn, name) for name in _own_defs(fn) if name in called and name not in returned)
    return [closure for closure in found if closure is not None]


def own_closure(project: Project, fn: FunctionInfo, call: ast.Call) -> list[FunctionInfo]:
    """`run_policy_step()` where `fn` defines `def run_policy_step(): ...` and binds the name no other way: that
    closure, as entry ranking sees the call (the scan follows a closure's code within its function)."""
    func = call.func
    if not isinstance(func, ast.Name) or func.id in fn.params:
        return []
    inner = nested_function(project, fn, func.id)
    if inner is None:
        return []
    rebound = any(isinstance(node, ast.Name) and node.id == func.id and isinstance(node.ctx, ast.Store)
                  and not inner.node.lineno <= node.lineno <= (inner.node.end_lineno or inner.node.lineno)
                  for node in ast.walk(fn.node))
    return [] if rebound else [inner]


def registered_callbacks(project: Project) -> dict[str, tuple[FunctionInfo, int]]:
    """Functions handed to a timer, subscription, callback registry or thread: fid -> (registering
    function, line). `self.create_timer(dt, self.control_loop)`, `Thread(target=self.run)`."""
    key = ("registered callbacks", len(project.modules))
    if key in project.memo:
        return project.memo[key]
    out: dict[str, tuple[FunctionInfo, int]] = {}
    wrappers: list[tuple[FunctionInfo, str]] = []
    for fn, _ in callers_of(project):
        module = project.modules[fn.module]
        cls = module.classes.get(fn.class_name) if fn.class_name else None
        for node in ast.walk(fn.node):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in REGISTRARS or name.endswith(REGISTRAR_SUFFIXES) \
                    or _registers_positionally(project, module, cls, node):
                handed = [*node.args, *(k.value for k in node.keywords)]
            else:
                handed = [k.value for k in node.keywords if k.arg in REGISTRAR_KEYWORDS]
            for arg in handed:
                for target in callable_targets(project, fn, arg):
                    out.setdefault(target.id, (fn, node.lineno))
                wrappers += wrapper_params(project, fn, arg)
    for fid, where in wrapped_registrations(project, wrappers).items():
        out.setdefault(fid, where)
    project.memo[key] = out
    return out


def _registers_positionally(project: Project, module, cls, call: ast.Call) -> bool:
    """A method call that hands functions over positionally to be called back: named for registering
    (`Init`, `connect`, `add_listener`, `on`) or made on an object built from a library class."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr.startswith("__") or func.attr in APPLY_NAMES:
        return False
    if any(w in ("hook", "hooks") for w in name_words(func.attr)):
        return False     # `model.register_forward_hook(self.probe)`: the model's own call runs it
    qualified = project.qualify(func, module)
    if qualified and project.external_name(qualified).split(".")[0] in ONE_SHOT_ROOTS:
        return False
    if name_words(func.attr) & REGISTRAR_WORDS:
        return True
    return _library_object(project, module, cls, func.value)


def _library_object(project: Project, module, cls, receiver: ast.expr) -> bool:
    """`self.x` where the class builds `x` from a class outside the project (`ChannelSubscriber(...)`)."""
    if cls is None or not (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)):
        return False
    for _, value in cls.attr_values.get(receiver.attr, ()):
        if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
            continue
        name = project.qualify(value.func, module)
        last = name.rpartition(".")[2] if name else ""
        if name and last[:1].isupper() and project.lookup(name) is None \
                and project.external_name(name).split(".")[0] not in ONE_SHOT_ROOTS:
            return True
    return False


def driven_bodies(fn: FunctionInfo, callbacks: dict[str, tuple[FunctionInfo, int]]):
    """The loops of a driver, and the whole body of a registered callback (the framework's loop runs it)."""
    yield from loops_of(fn)
    if fn.id in callbacks:
        yield ast.While(test=ast.Constant(True), body=fn.node.body, orelse=[], lineno=fn.node.lineno,
                        col_offset=0, end_lineno=fn.node.end_lineno, end_col_offset=0)
