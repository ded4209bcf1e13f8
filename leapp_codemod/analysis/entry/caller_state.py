"""State a function entry's caller holds: a container or array the driver loop builds before the loop, updates
between calls from its own previous content (appends the latest observation to a deque, rolls a frame stack) and
passes into the entry, directly or inside what it builds (`state = [frames, goal]`, `comm.gather(state)`).

The step's own code never sees the update, so a scan of the entry alone finds no state: the export takes the
whole stack as an input of each call, and what runs the exported model has to keep updating it as the driver does.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.entry.drivers import loops_of, module_body_function
from leapp_codemod.analysis.model.index import FunctionInfo, called_name
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.knowledge.leapp import BOUNDARY_PASSES_WHOLE

# Methods that add to a container and keep what it held: the container carries the previous calls' items.
_KEEPING = frozenset({"append", "appendleft", "extend", "extendleft", "insert", "rotate"})
_DROPPING = frozenset({"pop", "popleft"})
# Calls that build a history from the old items: rolled, or joined with the newest.
_SHIFTING = frozenset({"roll", "concatenate", "cat", "stack", "hstack", "vstack", "append"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_HOPS = 6


@dataclass(frozen=True)
class CallerState:
    param: str                  # the entry's parameter it reaches
    name: str                   # the driver's variable
    driver: str                 # `path:qualname` of the driver function
    built: int                  # where the driver builds it, before the loop
    updates: tuple[int, ...]    # where the loop updates it between calls
    kind: str                   # "deque", "list", or "" (an array or unknown)


def _own(node: ast.AST):
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, _SCOPES):
            stack.extend(ast.iter_child_nodes(n))


def _bindings(fn: FunctionInfo) -> dict[str, list[ast.Assign]]:
    out: dict[str, list[ast.Assign]] = {}
    for node in _own(fn.node):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append(node)
    return out


def _carried_names(e: ast.expr) -> set[str]:
    """Names whose value `e` hands on: itself, the items of a display, the arguments of a call."""
    if isinstance(e, ast.Name):
        return {e.id}
    if isinstance(e, ast.Starred):
        return _carried_names(e.value)
    if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
        return set().union(*(_carried_names(x) for x in e.elts)) if e.elts else set()
    if isinstance(e, ast.Dict):
        return set().union(*(_carried_names(x) for x in e.values)) if e.values else set()
    if isinstance(e, ast.Call):
        parts = [*e.args, *(k.value for k in e.keywords)]
        return set().union(*(_carried_names(x) for x in parts)) if parts else set()
    return set()


def _sources(arg: ast.expr, bindings: dict[str, list[ast.Assign]]) -> set[str]:
    seen: set[str] = set()
    frontier = _carried_names(arg)
    for _ in range(_HOPS):
        frontier -= seen
        if not frontier:
            break
        seen |= frontier
        frontier = set().union(*(_carried_names(a.value) for n in frontier for a in bindings.get(n, [])), set())
    return seen


def _reads(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(node))


def _shifts(value: ast.expr, name: str) -> bool:
    """`np.roll(frames, 1, 0)`, `np.concatenate([frames[1:], new])`, `frames[1:]`: the old items moved along, kept.
    Arithmetic on the old value (`q = q + dt * tau`, a plant the driver integrates) is not a history."""
    if isinstance(value, ast.Subscript):
        return isinstance(value.value, ast.Name) and value.value.id == name
    func = value.func if isinstance(value, ast.Call) else None
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return called in _SHIFTING and _reads(value, name)


def _updates(loop: ast.AST, name: str) -> list[int] | None:
    """Lines where the loop updates `name` by keeping its previous items; None when the loop rebinds it to a
    value that does not read it (a fresh value every iteration: no state)."""
    lines, emptied = [], []
    for node in _own(loop):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _DROPPING \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
            emptied.append(node.lineno)     # `frames.popleft()` before the append: part of the same update
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _KEEPING \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
            lines.append(node.lineno)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    if not _reads(node.value, name):
                        return None
                    if _shifts(node.value, name):
                        lines.append(node.lineno)      # `frames = np.roll(frames, 1, axis=0)`
                elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                        and target.value.id == name:
                    # `frames[:-1] = frames[1:]` updates it; `frames[0] = newest` is part of such an update
                    (lines if _shifts(node.value, name) else emptied).append(node.lineno)
    return sorted(set(lines) | (set(emptied) if lines else set()))


def _kind(value: ast.expr) -> str:
    func = value.func if isinstance(value, ast.Call) else None
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name in BOUNDARY_PASSES_WHOLE:
        return name
    return "list" if isinstance(value, (ast.List, ast.ListComp)) or name == "list" else ""


def _arguments(call: ast.Call, entry: FunctionInfo) -> list[tuple[str, ast.expr]]:
    params = entry.positional_params[1:] if entry.is_method else entry.positional_params
    out = [(params[i], a) for i, a in enumerate(call.args) if i < len(params) and not isinstance(a, ast.Starred)]
    return out + [(k.arg, k.value) for k in call.keywords if k.arg in entry.positional_params]


def _drivers(project: Project, entry: FunctionInfo):
    """Functions (and module-level code) of modules that import the entry's module or define it."""
    top = entry.module
    for module in project.modules.values():
        if project.is_library(module.name):
            continue
        if module.name != top and not any(t == top or t.startswith(top + ".") for t in module.imports.values()):
            continue
        body = module_body_function(module)
        yield from (f for f in (*module.functions.values(), *([body] if body else [])) if f.id != entry.id)


def caller_held_state(project: Project, entry: FunctionInfo) -> dict[str, CallerState]:
    """The entry's parameters that receive state its driver loop holds (first found per parameter)."""
    out: dict[str, CallerState] = {}
    for driver in _drivers(project, entry):
        bindings = None
        for loop in loops_of(driver):
            for call in (n for n in _own(loop) if isinstance(n, ast.Call) and called_name(n.func) == entry.name):
                bindings = bindings if bindings is not None else _bindings(driver)
                for param, arg in _arguments(call, entry):
                    if param in out:
                        continue
                    for name in sorted(_sources(arg, bindings)):
                        before = [a for a in bindings.get(name, []) if a.lineno < loop.lineno]
                        updates = _updates(loop, name) if before else None
                        if updates:
                            out[param] = CallerState(param, name, f"{driver.path}:{driver.qualname}",
                                                     before[-1].lineno, tuple(updates), _kind(before[-1].value))
                            break
    return out
