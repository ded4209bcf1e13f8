"""`ast.walk` without its per-node generator layers: the same nodes in the same (breadth-first) order.

`ast.walk` asks `iter_child_nodes`, which asks `iter_fields`, for every node; here each node class's field
names are looked up once and the children are read directly. The scan walks every module and every function
once or more, so the walk is a visible part of its time.
"""
from __future__ import annotations

import ast
from collections import deque

_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(cls._fields)
    return found


def walk(node: ast.AST):
    """Every node under `node` (itself included), in `ast.walk` order."""
    AST = ast.AST
    todo = deque([node])
    pop, push = todo.popleft, todo.append
    fields = _FIELDS
    while todo:
        node = pop()
        names = fields.get(node.__class__) or _fields(node.__class__)
        for name in names:
            value = getattr(node, name, None)
            if isinstance(value, AST):
                push(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        push(item)
        yield node


def walked(node: ast.AST) -> tuple[ast.AST, ...]:
    """`tuple(walk(node))`, built without a generator."""
    AST = ast.AST
    out = [node]
    push = out.append
    fields = _FIELDS
    for node in out:    # grows while read: breadth first, as `ast.walk`
        names = fields.get(node.__class__) or _fields(node.__class__)
        for name in names:
            value = getattr(node, name, None)
            if isinstance(value, AST):
                push(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        push(item)
    return tuple(out)


def children(node: ast.AST) -> list[ast.AST]:
    """`list(ast.iter_child_nodes(node))`."""
    AST = ast.AST
    out: list[ast.AST] = []
    for name in _FIELDS.get(node.__class__) or _fields(node.__class__):
        value = getattr(node, name, None)
        if isinstance(value, AST):
            out.append(value)
        elif isinstance(value, list):
            out += [item for item in value if isinstance(item, AST)]
    return out


def statement_heads(stmt: ast.stmt) -> list[ast.AST]:
    """What a statement evaluates itself (a compound statement's test, iterable, items, handlers' types)."""
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.iter]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return [item.context_expr for item in stmt.items]
    if isinstance(stmt, ast.Try):
        return [h.type for h in stmt.handlers if h.type is not None]
    return [stmt]
