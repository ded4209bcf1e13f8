"""Which attribute names code reads as values: an attribute only ever filled (`self.log[k].append(v)` as a
statement) is write-only, and its content reaches no output.

In entry mode the code the step runs is asked first (`STEP_READS_KEY`, set by the rules' pass); code it does not
run reads an attribute as a value unless it only reports it (a `save()` writing the log to a file, a printer) or
only asks its size (`if len(logger.log["t"]) > 0:`): a log the step fills feeds nothing then. A method the host
calls between steps that hands the records to a model does read them. Without an entry (lint) every module of
the project is read.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.telemetry import attribute_reads
from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.knowledge.vocab import FILLING_MUTATORS

# Project memo key: the attribute names code the step runs reads as values (set for entry-mode rule passes).
STEP_READS_KEY = ("value-read-attrs-in-step",)


def _container(receiver: ast.expr) -> ast.expr:
    """`self.log` of `self.log["q"]`: the attribute a keyed fill lands in."""
    while isinstance(receiver, ast.Subscript):
        receiver = receiver.value
    return receiver


def value_read_attrs(sources) -> frozenset[str]:
    """Attribute names loaded other than as the container a statement only fills, and names read by their
    spelling (`getattr(x, "log")`). `sources`: (nodes, names bound to imported modules where they live: `np` of
    `np.log(x)` reads no field)."""
    names: set[str] = set()
    for nodes, modules in sources:
        filled = {id(_container(n.value.func.value)) for n in nodes if isinstance(n, ast.Expr)
                  and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
                  and n.value.func.attr in FILLING_MUTATORS}
        filled |= {id(n.func) for n in nodes if isinstance(n, ast.Call)}   # `t.log()`: a method, no field
        for node in nodes:
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and id(node) not in filled \
                    and not (isinstance(node.value, ast.Name) and node.value.id in modules):
                names.add(node.attr)
            elif isinstance(node, ast.Call) and _spelled_access(node):
                names.add(node.args[1].value if len(node.args) > 1 else node.args[0].value)
    return frozenset(names)


def _spelled_access(call: ast.Call) -> bool:
    """`getattr(obj, "log")`, `hasattr(obj, "log")`, `attrgetter("log")`: an attribute read by its spelled name."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    at = 1 if name in ("getattr", "hasattr") else 0 if name == "attrgetter" else None
    return at is not None and len(call.args) > at and isinstance(call.args[at], ast.Constant) \
        and isinstance(call.args[at].value, str)


def _module_names(module) -> frozenset[str]:
    """Local names a module binds to imported modules (`np`, `math`; not an imported class `Rotation`)."""
    return frozenset(name for name, target in module.imports.items()
                     if not target.rpartition(".")[2][:1].isupper()) if module is not None else frozenset()


def project_value_reads(project) -> frozenset[str]:
    return value_read_attrs((module.nodes, frozenset()) for module in project.modules.values())


def step_value_reads(project, functions) -> frozenset[str]:
    """`value_read_attrs` of the functions the step runs."""
    return value_read_attrs((fn.nodes, _module_names(project.modules.get(fn.module))) for fn in functions)


def _sized_only(node: ast.Attribute, owner) -> bool:
    """Is the read (under any keys: `log.log["t"]`) only the argument of `len()`?"""
    parents = parent_map(owner)
    use: ast.AST = node
    parent = parents.get(id(use))
    while isinstance(parent, ast.Subscript) and parent.value is use:
        use, parent = parent, parents.get(id(parent))
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len" \
        and parent.args == [use]


def _called(node: ast.Attribute, owner) -> bool:
    """`x.log()`: a method called, not a field read."""
    parent = parent_map(owner).get(id(node))
    return isinstance(parent, ast.Call) and parent.func is node


def read_outside(project, attr: str, reached: frozenset, reports_only) -> bool:
    """Does code the step does not run read `.attr` as a value: not only its size, not a method of that name
    called (`t.log()`) or a function of a module (`torch.log`), and not in a function that only reports
    (`reports_only(fn)`)? Module-level reads count."""
    key = ("value read outside the step", attr)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = any(
            owner is None or owner.id not in reached and not _sized_only(node, owner) and not _called(node, owner)
            and not (isinstance(node.value, ast.Name) and node.value.id in _module_names(project.modules.get(owner.module)))
            and not reports_only(owner)
            for owner, node in attribute_reads(project).get(attr, ()))
    return found
