"""Input fields a step only copies into the object it returns: host-side pass-through, read without importing.

A reply message often carries fields of the request unchanged (a time stamp, a sequence number, a frame id:
`return Reply(stamp=msg.stamp, cmd=u)`, `return {"seq": packet["seq"], "cmd": u}, conf`). Such a field never
enters the computation: it is no input of the export and may change on every call. Only the computed fields
of the returned object are outputs of the graph; the host copies the rest from the request to the reply.

Found by dataflow, like the host-side arguments of a send (`generate.sent`): the returned value's leaves (the
items of a returned tuple, the arguments and assigned fields of a message object built in the return or in a
local assigned once before it, the values of a dict literal with string keys) that are a plain field of a
parameter (`msg.stamp`, `packet["seq"]`, `msg.header`), or a local assigned once from one and read nowhere
else, are pass-through. A field that a computed leaf of the same return also reads is not. `run` counts only
reads of the field at these lines as host side (`runner.unread_parts`): a read anywhere else still refuses a
field that changes between calls."""
from __future__ import annotations

import ast

from leapp_codemod.generate.sent import (
    built_locals,
    local_bindings,
    own_nodes,
    sent_candidates,
)

ChainRead = tuple[int, str]      # (line, `msg.header.stamp` / `packet['seq']`)


def _field_chain(node: ast.expr, params: set[str]) -> bool:
    """`msg.stamp`, `msg.header.stamp`, `packet["seq"]`, `msg.meta["id"]`: attributes and constant keys
    on a parameter."""
    if isinstance(node, ast.Attribute):
        return _field_chain(node.value, params) or isinstance(node.value, ast.Name) and node.value.id in params
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, (str, int)) and not isinstance(node.slice.value, bool):
        inner = node.value
        return isinstance(inner, ast.Name) and inner.id in params or _field_chain(inner, params)
    return False


def _params(fn: ast.FunctionDef, is_method: bool) -> set[str]:
    positional = [*fn.args.posonlyargs, *fn.args.args]
    if is_method and positional:
        positional = positional[1:]
    return {a.arg for a in (*positional, *fn.args.kwonlyargs)}


def _dict_locals(fn: ast.FunctionDef) -> dict:
    """Locals assigned once from a dict literal with string keys (`reply = {"seq": ..., "cmd": u}`), in the
    form `sent._built_locals` gives constructors, with the keys assigned afterwards (`reply["cmd"] = u`)."""
    bound = local_bindings(fn)
    built = {name: (values[0], []) for name, values in bound.items()
             if len(values) == 1 and isinstance(values[0], ast.Dict) and values[0].keys
             and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in values[0].keys)}
    for node in sorted((n for n in own_nodes(fn) if isinstance(n, ast.Assign)), key=lambda n: n.lineno):
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and target.value.id in built and isinstance(target.slice, ast.Constant) \
                    and isinstance(target.slice.value, str):
                built[target.value.id][1].append((target.slice.value, node.value))
    return built


def _leaves(value: ast.expr, built: dict) -> list[ast.expr]:
    """The leaf expressions of a returned value: tuple items, then fields of built objects and dict literals."""
    if isinstance(value, (ast.Tuple, ast.List)):
        return [leaf for item in value.elts
                for leaf in _leaves(item.value if isinstance(item, ast.Starred) else item, built)]
    return [c.value for c in sent_candidates(value, (), None, built, frozenset())]


def _aliases(fn: ast.FunctionDef, params: set[str]) -> dict[str, ast.expr]:
    """Locals assigned exactly once, from a field chain of a parameter (`stamp = msg.header.stamp`)."""
    return {name: values[0] for name, values in local_bindings(fn).items()
            if len(values) == 1 and values[0] is not None and _field_chain(values[0], params)}


def _loads(fn: ast.FunctionDef, name: str) -> list[ast.Name]:
    return [n for n in own_nodes(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]


def _chain_reads(node: ast.AST, params: set[str]) -> list[ChainRead]:
    """(line, text) of every outermost field chain on a parameter inside `node`."""
    found: list[ChainRead] = []
    stack = [node]
    while stack:
        sub = stack.pop()
        if isinstance(sub, (ast.Attribute, ast.Subscript)) and _field_chain(sub, params):
            found.append((sub.lineno, ast.unparse(sub)))
            continue
        stack.extend(ast.iter_child_nodes(sub))
    return found


def related(a: str, b: str) -> bool:
    """One chain is the other or a part of it (`msg.header` and `msg.header.stamp`, `p['a']` and `p['a'][0]`)."""
    return a == b or a.startswith((b + ".", b + "[")) or b.startswith((a + ".", a + "["))


def pass_through_reads(fn: ast.FunctionDef, is_method: bool) -> tuple[ChainRead, ...]:
    """(line, field) of the input fields the step only copies into the objects it returns."""
    params = _params(fn, is_method)
    if not params:
        return ()
    built = built_locals(fn) | _dict_locals(fn)
    aliases = _aliases(fn, params)
    alias_uses: dict[str, int] = {}
    found: set[ChainRead] = set()
    for ret in (n for n in own_nodes(fn) if isinstance(n, ast.Return) and n.value is not None):
        leaves = _leaves(ret.value, built)
        copied, computed = [], []
        for leaf in leaves:
            if _field_chain(leaf, params):
                copied.append((leaf.lineno, ast.unparse(leaf)))
            elif isinstance(leaf, ast.Name) and leaf.id in aliases:
                alias_uses[leaf.id] = alias_uses.get(leaf.id, 0) + 1
                source = aliases[leaf.id]
                copied.append((source.lineno, ast.unparse(source)))
            else:
                computed.append(leaf)
        data = [text for leaf in computed for _, text in _chain_reads(leaf, params)]
        found |= {(line, text) for line, text in copied if not any(related(text, d) for d in data)}
    # an alias read anywhere but as a copied field also feeds the computation: its field is no pass-through
    for name, source in aliases.items():
        if alias_uses.get(name, 0) != len(_loads(fn, name)):
            found.discard((source.lineno, ast.unparse(source)))
    return tuple(sorted(found))
