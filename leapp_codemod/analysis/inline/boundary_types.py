"""Which inputs of an inline range hold a value a LEAPP boundary cannot declare (`knowledge/leapp.py`,
BOUNDARY_RECURSES_INTO): a deque, whatever it holds; a list or dict whose leaves are Python numbers; a list whose
length changes from one iteration to the next.

Read from how the enclosing function (or module) builds the value and fills it: the binding that reaches the
range (`frames = deque([obs] * 3, maxlen=3)`, `obs = {"joints": [...]}`) and what the loop adds to it
(`frames.append(obs)`, `obs["q"].append(float(q))`). A value built by a call (`controller.step(...)`) or an
item whose kind is unknown is not judged: only what the code shows is reported.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.inline.range import InlineRange
from leapp_codemod.analysis.inline.uses import uses
from leapp_codemod.knowledge.leapp import BOUNDARY_PASSES_WHOLE

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_NUMBER_CALLS = frozenset({"float", "int", "round", "len", "abs"})
_GROWERS = frozenset({"append", "appendleft", "extend", "extendleft", "insert"})
_SHRINKERS = frozenset({"pop", "popleft", "clear", "remove"})


@dataclass(frozen=True)
class Undeclarable:
    name: str
    what: str                    # "a deque of dicts", "a dict of lists of Python numbers", ...
    passed_whole: bool           # the boundary passes it through as a constant (else its length changes)
    built: int                   # the line that builds it
    filled: tuple[int, ...]      # lines of the loop that add to it
    start_after: int | None      # the range's first statement once the lines stacking it into arrays are left out
    stacked: tuple[str, ...]     # what those lines make (the inputs of that narrower range)


def _own_nodes(scope: ast.AST):
    stack = list(getattr(scope, "body", []))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _call_name(call: ast.expr) -> str | None:
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


class _Values:
    """How the scope builds and fills names: bindings by name and line, fills by name."""

    def __init__(self, scope: ast.AST) -> None:
        self.bindings: dict[str, list[tuple[int, ast.expr | None]]] = {}
        self.fills: dict[str, list[tuple[int, str, ast.expr | None, str | None]]] = {}
        for node in _own_nodes(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                            value = node.value if target is n else None   # unpacked: unknown
                            self.bindings.setdefault(n.id, []).append((node.lineno, value))
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                        key = target.slice.value if isinstance(target.slice, ast.Constant) else None
                        self.fills.setdefault(target.value.id, []).append((node.lineno, "set", node.value, key))
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
                self.bindings.setdefault(node.target.id, []).append((node.lineno, None))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr)):
                targets = [node.target] if isinstance(node, (ast.For, ast.AsyncFor, ast.NamedExpr)) else \
                    [i.optional_vars for i in node.items if i.optional_vars is not None]
                for n in (x for t in targets for x in ast.walk(t)):
                    if isinstance(n, ast.Name):
                        self.bindings.setdefault(n.id, []).append((node.lineno, None))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                self._fill_call(node)
            elif isinstance(node, ast.Delete):
                for t in node.targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                        self.fills.setdefault(t.value.id, []).append((node.lineno, "pop", None, None))

    def _fill_call(self, call: ast.Call) -> None:
        method, receiver = call.func.attr, call.func.value
        item = call.args[-1] if call.args else None
        if isinstance(receiver, ast.Name) and method in _GROWERS | _SHRINKERS:
            kind = "grow" if method in _GROWERS else "pop"
            self.fills.setdefault(receiver.id, []).append((call.lineno, kind, item if method != "extend" else None,
                                                           None))
        elif isinstance(receiver, ast.Subscript) and isinstance(receiver.value, ast.Name) and method in _GROWERS:
            # `obs["q"].append(v)`: the list under that key grows
            key = receiver.slice.value if isinstance(receiver.slice, ast.Constant) else None
            self.fills.setdefault(receiver.value.id, []).append((call.lineno, "grow-item", item, key))

    def number(self, e: ast.expr | None, depth: int = 0) -> bool:
        """A Python number: a literal, `float(...)`, `x.item()`, or a name every binding of which is one."""
        if isinstance(e, ast.UnaryOp):
            e = e.operand
        if isinstance(e, ast.Constant):
            return isinstance(e.value, (int, float)) and not isinstance(e.value, bool)
        if isinstance(e, ast.Call):
            name = _call_name(e)
            return (isinstance(e.func, ast.Name) and name in _NUMBER_CALLS) or (
                isinstance(e.func, ast.Attribute) and name == "item" and not e.args)
        if isinstance(e, ast.BinOp) and depth < 3:
            return self.number(e.left, depth + 1) and self.number(e.right, depth + 1)
        if isinstance(e, ast.Name) and depth < 3:
            bound = self.bindings.get(e.id, [])
            return bool(bound) and all(self.number(v, depth + 1) for _, v in bound)
        return False

    def leaf_problem(self, e: ast.expr | None, depth: int = 0) -> str | None:
        """What makes an item undeclarable ('Python numbers', 'deques'), or None (an array, or unknown)."""
        if e is None or depth > 3:
            return None
        if self.number(e):
            return "Python numbers"
        if _call_name(e) in BOUNDARY_PASSES_WHOLE:
            return "deques"
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "tolist":
            return "lists of Python numbers"
        items = _display_items(e)
        if items:
            found = [p for p in (self.leaf_problem(i, depth + 1) for i in items) if p]
            if found:
                return f"{'dicts' if isinstance(e, (ast.Dict, ast.DictComp)) else 'lists'} of {found[0]}"
        if isinstance(e, ast.Name) and depth < 3:
            bound = self.bindings.get(e.id, [])
            found = [self.leaf_problem(v, depth + 1) for _, v in bound]
            if bound and all(found):
                return found[0]
        return None


def _display_items(e: ast.expr) -> list[ast.expr]:
    if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
        return list(e.elts)
    if isinstance(e, ast.Dict):
        return list(e.values)
    if isinstance(e, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return [e.elt]
    if isinstance(e, ast.DictComp):
        return [e.value]
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult):     # `[obs] * n`
        return _display_items(e.left) or _display_items(e.right)
    return []


def _container(value: ast.expr | None) -> tuple[str, list[ast.expr], bool] | None:
    """(kind, items, starts empty) of a list, dict or deque the code builds, else None."""
    name = _call_name(value)
    if name in BOUNDARY_PASSES_WHOLE:
        items = _display_items(value.args[0]) if value.args else []
        return name, items, not items
    if isinstance(value, (ast.List, ast.ListComp)) or (isinstance(value, ast.BinOp) and _display_items(value)):
        items = _display_items(value)
        return "list", items, not items
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return "dict", _display_items(value), not _display_items(value)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and name in ("list", "dict") \
            and not value.args:
        return name, [v.value for v in value.keywords], not value.keywords
    return None


def _reaching(values: _Values, rng: InlineRange, name: str) -> list[tuple[int, ast.expr | None]]:
    """The bindings of `name` that reach the range: the last one before it, and those later in its loop."""
    bound = values.bindings.get(name, [])
    before = [b for b in bound if b[0] < rng.start]
    out = [max(before, key=lambda b: b[0])] if before else []
    loop = rng.loop
    if loop is not None and not (out and loop.lineno < out[0][0]):
        out += [b for b in bound if rng.end < b[0] <= (loop.end_lineno or 0)]
    return out


def _in_loop(rng: InlineRange, line: int) -> bool:
    return rng.loop is not None and rng.loop.lineno < line <= (rng.loop.end_lineno or 0)


def _judge(values: _Values, rng: InlineRange, name: str) -> tuple[str, bool, int, tuple[int, ...]] | None:
    reaching = _reaching(values, rng, name)
    built = [(line, _container(v)) for line, v in reaching]
    if not built or any(c is None for _, c in built):
        return None
    line, (kind, items, empty) = built[0]
    fills = [f for f in values.fills.get(name, []) if f[0] > line or _in_loop(rng, f[0])]
    grows = [f for f in fills if f[1] in ("grow", "set") and _in_loop(rng, f[0])]
    shrinks = any(f[1] == "pop" for f in fills)
    filled = tuple(sorted({f[0] for f in grows}))
    items = [*items, *(f[2] for f in fills if f[1] in ("grow", "set") and f[2] is not None)]
    problems = [p for p in (values.leaf_problem(i) for i in items) if p]
    grown_keys = [f for f in fills if f[1] == "grow-item"]
    if kind in BOUNDARY_PASSES_WHOLE:
        what = f"a {kind}" + (f" of {_plural(items[0])}" if items and _plural(items[0]) else "")
        return what, True, line, filled
    if problems:
        return f"a {kind} of {problems[0]}", True, line, filled
    if kind == "dict" and grown_keys:
        return "a dict of lists that grow every iteration", False, line, tuple(sorted({f[0] for f in grown_keys}))
    if kind == "list" and grows and (empty or not shrinks) and all(f[1] == "grow" for f in grows):
        return "a list whose length changes between iterations", False, line, filled
    return None


def _plural(item: ast.expr) -> str:
    if isinstance(item, (ast.Dict, ast.DictComp)):
        return "dicts"
    if isinstance(item, (ast.List, ast.ListComp)):
        return "lists"
    return ""


def _stacking_prefix(rng: InlineRange, name: str) -> tuple[int | None, tuple[str, ...]]:
    """When the range's first statements are the only ones that read `name` and each binds plain names (`x =
    np.stack([o["img"] for o in frames])`): the line of the statement after them and the names they bind that the
    rest of the range reads."""
    statements = list(rng.statements)
    readers = [i for i, s in enumerate(statements) if any(n == name and k == "r" for n, k, _ in uses([s]))]
    if not readers:
        return None, ()
    last = readers[-1]
    prefix, rest = statements[:last + 1], statements[last + 1:]
    if not rest or not all(isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets)
                           for s in prefix):
        return None, ()
    made = [t.id for s in prefix for t in s.targets]
    read_later = {n for n, k, _ in uses(rest) if k == "r"}
    return rest[0].lineno, tuple(n for n in dict.fromkeys(made) if n in read_later)


def undeclarable_inputs(rng: InlineRange) -> dict[str, Undeclarable]:
    """The range's inputs whose value a LEAPP boundary passes through as a constant or cannot re-enter with."""
    values = _Values(rng.scope)
    out: dict[str, Undeclarable] = {}
    for name in rng.inputs:
        judged = _judge(values, rng, name)
        if judged is None:
            continue
        what, whole, built, filled = judged
        start_after, stacked = _stacking_prefix(rng, name)
        out[name] = Undeclarable(name, what, whole, built, filled, start_after, stacked)
    return out
