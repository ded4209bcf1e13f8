"""Small helpers shared by rule modules."""
from __future__ import annotations

import ast

_MAX_SHOWN = 60


def show(node: ast.AST) -> str:
    """The expression as source text, shortened for a one-line message."""
    try:
        text = ast.unparse(node)
    except (ValueError, TypeError, RecursionError):
        return "<expression>"
    text = " ".join(text.split())
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def enclosing_name(fn_qualname: str) -> str:
    return fn_qualname.rsplit(".", 1)[-1]


def is_negative_number(node: ast.expr | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float)) \
            and node.operand.value > 0
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and node.value < 0


def is_number(node: ast.expr | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return is_number(node.operand)
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
