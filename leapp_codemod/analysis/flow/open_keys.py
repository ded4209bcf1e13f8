"""Tests on the keys of a function's `**kwargs` that the scan leaves open because a reached call spreads a dict
whose keys it cannot know into them (a library processor's result, a dict built by unknown code).

The scan then analyses both branches, as it always did; these lines say so, so that a finding inside a block
such a test guards reads as "possibly not the pipeline" rather than as settled. Inputs of the entry itself
(whose keys the user's own driver decides) and keys that can never be there (a `**kwargs` key spelled like a
parameter) are not listed.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.held_keys import KWARG_KEYS, absent_key
from leapp_codemod.analysis.model.walk import UNKNOWN, iter_nodes

_MAX_LINES = 10


def open_key_tests(analysis) -> tuple[str, ...]:
    """"path:line: `test` tests the keys of `held` (function) ..." for each such test in the pipeline."""
    out: list[str] = []
    project = analysis.project
    for fn in analysis.reachable.values():
        if project.is_library(fn.module) or fn.id in analysis.roots:
            continue
        constants = analysis.facts.param_constants.get(fn.id, {})
        held = _open_inputs(fn, constants)
        if not held:
            continue
        seen: set[int] = set()
        for node in iter_nodes(fn, constants):
            if not isinstance(node, (ast.If, ast.IfExp, ast.While)) or node.lineno in seen:
                continue
            names = _tested_inputs(node.test, held, fn, constants)
            if names:
                seen.add(node.lineno)
                test = ast.unparse(node.test)
                test = test if len(test) <= 60 else test[:57] + "..."
                out.append(f"{fn.path}:{node.lineno}: `{test}` tests the keys of `{'`, `'.join(sorted(names))}` "
                           f"({fn.qualname}); a reached call passes a dict whose keys the scan cannot know, "
                           "so both branches are analysed")
    if len(out) > _MAX_LINES:
        out = out[:_MAX_LINES] + [f"... and {len(out) - _MAX_LINES} more tests on keys not known"]
    return tuple(out)


def _open_inputs(fn, constants: dict) -> set[str]:
    """The function's `**kwargs` when some reached call fills it from a dict of keys not known (a dict
    parameter is not listed: a call passing it a string or a tensor leaves its keys open too, and a test on
    those is no test of a dict's keys)."""
    kwarg = fn.node.args.kwarg.arg if fn.node.args.kwarg is not None else None
    return {kwarg} if kwarg is not None and UNKNOWN in constants.get(KWARG_KEYS, ()) else set()


def _tested_inputs(test: ast.expr, held: set[str], fn, constants: dict) -> set[str]:
    """The inputs in `held` whose keys `test` reads (`"k" in held`, `held.get("k")`, `held["k"]`, `held`)."""
    found = set()
    for node in ast.walk(test):
        name, key = None, None
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and isinstance(node.comparators[0], ast.Name):
            name = node.comparators[0].id
            key = node.left.value if isinstance(node.left, ast.Constant) else None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and isinstance(node.func.value, ast.Name) and node.args:
            name = node.func.value.id
            key = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
        elif isinstance(node, ast.Name) and node is test:
            name = node.id
        if name not in held:
            continue
        absent = absent_key(fn, name, constants)
        if isinstance(key, str) and absent is not None and absent(key):
            continue   # a key that can never be there: decided, not open
        found.add(name)
    return found
