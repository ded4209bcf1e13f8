"""Which locals of a function may share one object, and which hold an object from outside it (for `relevance`)."""
from __future__ import annotations

import ast

from leapp_codemod.knowledge.vocab import SHARING_METHODS
from leapp_codemod.source.astwalk import walked


def _aliases(nodes: tuple[ast.AST, ...], outside: frozenset[str], modules: frozenset[str]
             ) -> tuple[list[set[str]], frozenset[str]]:
    """(groups of locals that may share one object: `row = rows[-1]`, `for buf in bufs:`, `x = y`, where filling
    one fills all; the locals bound to an object from outside the call: `buf = self.buf`, `for p in params:`)."""
    groups: list[set[str]] = []
    foreign: set[str] = set()
    for node in nodes:   # the function's nodes, `ast.walk` order
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, ast.Assign):
            pairs = [(t, node.value) for t in node.targets]
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            pairs = [(node.target, node.iter)]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            pairs = [(i.optional_vars, i.context_expr) for i in node.items if i.optional_vars is not None]
        for target, whole in pairs:
            names = _target_names(target)
            unpacked = isinstance(target, (ast.Tuple, ast.List)) or isinstance(node, (ast.For, ast.AsyncFor))
            for value in _parts(whole, isinstance(node, (ast.For, ast.AsyncFor)), unpacked):
                if isinstance(value, ast.Call) and not (isinstance(value.func, ast.Attribute)
                                                        and value.func.attr in SHARING_METHODS):
                    continue   # a fresh value (`np.zeros(3)`, `Msg()`, `x.sum()`)
                root = root_of(value)
                if isinstance(value, ast.Call) and isinstance(root, ast.Name) and root.id in modules:
                    continue   # `np.squeeze(x)` ... a library function's value
                if not isinstance(root, ast.Name):
                    continue   # `x * 2`: a new object
                if root.id in outside:
                    foreign |= names
                    continue
                group = names | {root.id}
                if len(group) < 2:
                    continue
                for g in [g for g in groups if g & group]:
                    groups.remove(g)
                    group |= g
                groups.append(group)
    return groups, frozenset(foreign)


def _parts(value: ast.expr, iterated: bool, unpacked: bool) -> list[ast.expr]:
    """The values a binding may take its objects from: the items of a tuple or list display it unpacks
    (`a, b = x, y`); for a loop, the iterables a plain call walks (`zip(self.frames, images)`, `enumerate(bufs)`).
    A display bound whole is a new object (`rows = [row]`)."""
    if isinstance(value, (ast.Tuple, ast.List)):
        return [p for e in value.elts for p in _parts(e, iterated, unpacked)] if unpacked else []
    if iterated and isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return [p for a in value.args for p in _parts(a, iterated, True)]
    return [value]


def root_of(expr: ast.expr) -> ast.expr:
    while isinstance(expr, (ast.Attribute, ast.Subscript, ast.Starred)) \
            or (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)):
        expr = expr.func.value if isinstance(expr, ast.Call) else expr.value
    return expr


def _target_names(target: ast.expr) -> set[str]:
    return {n.id for n in walked(target) if isinstance(n, ast.Name)}
