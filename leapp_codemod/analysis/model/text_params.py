"""Parameters the annotations say hold text: Python strings, never pipeline data."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import FunctionInfo

_TEXT_CONTAINERS = frozenset({"list", "sequence", "iterable", "collection", "tuple", "set", "frozenset", "optional",
                              "mutablesequence", "abstractset"})


# Methods only Python text has (not arrays, tensors, lists or dicts; not `split`/`replace`, which tensors and
# tables have too): a parameter the function calls one on holds a string.
TEXT_ONLY_METHODS = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "casefold", "title", "capitalize",
                               "startswith", "endswith", "encode", "splitlines", "isdigit", "isalpha", "zfill"})


def text_params(fn: FunctionInfo) -> set[str]:
    """Parameters annotated as text (`prompt: str`, `names: Sequence[str]`, `Optional[List[str]]`), or that the
    function calls a text-only method on (`task_label.lower()`): they hold Python strings, never pipeline data,
    whatever a caller's data-flow says about the value it passes."""
    key = "text_params"
    found = fn.walks.get(key)
    if found is None:
        args = fn.node.args
        params = [a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        found = {a.arg for a in params if a.annotation is not None and _text_annotation(a.annotation)}
        names = {a.arg for a in params}
        found |= {n.func.value.id for n in fn.nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                  and n.func.attr in TEXT_ONLY_METHODS and isinstance(n.func.value, ast.Name)
                  and n.func.value.id in names}
        fn.walks[key] = found
    return found


def _text_annotation(note: ast.expr, depth: int = 0) -> bool:
    if isinstance(note, ast.Constant) and isinstance(note.value, str) and depth < 2:
        try:
            return _text_annotation(ast.parse(note.value, mode="eval").body, depth + 1)
        except SyntaxError:
            return False
    if isinstance(note, ast.Name):
        return note.id == "str"
    if isinstance(note, ast.Subscript):
        head = note.value.attr if isinstance(note.value, ast.Attribute) else getattr(note.value, "id", "")
        items = note.slice.elts if isinstance(note.slice, ast.Tuple) else [note.slice]
        items = [i for i in items if not (isinstance(i, ast.Constant) and i.value in (Ellipsis, None))]
        return head.lower() in _TEXT_CONTAINERS and bool(items) and all(_text_annotation(i, depth) for i in items)
    if isinstance(note, ast.BinOp) and isinstance(note.op, ast.BitOr):   # `str | None`
        parts = [p for p in (note.left, note.right) if not (isinstance(p, ast.Constant) and p.value is None)]
        return bool(parts) and all(_text_annotation(p, depth) for p in parts)
    return False
