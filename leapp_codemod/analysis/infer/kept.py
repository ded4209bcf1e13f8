"""State kept outside `self` (LCM701): writes into an object the caller keeps and passes to the step again on
every call (`facts.kept_params`, see `analysis/model/kept_arguments.py`), or into a module-level container
the step fills, when pipeline data goes in and the slot written is read back."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.kept_arguments import module_container
from leapp_codemod.knowledge.vocab import CONTAINER_MUTATORS, INPLACE_EXCEPTIONS


class KeptQuestions:
    """Mixin of `FunctionContext` (through `StateQuestions`): state in objects the caller keeps."""

    def kept_root(self, expr: ast.expr) -> str | None:
        """The name under `expr` (`mem`, `mem["h"]`, `mem.prev`) when it is an object kept from one call to
        the next outside self: a parameter the caller passes again on every call (`facts.kept_params`), never
        rebound here, or a module-level container the function does not bind."""
        params = self.facts.kept_params.get(self.fn.id, ())
        if not params and not self._module_containers():
            return None   # nothing kept here (most functions): no walk
        while isinstance(expr, (ast.Subscript, ast.Attribute)):
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        name = expr.id
        if self.fn.assigned(name) or name in self.fn.carried:
            return None
        if name in self.facts.kept_params.get(self.fn.id, ()):
            return name
        if name not in self.fn.params and name in self._module_containers() \
                and name not in self.declared_globals() and name not in self._local_names():
            return name
        return None

    def _module_containers(self) -> frozenset[str]:
        """The module's globals that are containers it keeps (see `module_container`), found once."""
        key = ("module_containers", self.module.name)
        found = self.project.memo.get(key)
        if found is None:
            found = self.project.memo[key] = frozenset(g for g in self.module.globals
                                                       if module_container(self.module, g))
        return found

    def _local_names(self) -> frozenset[str]:
        known = self.fn.walks.get("stored_names")
        if known is None:
            known = self.fn.walks["stored_names"] = frozenset(
                n.id for n in self.fn.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        return known

    def is_kept_state(self, state: str) -> bool:
        """Is `state` (as `kept_write` names it: `mem["h"]`, `mem[]`, `mem.prev`) in a kept object?"""
        root = state.partition("[")[0].partition(".")[0]
        return state != root and (root in self.facts.kept_params.get(self.fn.id, ()) or
                                  module_container(self.module, root))

    def kept_write(self, node: ast.AST) -> tuple[str | None, str] | None:
        """A write into an object the caller keeps (see `kept_root`): (its name, 'inplace') when pipeline
        data goes in and the written slot is read back (earlier in this call, or by another function that
        reads the kept object), so the next call sees it; (None, '') when the write lands in a kept object
        but is no state (a constant, a slot nothing reads); None when `node` writes no kept object."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = node.func.value
            root = self.kept_root(receiver)
            method = node.func.attr
            if root is None or not (method in CONTAINER_MUTATORS or method.endswith("_") and not method.endswith("__")
                                    and method not in INPLACE_EXCEPTIONS):
                return None
            if _slot_is_attribute(receiver) and not self._kept_project_object(root):
                return None
            if not self.args_data(node):
                return None, ""
            key = _slot_key(receiver, root)
            if method.endswith("_") or self._kept_slot_read(root, key, node.lineno, node, receiver):
                return _kept_name(root, key, _slot_is_attribute(receiver)), "inplace"
            return None, ""
        if isinstance(node, ast.AugAssign):
            target, value = node.target, node.value
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            target, value = targets[0], node.value
            if len(targets) != 1:
                return None
        else:
            return None
        if not isinstance(target, (ast.Subscript, ast.Attribute)):
            return None
        root = self.kept_root(target)
        if root is None:
            return None
        if _slot_is_attribute(target) and not self._kept_project_object(root):
            return None   # `data.qpos[:] = q` on a simulator's object: a field it reads, not the step's memory
        if not self.is_data(value):
            return None, ""
        key = _slot_key(target, root)
        if key is None or isinstance(node, ast.AugAssign) \
                or self._kept_slot_read(root, key, node.lineno, value, target):
            return _kept_name(root, key, _slot_is_attribute(target)), "inplace"   # an element of a kept array (`cmd[3] = a[0]`) or `+=`
        return None, ""

    def _kept_project_object(self, root: str) -> bool:
        """Can the kept object `root` be one of the project's own (a type of a project class, or no known type;
        never a library object such as a simulator's data, whose fields the library reads)?"""
        types = self.types_of(ast.Name(id=root, ctx=ast.Load()))
        return not types or any(":" in t for t in types)

    def _kept_slot_read(self, root: str, key, line: int, value: ast.AST, target: ast.expr) -> bool:
        """Is the slot `root[key]` (`root.key`; the object itself for key None) read where the next call
        sees what this write left: in this function on or before `line` or in the written value, or in
        another function of the pipeline that reads the kept object?"""
        inside = {id(n) for n in ast.walk(value)} - {id(n) for n in ast.walk(target)}
        written = {id(n) for n in ast.walk(target)}
        own = [n for n in self.fn.nodes if id(n) not in written and (id(n) in inside or getattr(n, "lineno", line + 1)
                                                                      <= line)]
        if _reads_slot(own, {root}, key):
            return True
        for fid, params in self.facts.kept_params.items():
            if fid == self.fn.id:
                continue
            module, _, qualname = fid.partition(":")
            fn = self.project.modules[module].functions.get(qualname) if module in self.project.modules else None
            if fn is not None and _reads_slot(fn.nodes, set(params), key):
                return True
        return False


def _slot_key(expr: ast.expr, root: str):
    """The key of the kept object `expr` writes or reads: 'h' for `mem["h"][0]`, 'prev' for `mem.prev`,
    None for an element of the object itself (`cmd[3]`, `hist`)."""
    chain = []
    while isinstance(expr, (ast.Subscript, ast.Attribute)):
        chain.append(expr)
        expr = expr.value
    if not chain:
        return None
    first = chain[-1]
    if isinstance(first, ast.Attribute):
        return first.attr
    if isinstance(first.slice, ast.Constant) and isinstance(first.slice.value, str):
        return first.slice.value
    return None


def _slot_is_attribute(expr: ast.expr) -> bool:
    """Is the first access under the kept name an attribute (`mem.prev[0]`), not an item?"""
    first = None
    while isinstance(expr, (ast.Subscript, ast.Attribute)):
        first = expr
        expr = expr.value
    return isinstance(first, ast.Attribute)


def _kept_name(root: str, key, attribute: bool = False) -> str:
    """How a kept slot is named as state: `mem["h"]`, `mem.prev`, `mem[]` (never a declarable identifier)."""
    if attribute:
        return f"{root}.{key}"
    return f"{root}[{key!r}]".replace("'", '"') if key is not None else f"{root}[]"


def _reads_slot(nodes, roots: set[str], key) -> bool:
    """Does one of `nodes` load `root[key]` / `root.key` (the root itself for key None) for a root in `roots`?"""
    for n in nodes:
        if key is None:
            if isinstance(n, ast.Name) and n.id in roots and isinstance(n.ctx, ast.Load):
                return True
            continue
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in roots \
                and isinstance(n.slice, ast.Constant) and n.slice.value == key and isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in roots \
                and n.attr == key and isinstance(n.ctx, ast.Load):
            return True
    return False
