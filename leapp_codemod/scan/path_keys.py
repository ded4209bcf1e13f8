"""Keys of the model-path slice (`scan.model_path`): what a statement reads and writes, by name.

`self.x` is ("s", family, "x") (the family: the root of the class's project hierarchy, so a base's attribute is a
subclass's), `holder.x` is ("a", "x"), a deeper field `self.cmd.q` is the pair ("p", "cmd", "q") (a command's `q`
is not a state's), a local is (function id, name), a module name ("g", name). A store into a field also writes the
objects that hold it; a store into a local object's field writes the local.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)   # scopes of their own


@dataclass(frozen=True)
class Scope:
    locals: frozenset[str]
    self_name: str | None
    family: str | None     # the root of the class's project hierarchy: `self.x` of a base is a subclass's


def strip(node: ast.expr) -> ast.expr:
    while isinstance(node, (ast.Subscript, ast.Starred)):
        node = node.value
    return node


def key_of(fid: str, scope: Scope, node: ast.expr) -> tuple | None:
    """A name's key, or an attribute's: `self.x` is ("s", family, "x") (the family: the root of the class's
    project hierarchy), `holder.x` is ("a", "x"); deeper, `self.cmd.q` is the pair ("p", "cmd", "q"), so that a
    command's field `q` is not a state's `q`, nor one class's `start_pos` another's."""
    if isinstance(node, ast.Name):
        return (fid, node.id) if node.id in scope.locals else ("g", node.id)
    if isinstance(node, ast.Attribute):
        parent = strip(node.value)
        if isinstance(parent, ast.Attribute):
            return ("p", parent.attr, node.attr)
        if isinstance(parent, ast.Name) and parent.id == scope.self_name and scope.family:
            return ("s", scope.family, node.attr)
        return ("a", node.attr)
    return None


def attribute_reads(fid: str, scope: Scope, node: ast.Attribute) -> set:
    """What reading `node` reads: its key, and for `self.holder.x` also ("a", "x") (the holder's own methods
    write it as `self.x`)."""
    found = {key_of(fid, scope, node)}
    parent = strip(node.value)
    if isinstance(parent, ast.Attribute) and isinstance(strip(parent.value), ast.Name):
        found.add(("a", node.attr))
    return found


class KeySet(set):
    """Keys, indexed by the attribute names their self-attribute and pair keys end in."""

    def __init__(self, *args):
        super().__init__(*args)
        self.leaves: set[str] = {k[-1] for k in self if k[0] in ("s", "p")}

    def add(self, key) -> None:
        super().add(key)
        if key[0] in ("s", "p"):
            self.leaves.add(key[-1])

    def __ior__(self, other):
        for key in other:
            self.add(key)
        return self

    def holds_write(self, key) -> bool:
        """Does a store of `key` meet a read in this set?"""
        return key in self or (key[0] in ("s", "p") and ("a", key[-1]) in self) or (
            key[0] == "a" and key[1] in self.leaves)

    def holds_read(self, key) -> bool:
        """Does a read of `key` meet a store in this set?"""
        return key in self or (key[0] == "a" and key[1] in self.leaves) or (
            key[0] in ("s", "p") and ("a", key[-1]) in self)


def writes_meet(writes: set, reads: KeySet) -> bool:
    return any(reads.holds_write(k) for k in writes)


def reads_meet(reads: set, writes: KeySet) -> bool:
    return any(writes.holds_read(k) for k in reads)


def reads_of(fid: str, scope: Scope, expr: ast.AST | None) -> set:
    if expr is None:
        return set()
    found = set()
    todo = [expr]
    while todo:
        node = todo.pop()
        if isinstance(node, NESTED) and node is not expr:
            if isinstance(node, ast.Lambda):   # a lambda's body reads the names it closes over
                todo.append(node.body)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id != scope.self_name:   # the instance is the context, not a value
                found.add(key_of(fid, scope, node))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            found |= attribute_reads(fid, scope, node)
        todo.extend(ast.iter_child_nodes(node))
    return found


def writes_of(fid: str, scope: Scope, target: ast.expr) -> set:
    """What a store writes: a name, an attribute, or the local object whose field or item it fills
    (`cmd[i].q = v` fills the local `cmd`)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(writes_of(fid, scope, t) for t in target.elts)) if target.elts else set()
    target = strip(target)
    base = target
    while isinstance(base, (ast.Attribute, ast.Subscript)):
        base = base.value
    if isinstance(target, ast.Attribute) and isinstance(base, ast.Name) and base.id in scope.locals \
            and base.id != scope.self_name:
        return {(fid, base.id)}
    key = key_of(fid, scope, target)
    if key is None:
        return set()
    found = {key}
    parent = strip(target.value) if isinstance(target, ast.Attribute) else None
    while isinstance(parent, ast.Attribute):   # `self.frame.servos[k].angle = v` fills what `self.frame` holds
        found.add(key_of(fid, scope, parent))
        parent = strip(parent.value)
    return found
