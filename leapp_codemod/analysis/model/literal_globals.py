"""Module tensors that are constants: built from literals and never written."""
from __future__ import annotations

import ast


def literal_constant(value: ast.expr, name: str, mod) -> bool:
    """A module tensor built from literals (`ORDER = torch.tensor([1, 5, 0], dtype=torch.int64)`) that no code of
    the module writes into or rebinds: a constant of every call, not pipeline data."""
    if not (isinstance(value, ast.Call) and value.args
            and all(_literal(a) for a in (*value.args, *(k.value for k in value.keywords if k.arg != "dtype")))):
        return False
    for node in mod.nodes:
        if isinstance(node, ast.Global) and name in node.names:
            return False
        target = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr.endswith("_") and not node.func.attr.endswith("__") else None
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            target = next((t.value for t in targets if isinstance(t, ast.Subscript)), None)
        while isinstance(target, ast.Subscript):
            target = target.value
        if isinstance(target, ast.Name) and target.id == name:
            return False
    return True


def _literal(e: ast.expr) -> bool:
    if isinstance(e, (ast.List, ast.Tuple)):
        return all(_literal(x) for x in e.elts)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return _literal(e.operand)
    return isinstance(e, ast.Constant) and isinstance(e.value, (int, float, bool))
