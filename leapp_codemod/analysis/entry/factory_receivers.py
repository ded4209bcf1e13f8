"""A loop's call on an object a project factory builds: the classes the factory returns say what runs.

`tracker = make_tracker(mode)` then `cmd = tracker.select_action(obs)` in a driver loop: the receiver is named
like a model and its class is chosen at run time, so by name alone the call looks like a model call and the
loop body like an inline policy step. When the receiver is bound only from calls of project functions, and every
value those functions return is an instance of a project class built there (`return PurePursuit(...)`, or a
local bound to one, `planner = Mpc(); return planner`; a constant such as `None` builds nothing), those classes
are all the call can run. If none of them is a network and none of their methods of that name runs a model (as
far as the scan follows calls), the loop runs no model there: its range is no policy step (dataflow beats the
receiver's name). A factory whose returns the scan cannot name (a library call, a parameter) settles nothing.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo


def _assigned_values(fn_node: ast.AST, name: str) -> list[ast.expr | None]:
    """Every value `fn_node`'s statements bind to the local `name`; None for a binding whose value the scan cannot
    name (a tuple target, a loop variable, an augmented assignment)."""
    values: list[ast.expr | None] = []
    for node in ast.walk(fn_node):
        if isinstance(node, ast.Assign):
            pairs = [(target, node.value) for target in node.targets]
        elif isinstance(node, ast.AnnAssign):
            pairs = [(node.target, node.value)]
        elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension)):
            pairs = [(node.target, None)]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            pairs = [(node.optional_vars, None)]
        else:
            continue
        for target, value in pairs:
            if isinstance(target, ast.Name) and target.id == name:
                values.append(value)
            elif any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
                values.append(None)     # unpacked, iterated or updated: the scan cannot say what it holds
    return values


def returned_classes(factory: FunctionInfo, project) -> list[ClassInfo] | None:
    """The project classes whose instances `factory` returns, or None when a return is anything else (a library
    object, a parameter, an expression the scan cannot name). `return None` and other constants build nothing."""
    module = project.modules.get(factory.module)
    if module is None:
        return None
    out: list[ClassInfo] = []
    returns = [n for n in ast.walk(factory.node) if isinstance(n, ast.Return)]
    if not returns:
        return None
    for ret in returns:
        if ret.value is None or isinstance(ret.value, ast.Constant):
            continue     # `return None`: no object built
        values = _assigned_values(factory.node, ret.value.id) if isinstance(ret.value, ast.Name) else [ret.value]
        if not values:
            return None      # a parameter or a global: not built here
        for value in values:
            if value is None:
                return None
            if isinstance(value, ast.Constant):
                continue     # `policy = 0` before the branches that build one
            if not (isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute))):
                return None
            cls = project.class_of(project.qualify(value.func, module))
            if cls is None:
                return None
            if cls not in out:
                out.append(cls)
    return out


def factory_of(fn: FunctionInfo, receiver: str, project) -> list[ClassInfo] | None:
    """The classes a driver's local `receiver` may hold when every binding of it is a call of a project function
    whose returns are named (see `returned_classes`), else None."""
    module = project.modules.get(fn.module)
    values = _assigned_values(fn.node, receiver)
    if module is None or not values:
        return None
    out: list[ClassInfo] = []
    for value in values:
        if not (isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute))):
            return None
        factory = project.lookup(project.qualify(value.func, module) or "")
        if not isinstance(factory, FunctionInfo):
            return None
        classes = returned_classes(factory, project)
        if classes is None:
            return None
        out += [cls for cls in classes if cls not in out]
    return out or None


def runs_no_model(fn: FunctionInfo, model: str, project, reach: set[str]) -> list[ClassInfo] | None:
    """The classes an inline range's model call (`tracker.select_action`, `tracker`) may run, when a project
    factory builds its receiver and none of them runs a model: no network among them, and no method of that
    name in `reach` (the functions whose calls run a model). None when the call may run a model."""
    receiver, dot, method = model.rpartition(".")
    if not dot:
        receiver, method = model, "__call__"
    if not receiver.isidentifier():
        return None
    classes = factory_of(fn, receiver, project)
    if not classes:
        return None
    for cls in classes:
        if project.is_nn_module(cls):
            return None
        target = project.find_method(cls, method)
        if target is None or target.id in reach:
            return None
    return classes
