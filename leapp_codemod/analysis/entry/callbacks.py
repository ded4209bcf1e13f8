"""Functions a framework calls again and again: handed to a timer, a subscription, a callback registry or a
thread (`self.create_timer(dt, self.control_loop)`, `RecurrentThread(target=self.step)`). A registered
function is driven like a loop body, and its own body is a place a pipeline may be written inline."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.entry.drivers import loops_of, module_body_function
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.project import Project

# Calls that register a function for a framework to call again and again: a ROS timer or subscription, a
# message-filter callback, a thread's target. The registered function is a driver, like a loop body.
REGISTRARS = frozenset({"create_timer", "create_subscription", "registerCallback", "register_callback",
                        "Subscriber", "Timer", "Thread", "Process", "add_callback", "subscribe", "create_service",
                        "set_callback", "add_timer", "call_later", "schedule"})
# ... and any class named like one (`RecurrentThread(...)`, `RepeatingTimer(...)`), or a call handing a function
# over by one of these keywords (`Worker(target=self.run)`, `Channel(callback=self.on_msg)`).
REGISTRAR_SUFFIXES = ("Thread", "Timer")
REGISTRAR_KEYWORDS = frozenset({"target", "callback", "cb", "handler", "func"})


def callers_of(project: Project) -> list[tuple[FunctionInfo, bool]]:
    """Every function that can call something, with whether it is a driver root."""
    out = [(fn, False) for fn in project.functions()]
    for module in project.modules.values():
        body = module_body_function(module)
        if body is not None:
            out.append((body, module.has_main_guard or any(True for _ in loops_of(body))))
    return out


def registered_callbacks(project: Project) -> dict[str, tuple[FunctionInfo, int]]:
    """Functions handed to a timer, subscription, callback registry or thread: fid -> (registering
    function, line). `self.create_timer(dt, self.control_loop)`, `Thread(target=self.run)`."""
    out: dict[str, tuple[FunctionInfo, int]] = {}
    for fn, _ in callers_of(project):
        module = project.modules[fn.module]
        cls = module.classes.get(fn.class_name) if fn.class_name else None
        self_name = fn.positional_params[0] if fn.is_method and fn.positional_params else None
        for node in ast.walk(fn.node):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in REGISTRARS or name.endswith(REGISTRAR_SUFFIXES):
                handed = [*node.args, *(k.value for k in node.keywords)]
            else:
                handed = [k.value for k in node.keywords if k.arg in REGISTRAR_KEYWORDS]
            for arg in handed:
                if isinstance(arg, ast.Lambda) and isinstance(arg.body, ast.Call):
                    arg = arg.body.func    # `lambda msg, name=name: self.leg_callback(msg, name)`
                target = None
                if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == self_name \
                        and cls is not None:
                    target = project.find_method(cls, arg.attr)
                elif isinstance(arg, ast.Name):
                    found = project.lookup(project.qualify(arg, module) or "")
                    target = found if isinstance(found, FunctionInfo) else None
                if target is not None:
                    out.setdefault(target.id, (fn, node.lineno))
    return out


def driven_bodies(fn: FunctionInfo, callbacks: dict[str, tuple[FunctionInfo, int]]):
    """The loops of a driver, and the whole body of a registered callback (the framework's loop runs it)."""
    yield from loops_of(fn)
    if fn.id in callbacks:
        yield ast.While(test=ast.Constant(True), body=fn.node.body, orelse=[], lineno=fn.node.lineno,
                        col_offset=0, end_lineno=fn.node.end_lineno, end_col_offset=0)
