"""Which attribute names code reads as values: an attribute only ever filled (`self.log[k].append(v)` as a
statement) is write-only, and its content reaches no output.

In entry mode the question is asked of the code the step runs (`STEP_READS_KEY`, set by the rules' pass): a log
the step fills and a `save()` after the loop writes to a file feeds nothing the step computes. Without an entry
(lint) every module of the project is read.
"""
from __future__ import annotations

import ast

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
