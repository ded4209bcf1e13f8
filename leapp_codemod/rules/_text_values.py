"""Conditions that test Python text or the emptiness of a Python sequence, never a tensor: `if note:`,
`label if label else "none"` on a `str`, and a guard that only raises on an empty list (`if not frames: raise`).

The truth of a `str` is whether it is empty; a traced tensor is never a `str`, so such a test is no shape branch
(LCM001) and no branch on data (LCM201/LCM202), even when the text travels with pipeline data (a prompt next to
the images). What is text is read off the code alone: a parameter annotated `str` (or `Optional[str]`), a loop
variable over a parameter annotated as a sequence of `str`, or a local every binding of which builds text (a
string literal, an f-string, a `str` method's result, `[""] * n`, a list filled only with text)."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.context import name_stores
from leapp_codemod.rules._helpers import condition_operands
from leapp_codemod.source.guards import only_raises

_SEQUENCE_HEADS = frozenset({"list", "List", "Sequence", "Iterable", "tuple", "Tuple"})
_OPTIONAL_HEADS = frozenset({"Optional", "Union"})
# methods only a `str` has (a tensor or array has none of them), whose answer is text again
_TEXT_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "format", "join", "title", "casefold",
                           "capitalize", "removeprefix", "removesuffix"})
_DEPTH = 4


def _head(annotation: ast.expr) -> str:
    base = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else ""


def _alternatives(annotation: ast.expr) -> list[ast.expr]:
    """`Optional[T]`, `Union[T, None]`, `T | None` -> the annotations apart from None."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _alternatives(annotation.left) + _alternatives(annotation.right)
    if isinstance(annotation, ast.Subscript) and _head(annotation) in _OPTIONAL_HEADS:
        inner = annotation.slice
        return [a for e in (inner.elts if isinstance(inner, ast.Tuple) else [inner]) for a in _alternatives(e)]
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return []
    return [annotation]


def _text_annotation(annotation: ast.expr | None) -> bool:
    options = _alternatives(annotation) if annotation is not None else []
    return bool(options) and all(isinstance(a, ast.Name) and a.id == "str" for a in options)


def _texts_annotation(annotation: ast.expr | None) -> bool:
    """`list[str]`, `List[str]`, `Sequence[str]`, `Optional[List[str]]`, `tuple[str, ...]`."""
    options = _alternatives(annotation) if annotation is not None else []
    return bool(options) and all(isinstance(a, ast.Subscript) and _head(a) in _SEQUENCE_HEADS and all(
        _text_annotation(e) or isinstance(e, ast.Constant) and e.value is Ellipsis
        for e in (a.slice.elts if isinstance(a.slice, ast.Tuple) else [a.slice])) for a in options)


def _param_annotation(fn, name: str) -> ast.expr | None:
    args = fn.node.args
    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if a.arg == name:
            return a.annotation
    return None


def _loop_sources(fn, name: str) -> list[ast.expr] | None:
    """What each `for` loop (or comprehension) binding `name` iterates, the container itself (`for _, t in
    enumerate(texts)` -> `texts`, `for a, t in zip(xs, texts)` -> `texts`); None when one binds it otherwise.
    Indexed once per function."""
    index = fn.walks.get("text loop sources")
    if index is None:
        index = fn.walks["text loop sources"] = {}
        for node in fn.nodes:
            if isinstance(node, (ast.For, ast.comprehension)):
                _index_loop(node.target, node.iter, index)
    return index.get(name, [])


def _index_loop(target: ast.expr, source: ast.expr, index: dict) -> None:
    if isinstance(target, ast.Name):
        found = index.setdefault(target.id, [])
        if found is not None:
            found.append(source)
        return
    names = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
    call = source.func.id if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) else ""
    elts = target.elts if isinstance(target, ast.Tuple) else []
    for name in names:
        slots = [isinstance(t, ast.Name) and t.id == name for t in elts]
        if call == "enumerate" and len(source.args) == 1 and slots == [False, True]:
            picked = source.args[0]
        elif call == "zip" and len(source.args) == len(slots) and slots.count(True) == 1:
            picked = source.args[slots.index(True)]
        else:
            index[name] = None   # bound some other way: not known as text
            continue
        found = index.setdefault(name, [])
        if found is not None:
            found.append(picked)


def holds_text(fn, e: ast.expr, depth: int = 0) -> bool:
    """Is `e` a Python `str` by what the code says (see the module docstring)?"""
    if depth > _DEPTH:
        return False
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str)
    if isinstance(e, ast.JoinedStr):
        return True
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in _TEXT_METHODS:
        return e.func.attr in ("join", "format") or holds_text(fn, e.func.value, depth + 1)
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        return holds_text(fn, e.left, depth + 1) or holds_text(fn, e.right, depth + 1)
    if isinstance(e, ast.IfExp):
        return holds_text(fn, e.body, depth + 1) and holds_text(fn, e.orelse, depth + 1)
    if not isinstance(e, ast.Name):
        return False
    sources = _loop_sources(fn, e.id)
    if sources is None:
        return False
    values = fn.assigned(e.id)
    if name_stores(fn).get(e.id, 0) != len(values) + len(sources):
        return False   # bound some other way too (`+=`, `with ... as`, unpacking)
    if e.id in fn.params:
        annotation = _param_annotation(fn, e.id)
        if not _text_annotation(annotation):
            return False
    elif not values and not sources:
        return False
    return all(holds_text(fn, v, depth + 1) for v in values) and all(holds_texts(fn, s, depth + 1) for s in sources)


def holds_texts(fn, e: ast.expr, depth: int = 0) -> bool:
    """Is `e` a Python sequence of `str`: a parameter annotated so, a literal or comprehension of text,
    `[""] * n`, or a local every binding of which is one (an empty list counts when every `.append` to the
    name adds text)?"""
    if depth > _DEPTH:
        return False
    if isinstance(e, (ast.List, ast.Tuple)):
        return all(holds_text(fn, x, depth + 1) for x in e.elts)
    if isinstance(e, ast.ListComp):
        return holds_text(fn, e.elt, depth + 1)
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult):
        return any(isinstance(s, (ast.List, ast.Tuple)) and s.elts and holds_texts(fn, s, depth + 1)
                   for s in (e.left, e.right))
    if not isinstance(e, ast.Name):
        return False
    values = fn.assigned(e.id)
    if name_stores(fn).get(e.id, 0) != len(values):
        return False
    if e.id in fn.params and not _texts_annotation(_param_annotation(fn, e.id)):
        return False
    if not values and e.id not in fn.params:
        return False
    return all(holds_texts(fn, v, depth + 1) or _filled_with_text(fn, e.id, v, depth) for v in values)


def _filled_with_text(fn, name: str, value: ast.expr, depth: int) -> bool:
    """`name = []` and every `name.append(x)` of the function adds text."""
    if not (isinstance(value, ast.List) and not value.elts):
        return False
    appends = [n for n in fn.nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and isinstance(n.func.value, ast.Name) and n.func.value.id == name]
    return bool(appends) and all(n.func.attr == "append" and len(n.args) == 1
                                 and holds_text(fn, n.args[0], depth + 1) for n in appends)


def text_test(test: ast.expr, ctx) -> bool:
    """Does the condition read pipeline data only through the truth of Python text (`if note:`,
    `if not label.strip():`)? One operand at least is text, and every operand that is data is text."""
    operands = condition_operands(test)
    texts = [o for o in operands if holds_text(ctx.fn, o)]
    return bool(texts) and all(o in texts or not ctx.is_data(o) for o in operands)


def _length_test(e: ast.expr, ctx) -> bool:
    """`len(frames) > 0`, `len(frames) == 0`: the length of a name compared with a literal."""
    return isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(e.left, ast.Call) \
        and ctx.builtin(e.left) == "len" and len(e.left.args) == 1 and isinstance(e.left.args[0], ast.Name) \
        and isinstance(e.comparators[0], ast.Constant)


def emptiness_guard(node: ast.AST, ctx) -> bool:
    """An `if` one of whose sides only raises, testing nothing but the truth of plain names and their lengths
    against literals (`if not frames: raise ...`, `if crops and len(crops) > 0: ... else: raise ...`): it rejects
    an empty sequence, and every accepted input takes the side the trace records."""
    if not (isinstance(node, ast.If) and only_raises(node)):
        return False
    operands = condition_operands(node.test)
    return all(isinstance(o, ast.Name) or _length_test(o, ctx) or not ctx.is_data(o) for o in operands) \
        and any(isinstance(o, ast.Name) and ctx.is_data(o) for o in operands)
