"""The project classes a project function's call builds, read from what the function returns: `net =
make_net(kind); net.eval(); return net` with `make_net` returning `WideNet(...)` or `SlimNet(...)` in an
if-chain, and one item of a returned tuple (`model, stats = load(path)` then `model` is `load(path)[0]`, the
first item of `return model, stats`). Followed through functions that return another function's result, a
few calls deep. Syntactic: used where a value is handed to a parameter before any guess by method name."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.class_loaders import loader_classes
from leapp_codemod.analysis.model.index import FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.resolve_types import annotation_classes, tuple_item_annotation
from leapp_codemod.knowledge.vocab import SELF_RETURNING_METHODS

MAX_CALLS = 3   # functions followed through their returns


def built_classes(project: Project, value: ast.expr, module: ModuleIndex, depth: int = 0,
                  scope: FunctionInfo | None = None) -> set[str]:
    """Project (or followed library) classes `value` (a call, or an item `call(...)[i]` of a call's tuple)
    builds: the class called, a class-level loader's class (`PPO.load(p)`, `cls.restore(p)`, `ALGOS[k].load(p)`,
    names read in `scope`), or what the project function called returns; empty when unknown."""
    index: int | None = None
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) \
            and type(value.slice.value) is int and isinstance(value.value, ast.Call):
        value, index = value.value, value.slice.value
    value = _unchained(value)
    if not isinstance(value, ast.Call) or depth > MAX_CALLS:
        return set()
    name = project.qualify(value.func, module)
    cls = project.class_of(name) if name else None
    if cls is not None:
        return {cls.id} if index is None else set()
    loaded = loader_classes(project, value.func, module, scope) if index is None else set()
    if loaded or not name:
        return loaded
    target = project.lookup(name)
    if not isinstance(target, FunctionInfo) or project.is_library(target.module):
        return set()
    home = project.modules[target.module]
    declared = tuple_item_annotation(target.node.returns, index) if index is not None else None
    if declared is not None:   # `-> tuple[Policy, Normalizer]`: the item's class as the author declared it
        named = annotation_classes(project, declared, home)
        if named:
            return named
    out: set[str] = set()
    for built in _returned(project, target, index):
        out |= built_classes(project, built, home, depth + 1, target)
    return out


def _returned(project: Project, fn: FunctionInfo, index: int | None) -> list[ast.expr]:
    """The expressions `fn` returns (item `index` of a returned tuple), a returned local replaced by the
    values assigned to it."""
    key = ("returned and assigned", fn.id)
    if key not in project.memo:   # (returned values, local name -> values assigned to it), walked once
        assigned: dict[str, list[ast.expr]] = {}
        for node in fn.nodes:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, []).append(node.value)
        project.memo[key] = ([n.value for n in fn.nodes if isinstance(n, ast.Return) and n.value is not None],
                             assigned)
    returns, assigned = project.memo[key]
    out: list[ast.expr] = []
    for value in returns:
        if index is not None:
            if not (isinstance(value, ast.Tuple) and index < len(value.elts)):
                continue
            value = value.elts[index]
        value = _unchained(value)
        if isinstance(value, ast.Name) and value.id in assigned:
            out += assigned[value.id]
        else:
            out.append(value)
    return out


def _unchained(value: ast.expr) -> ast.expr:
    """The object a chain of self-returning calls starts from (`net` in `net.eval().to(device)`)."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in SELF_RETURNING_METHODS:
        value = value.func.value
    return value


def tuple_item(call: ast.Call, position: int) -> ast.Subscript:
    """`call(...)[position]`, placed at the call: the item `a, b = call(...)` binds at that position."""
    return ast.copy_location(ast.Subscript(value=call, slice=ast.Constant(value=position), ctx=ast.Load()), call)


def unpacked_classes(project: Project, fn: FunctionInfo, name: str, module: ModuleIndex) -> set[str]:
    """Project classes a local of `fn` is bound to by unpacking a call's returned tuple (`net, opt =
    build(cfg)`: item 0 of what `build` returns)."""
    out: set[str] = set()
    for node in fn.nodes:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            for target in node.targets:
                if isinstance(target, (ast.Tuple, ast.List)):
                    for i, item in enumerate(target.elts):
                        if isinstance(item, ast.Name) and item.id == name:
                            out |= built_classes(project, tuple_item(node.value, i), module)
    return out
