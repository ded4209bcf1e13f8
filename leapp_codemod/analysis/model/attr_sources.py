"""Which objects on self a class reads its inputs from: the `Sources` of `provenance.Provenance`.

`self.<attr>` is classified by every value the class family binds it to:

* computed here: a constant, a container, a node parameter, an array or tensor a modelled library builds
  (`np.ones(12) * 40.0`), a clock or a middleware handle. A method of it reads nothing from outside.
* a project object: its method reads an input when it, or a method of its own class it calls, reads from an
  object on its self, or reads what that class's callbacks fill (followed through at most `DEPTH` objects).
* anything else (an object of a library the scan does not model, a value handed to the constructor, a
  binding the class does not show): a method call on it reads an input, unless it only looks a key up
  (`self.cfg.get("gain")`) on a value handed in.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable

from leapp_codemod.analysis.model.command_line import parameter_read
from leapp_codemod.analysis.model.index import ClassInfo, called_name
from leapp_codemod.analysis.model.provenance import LOOKUP_METHODS, Sources
from leapp_codemod.knowledge.io import CLOCK_FACTORIES, LIVE_STATE_CONSTRUCTORS, MIDDLEWARE_FACTORIES
from leapp_codemod.knowledge.libraries import MODELED_ROOTS

DEPTH = 3
# Builtins and standard containers whose objects the class fills itself.
_BUILT_HERE = frozenset({"list", "dict", "set", "tuple", "float", "int", "bool", "str", "deque", "defaultdict",
                         "OrderedDict", "collections.deque", "collections.defaultdict", "collections.OrderedDict",
                         "range", "len", "abs", "min", "max", "round", "sum"})
_CONTAINERS = (ast.Constant, ast.List, ast.Dict, ast.Tuple, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp,
               ast.BinOp, ast.UnaryOp, ast.JoinedStr)


@dataclass(frozen=True)
class ClassFacts:
    """What class_state knows and this module asks (passed in: class_state builds on this module)."""

    clock: Callable[[ast.Call], bool]                    # a clock reading
    constant_like: Callable[[ast.expr], bool]            # a constant, a named constant, a toggled flag
    clock_attr: Callable[[list[ClassInfo], str], bool]   # `self.<attr>` is a clock object
    filled: Callable[[ClassInfo], set[str]]              # attributes a class's callbacks fill with data


def class_sources(project, cls: ClassInfo, facts: ClassFacts, depth: int = DEPTH) -> Sources:
    family = project.mro(cls)

    def bindings(attr: str) -> list[tuple[ClassInfo, str, ast.expr]]:
        return [(klass, method, value) for klass in family for method, value in klass.attr_values.get(attr, ())]

    def kind(attr: str) -> str:
        key = ("attr_kind", cls.id, attr)
        found = project.memo.get(key)
        if found is None:
            found = project.memo[key] = _kind(project, bindings(attr), facts.clock_attr(family, attr))
        return found

    def reads(attr: str, method: str) -> bool:
        found = kind(attr)
        if found == "computed":
            return False
        if found == "project":
            return depth > 0 and any(_project_reads(project, klass, method, facts, depth - 1)
                                     for klass in _built_classes(project, bindings(attr)))
        if found == "handed":
            return method not in LOOKUP_METHODS
        return True

    def device(attr: str) -> bool:
        return kind(attr) == "external"

    return Sources(reads, device, facts.clock, facts.constant_like)


def _kind(project, values, is_clock: bool) -> str:
    if is_clock or not values:
        return "computed" if is_clock else "handed"
    kinds = set()
    for klass, method, value in values:
        home = project.modules.get(klass.module)
        fn = klass.methods.get(method)
        if isinstance(value, _CONTAINERS) or parameter_read(value, fn):
            kinds.add("computed")
        elif isinstance(value, ast.Call):
            name = project.qualify(value.func, home) if home is not None else None
            short = called_name(value.func) or ""
            if project.class_of(name) is not None:
                kinds.add("project")
            elif short in CLOCK_FACTORIES or short in MIDDLEWARE_FACTORIES or (name or short) in _BUILT_HERE:
                kinds.add("computed")
            elif name and name in LIVE_STATE_CONSTRUCTORS:
                kinds.add("external")
            elif name and project.external_name(name).split(".", 1)[0] in MODELED_ROOTS:
                kinds.add("computed")
            elif isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name) \
                    and value.func.value.id == "self":
                kinds.add("handed")      # `self.cfg.copy()`, a method of the object itself
            else:
                kinds.add("external")
        else:
            kinds.add("handed")
    for strongest in ("external", "project", "handed"):
        if strongest in kinds:
            return strongest
    return "computed"


def _built_classes(project, values) -> list[ClassInfo]:
    out = []
    for klass, _, value in values:
        home = project.modules.get(klass.module)
        if isinstance(value, ast.Call) and home is not None:
            built = project.class_of(project.qualify(value.func, home))
            if built is not None:
                out.append(built)
    return out


def _project_reads(project, klass: ClassInfo, method: str, facts: ClassFacts, depth: int) -> bool:
    """Does `obj.<method>(...)` of a project object read an input: its method (or the own methods it calls)
    calls a reading method of an object on its self, or reads an attribute its class's callbacks fill?"""
    key = ("project_reads", klass.id, method, depth)
    found = project.memo.get(key)
    if found is not None:
        return found
    project.memo[key] = False
    family = project.mro(klass)
    owner = next((k for k in family if method in k.methods), None)
    if owner is None:
        project.memo[key] = True    # a method of a base the scan does not see
        return True
    sources = class_sources(project, klass, facts, depth)
    filled = facts.filled(klass)
    seen, pending, verdict = set(), [method], False
    while pending and not verdict:
        name = pending.pop()
        info = next((k.methods[name] for k in family if name in k.methods), None)
        if info is None or name in seen:
            continue
        seen.add(name)
        args = info.node.args.posonlyargs + info.node.args.args
        self_name = args[0].arg if args else None
        for node in info.nodes:
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
                if node.attr in filled:
                    verdict = True
                    break
                if any(node.attr in k.methods for k in family):
                    pending.append(node.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Attribute) and isinstance(node.func.value.value, ast.Name) \
                    and node.func.value.value.id == self_name and not facts.clock(node) \
                    and sources.reads(node.func.value.attr, node.func.attr):
                verdict = True
                break
    project.memo[key] = verdict
    return verdict
