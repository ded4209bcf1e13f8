"""A given inline range that ends in a step of the project's own environment wrapper: the step is pipeline code.

A range ending in `obs, r, done, info = env.step(action)` is normally cut before the step (`world_step.py`): the
simulator behind it is the world, not the pipeline. When `env` is built from a project class whose `step` hands the
world over to a simulator engine of its own (`mujoco.mj_step`, `p.stepSimulation`, a wrapped library environment's
`self.env.step`), or sends the action to a device or a peer through a link it holds (`self.sock.sendto`,
`self.cmd_pub.publish`: a real robot or a simulator behind middleware), that `step` is a wrapper: what it does to
the action before handing it over (clipping, scaling, PD control) is the pipeline's post-processing, and the
observation it builds after is the next call's pre-processing. `scan` then keeps the step in the range and follows it (the engine call itself stays outside the
scanned code); `generate` and `run` still end the exported range before the step.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.gym_registry import made_class
from leapp_codemod.analysis.model.returned_classes import built_classes
from leapp_codemod.analysis.model.world_steps import advances_world
from leapp_codemod.knowledge.actuation import named_as_send
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.project import Project


WRAPPER_HOPS = 3   # library wrappers seen through (`Monitor(env)`, `TimeLimit(env)`) to the project environment


def _built_classes(project: Project, module: ModuleIndex, value: ast.expr | None, scope: ast.AST | None = None,
                   hops: int = 0) -> list[ClassInfo]:
    """The project classes a value is constructed from (`F1Env(cfg)`, `[Env(i) for ...]`, `[Env(), Env()]`), that
    a project factory returns (`create_env(task_name=...)` building one of several task environments) or that
    `gym.make("Id")` makes under the project's registration of that id; through a library wrapper built around
    an environment bound before (`env = Monitor(env)`), the environment's."""
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        value = value.elt
    elif isinstance(value, (ast.List, ast.Tuple)) and value.elts:
        value = value.elts[0]
    if not isinstance(value, ast.Call):
        return []
    made = made_class(project, value)
    if made is not None:
        return [made]
    found = [project.class_of(cid.replace(":", ".")) for cid in sorted(built_classes(project, value, module))]
    found = [cls for cls in found if cls is not None and not project.is_library(cls.module)]
    inner = value.args[0] if value.args else None
    if not found and scope is not None and hops < WRAPPER_HOPS and isinstance(inner, ast.Name):
        wrapped = _bound_last(scope, inner.id, value.lineno)   # `env = Monitor(env)`: the env it wraps
        return _built_classes(project, module, wrapped, scope, hops + 1)
    return found


def _bound_last(scope: ast.AST, name: str, before: int) -> ast.expr | None:
    """The value `name` was last assigned in `scope` before line `before` (a local or a module global)."""
    found: tuple[int, ast.expr] | None = None
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and node.lineno < before \
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets) \
                and (found is None or node.lineno >= found[0]):
            found = (node.lineno, node.value)
    return found[1] if found else None


def _receiver_value(project: Project, receiver: ast.expr, scope: ast.AST, start: int,
                    owner: ClassInfo | None) -> ast.expr | None:
    """What the step's receiver was built from: a name bound before the range, or a `self` attribute the
    range's class sets (`self.env = Env()`)."""
    if isinstance(receiver, ast.Subscript):
        receiver = receiver.value
    if isinstance(receiver, ast.Name):
        return _bound_last(scope, receiver.id, start)
    if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and owner is not None:
        for klass in project.mro(owner):
            values = klass.attr_values.get(receiver.attr)
            if values:
                return values[-1][1]
    return None


def _held_classes(project: Project, cls: ClassInfo, receiver: ast.expr) -> list[ClassInfo] | None:
    """The project classes a field of `self` is built from (`self.client = SimClient(...)`): [] for a field holding
    a library object or one the scan cannot tell, None for a receiver that is no field of `self`."""
    if not (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)
            and receiver.value.id == "self"):
        return None
    module = project.modules.get(cls.module)
    values = [value for klass in project.mro(cls) for _, value in klass.attr_values.get(receiver.attr, ())]
    return [c for value in values for c in (_built_classes(project, module, value) if module else [])]


def _sends_through_link(project: Project, cls: ClassInfo, call: ast.Call) -> bool:
    """`self.sock.sendto(...)`, `self.cmd_pub.publish(msg)`, `self.udp.Send()`, `self.vehicle.apply_control(c)`:
    a call named as a send on a library link or device the object holds (a project class held there is followed
    instead: a simulated world of the project's own is no link)."""
    func = call.func
    return isinstance(func, ast.Attribute) and named_as_send(func.attr) \
        and _held_classes(project, cls, func.value) == []


def _held_project_methods(project: Project, cls: ClassInfo, call: ast.Call) -> list[tuple[ClassInfo, FunctionInfo]]:
    """`self.client.take_action(a)` with `self.client = SimClient(...)` a project class: the method it runs, with
    its class, so a handover behind a project client of the step's class is found too."""
    func = call.func
    held = _held_classes(project, cls, func.value) if isinstance(func, ast.Attribute) else None
    return [(c, m) for c in held or () for m in [project.find_method(c, func.attr)] if m is not None]


def _self_methods(project: Project, cls: ClassInfo, name: str) -> list[FunctionInfo]:
    """What `self.<name>(...)` may run: the method of that name, or the methods of the object a field of that name
    is bound to (`self.rl_step = self.arm_sim_step` in the constructor)."""
    method = project.find_method(cls, name)
    if method is not None:
        return [method]
    values = [value for klass in project.mro(cls) for _, value in klass.attr_values.get(name, ())]
    values = [part for value in values for part in ((value.body, value.orelse) if isinstance(value, ast.IfExp)
                                                    else (value,))]   # `self.f if joint else self.g`
    bound = [value.attr for value in values
             if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self"]
    return [m for m in (project.find_method(cls, attr) for attr in bound) if m is not None]


HANDOVER_DEPTH = 3   # calls on `self` followed from the step to the engine call (`step` -> `rl_step` -> `sim_step`)


def _handover_call(project: Project, cls: ClassInfo, method: FunctionInfo) -> tuple[FunctionInfo, ast.Call] | None:
    """The call in `method`, or in a method of its class it reaches through calls on `self` (HANDOVER_DEPTH
    deep) or of a project object it holds, that hands the action to the world: an engine call, a world step
    on another object, or a send through a held link; with the function holding it."""
    seen, frontier = {method.id}, [(cls, method)]
    for _ in range(HANDOVER_DEPTH + 1):
        following = []
        for owner, fn in frontier:
            for node in ast.walk(fn.node):
                if not isinstance(node, ast.Call):
                    continue
                if advances_world(node) or _sends_through_link(project, owner, node):
                    return fn, node
                if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                        and node.func.value.id == "self":
                    helpers = [(owner, m) for m in _self_methods(project, owner, node.func.attr)]
                else:
                    helpers = _held_project_methods(project, owner, node)
                for helper_cls, helper in helpers:
                    if helper.id not in seen and not project.is_library(helper.module):
                        seen.add(helper.id)
                        following.append((helper_cls, helper))
        frontier = following
    return None


def wrapped_world_step(project: Project, module: ModuleIndex, step: ast.stmt, scope: ast.AST, start: int,
                       owner: ClassInfo | None) -> tuple[FunctionInfo, str] | None:
    """When the range's final world step is the project's own wrapper handing the action to the world: the wrapper's
    method and a note saying so (the step is kept in the range); None otherwise."""
    call = getattr(step, "value", None)
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return None
    for cls in _built_classes(project, module, _receiver_value(project, call.func.value, scope, start, owner), scope):
        method = project.find_method(cls, call.func.attr)
        if method is None or project.is_library(method.module):
            continue
        handover = _handover_call(project, cls, method)
        if handover is not None:
            break
    else:
        return None
    where, engine = handover
    return method, (f"line {step.lineno} steps `{cls.name}.{call.func.attr}`, the project's wrapper handing the "
                    f"action to the world through `{ast.unparse(engine.func)}` ({where.path}:{engine.lineno}): "
                    "its action processing and the "
                    "observation it builds are scanned as pipeline code; the exported range (generate, run) ends "
                    "before the step")
