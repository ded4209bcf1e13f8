"""Which names a statement range only adds to (`log.append(x)`) without reading them otherwise."""
from __future__ import annotations

import ast

from leapp_codemod.knowledge.vocab import LOOP_MUTATORS

__all__ = ["LOOP_MUTATORS", "only_mutated"]


def only_mutated(statements: list[ast.stmt]) -> set[str]:
    """Names the statements load only as the receiver of an in-place method (`log.append(x)`): a
    container the range adds to but never reads (telemetry), not a value it carries."""
    loads: dict[str, int] = {}
    receivers: dict[str, int] = {}
    for stmt in statements:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                loads[node.id] = loads.get(node.id, 0) + 1
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and isinstance(node.func.value, ast.Name) and node.func.attr in LOOP_MUTATORS):
                receivers[node.func.value.id] = receivers.get(node.func.value.id, 0) + 1
    return {name for name, n in receivers.items() if loads.get(name) == n}
