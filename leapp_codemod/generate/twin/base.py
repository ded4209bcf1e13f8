"""What every twin rewrite shares: the records, the refusal, the context one rewrite pass carries,
small LibCST builders, and `TwinRule`, the transformer base each rewrite extends.

A rewrite is a `TwinRule` subclass in the style of a LibCST codemod command: it overrides the
`leave_*` methods of the nodes it rewrites and hands every other node on with `super()`, so the
driver composes all rewrites into one pass over the helper (the positions the scan flagged are
positions in the original source, which one pass keeps). Statement-level rewrites override
`statement`. Each rewrite carries `EXAMPLES` (before/after) that the test-suite runs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import PositionProvider

from leapp_codemod.knowledge.vocab import PURE_BUILTINS, PURE_LIBRARIES, PURE_METHODS, SIDE_EFFECT_METHODS

# Run-time helpers a twin may call (their source is copied from twin_helpers.py).
TENSOR_HELPERS = frozenset({"twin_scalar", "twin_min", "twin_max", "twin_where", "twin_full", "twin_tensor",
                            "twin_unpack", "twin_take", "twin_item", "twin_vector", "twin_numpy_number", "twin_math",
                            "twin_numpy_scalar"})
ALL_HELPERS = TENSOR_HELPERS | {"twin_zip", "twin_array", "twin_put"}


@dataclass(frozen=True)
class Flag:
    """One scan finding inside the helper: category and span (1-based line, 0-based columns)."""
    category: str
    line: int
    col: int
    end_line: int
    end_col: int


@dataclass(frozen=True)
class Twin:
    source: str                   # the rewritten definition, named fn_name
    helpers: tuple[str, ...]      # twin_* helpers it calls
    rules: tuple[str, ...]        # what was rewritten, in words


@dataclass(frozen=True)
class Blocked:
    line: int
    reason: str


@dataclass(frozen=True)
class Example:
    """A rewrite at work: `before` is a module defining `f`, `flags` the (category, flagged text)
    pairs the scan reports in it, `after` the twin of `f` the driver writes (docstring left out), or
    `refused` a phrase of the reason the twin is refused."""
    before: str
    flags: tuple[tuple[str, str], ...]
    after: str = ""
    refused: str = ""


class Refused(Exception):
    def __init__(self, line: int, reason: str):
        super().__init__(reason)
        self.line = line
        self.reason = reason


@dataclass
class Context:
    flags: list[Flag]
    bindings: dict[str, str]           # local name -> dotted import target
    registry: dict[str, str]           # adapter name -> kind
    used: set[Flag] = field(default_factory=set)      # flags a rule has rewritten
    rules: set[str] = field(default_factory=set)
    tainted: set[str] = field(default_factory=set)    # names holding a tensor that was a Python number
    flagged_adapters: frozenset[str] = frozenset()    # adapters of library names flagged somewhere in the helper
    tables: frozenset[str] = frozenset()              # module-level lists/tuples of numbers (see array_items)
    array_lists: bool = False                         # the scan flagged an np.array of a list in the helper
    item_params: frozenset[str] = frozenset()         # parameters whose integer items stay arrays (fresh_writes)
    loop_indices: frozenset[str] = frozenset()        # `for i in range(...)` targets: Python ints (branch_where)

    def qualified(self, func: cst.BaseExpression) -> str:
        """The dotted import target a call's function names (`np.float32` -> `numpy.float32`), or ""."""
        text = dotted(func) or ""
        head = text.split(".")[0]
        return f"{self.bindings.get(head, head)}{text[len(head):]}" if text else ""


@dataclass(frozen=True)
class Step:
    """What a statement rewrite made of the statement at the head of a block: the block so far
    (`out`, possibly edited), the rewritten statements after it, and whether the block ends here."""
    out: list
    rest: list
    done: bool = False


# ------------------------------------------------------------------------------- small builders
def name(text: str) -> cst.Name:
    return cst.Name(text)


def attr(dotted: str) -> cst.BaseExpression:
    node: cst.BaseExpression = cst.Name(dotted.split(".")[0])
    for part in dotted.split(".")[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def call(func: str, *args: cst.BaseExpression, **kwargs: cst.BaseExpression) -> cst.Call:
    items = [cst.Arg(a) for a in args] + [
        cst.Arg(v, keyword=cst.Name(k), equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        for k, v in kwargs.items()]
    return cst.Call(func=attr(func), args=items)


def arithmetic_of(node: cst.BaseExpression, names, call_ok) -> bool:
    """Numeric literals, names in `names`, unary and binary arithmetic of such, and calls `call_ok` accepts."""
    if isinstance(node, cst.Name):
        return node.value in names
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return arithmetic_of(node.expression, names, call_ok)
    if isinstance(node, cst.BinaryOperation):
        return arithmetic_of(node.left, names, call_ok) and arithmetic_of(node.right, names, call_ok)
    return isinstance(node, cst.Call) and call_ok(node)


def dotted(node: cst.BaseExpression) -> str | None:
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    return ".".join([node.value, *reversed(parts)])


def names_in(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.add(n.value)

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)
            return False

    node.visit(V())
    return found


def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            found.append(n)

    node.visit(V())
    return found


def code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def is_tensor_valued(node: cst.BaseExpression, ctx: Context) -> bool:
    """Holds a tensor that was a Python number in the original (see `Context.tainted`)."""
    if names_in(node) & ctx.tainted:
        return True
    return any(dotted(c.func) in TENSOR_HELPERS for c in calls_in(node))


def side_effect(node: cst.BaseExpression, ctx: Context) -> str | None:
    """Why evaluating `node` unconditionally could differ from the original, or None.

    Pure are: the twin helpers, a few builtins, torch/NumPy/math functions that neither work in place
    nor draw random numbers, torch adapters, and the tensor/array methods in `PURE_METHODS`. Anything
    else, a method of a parameter or object included, may change state."""
    for found in calls_in(node):
        text = dotted(found.func) or ""
        head = text.split(".")[0]
        target = ctx.bindings.get(head, head)
        last = text.rsplit(".", 1)[-1]
        if last.endswith("_") and not last.endswith("__") or "." in text and last in SIDE_EFFECT_METHODS:
            return f"`{code(found)}` changes a value in place"
        if "random" in text or last.startswith(("rand", "normal", "bernoulli", "multinomial")):
            return f"`{code(found)}` draws random numbers"
        if text in TENSOR_HELPERS or text in PURE_BUILTINS:
            continue
        if _is_adapter(found.func):
            continue
        if target.split(".")[0] in PURE_LIBRARIES:
            continue
        if isinstance(found.func, cst.Attribute) and head not in ctx.bindings and found.func.attr.value in PURE_METHODS:
            continue            # a tensor or array method that returns a new value
        return f"it calls `{text or code(found.func)}(...)`, which may have side effects"
    return None


def _is_adapter(func: cst.BaseExpression) -> bool:
    """`ADAPTERS["..."].function` and its attributes (a torch adapter written by a rewrite)."""
    while isinstance(func, cst.Attribute):
        func = func.value
    return isinstance(func, cst.Subscript) and isinstance(func.value, cst.Name) and func.value.value == "ADAPTERS"


# ------------------------------------------------------------------------------- the base rule
class TwinRule(cst.CSTTransformer):
    """Shared state and the end of every `super()` chain: nodes no rewrite claims stay as they are."""
    METADATA_DEPENDENCIES = (PositionProvider,)
    CATEGORIES: tuple[str, ...] = ()        # scan categories this rewrite answers
    EXAMPLES: tuple[Example, ...] = ()

    def __init__(self, ctx: Context):
        super().__init__()
        self.ctx = ctx
        self.depth = 0          # > 0 inside the helper being rewritten

    def pos(self, node: cst.CSTNode):
        return self.get_metadata(PositionProvider, node)

    def line(self, node: cst.CSTNode) -> int:
        return self.pos(node).start.line

    def flags_on(self, node: cst.CSTNode, *categories: str) -> list[Flag]:
        p = self.pos(node)
        start, end = (p.start.line, p.start.column), (p.end.line, p.end.column)
        return [f for f in self.ctx.flags if f.category in categories
                and (f.line, f.col) < end and start < (f.end_line, f.end_col)]

    def flagged(self, node: cst.CSTNode, category: str) -> bool:
        """The scan flagged `category` on the node's first line."""
        line = self.line(node)
        return any(f.category == category and f.line == line for f in self.ctx.flags)

    def use(self, flags: list[Flag], rule: str) -> None:
        self.ctx.used.update(flags)
        self.ctx.rules.add(rule)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return updated

    def statement(self, out: list, original: list, updated: list) -> Step | None:
        """A rewrite of the statement `updated[0]` (with `original[0]` for positions), or None."""
        return None
