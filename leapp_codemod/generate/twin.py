"""Traceable twins: an application helper's source, copied with LibCST (untouched code keeps its
comments and layout) and rewritten only where the rewrite provably keeps the values.

Rules (each applies only at the places the scan flagged, and to values derived from them):

* numpy-negative-stride: `a[::-1]` -> `np.flip(a, axis=0)` (also with other plain indices);
* numpy-astype: `.astype(np.uint16)` -> `.astype(np.int32)` (a dtype LEAPP exports, same values);
* foreign-library / unmapped-numpy: a library name with a torch adapter in `leapp_codemod.adapters`
  -> `ADAPTERS["<name>"].function`;
* scalar-extraction: `t.item()`, `float(t)`, `int(t)` -> a 0-d tensor (`twin_scalar`); the values
  computed from it stay tensors: `min`/`max` -> `twin_min`/`twin_max`, `torch.full(size, v)` ->
  `twin_full`; an elementwise loop over zipped `tolist()` sequences that appends to a list ->
  whole-tensor arithmetic (`twin_zip`), and `torch.tensor(list)` -> `twin_tensor`;
* tensor-branch: a value-dependent ternary, `if c: return a` chains and `if`/`else` that assign the
  same names -> `twin_where` (both sides evaluated, so they must be free of side effects).

Anything else (a loop with a data-dependent trip count, a side effect in a branch, a Python number
that has become a tensor reaching a call that needs a number, a library call without an adapter)
refuses the twin and names the line that blocked it.
"""
from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

_UNSIGNED = {"uint16": "int32", "uint32": "int64", "uint64": "int64"}
_EXTRACT_CASTS = frozenset({"float", "int"})
# torch / NumPy functions whose arguments are sizes or fill values: a tensor there is read as a number.
_NEEDS_NUMBERS = frozenset({"full_like", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye",
                            "randint", "range"})
_REWRITTEN = ("numpy-negative-stride", "numpy-astype", "foreign-library", "unmapped-numpy", "scalar-extraction",
              "tensor-branch")
_TENSOR_HELPERS = frozenset({"twin_scalar", "twin_min", "twin_max", "twin_where", "twin_full", "twin_tensor"})
_MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
                               "add", "discard", "write", "put", "send", "__setitem__"})
_PURE_BUILTINS = frozenset({"abs", "min", "max", "len", "float", "int", "bool", "round", "tuple", "list"})


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


class Refused(Exception):
    def __init__(self, line: int, reason: str):
        super().__init__(reason)
        self.line = line
        self.reason = reason


@dataclass
class _Context:
    flags: list[Flag]
    bindings: dict[str, str]           # local name -> dotted import target
    registry: dict[str, str]           # adapter name -> kind
    used: set[Flag] = field(default_factory=set)      # flags a rule has rewritten
    rules: set[str] = field(default_factory=set)
    tainted: set[str] = field(default_factory=set)    # names holding a tensor that was a Python number


# ------------------------------------------------------------------------------- small builders
def _name(text: str) -> cst.Name:
    return cst.Name(text)


def _attr(dotted: str) -> cst.BaseExpression:
    node: cst.BaseExpression = cst.Name(dotted.split(".")[0])
    for part in dotted.split(".")[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def _call(func: str, *args: cst.BaseExpression, **kwargs: cst.BaseExpression) -> cst.Call:
    items = [cst.Arg(a) for a in args] + [
        cst.Arg(v, keyword=cst.Name(k), equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        for k, v in kwargs.items()]
    return cst.Call(func=_attr(func), args=items)


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _names_in(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.add(n.value)

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)
            return False

    node.visit(V())
    return found


def _calls_in(node: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            found.append(n)

    node.visit(V())
    return found


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _is_tensor_valued(node: cst.BaseExpression, ctx: _Context) -> bool:
    """Holds a tensor that was a Python number in the original (see `_Context.tainted`)."""
    if _names_in(node) & ctx.tainted:
        return True
    return any(_dotted(c.func) in _TENSOR_HELPERS for c in _calls_in(node))


def _side_effect(node: cst.BaseExpression, ctx: _Context) -> str | None:
    """Why evaluating `node` unconditionally could differ from the original, or None."""
    for call in _calls_in(node):
        dotted = _dotted(call.func) or ""
        head = dotted.split(".")[0]
        target = ctx.bindings.get(head, head)
        last = dotted.rsplit(".", 1)[-1]
        if last.endswith("_") and not last.endswith("__") or "." in dotted and last in _MUTATING_METHODS:
            return f"`{_code(call)}` changes a value in place"
        if "random" in dotted or last.startswith(("rand", "normal", "bernoulli", "multinomial")):
            return f"`{_code(call)}` draws random numbers"
        if dotted in _TENSOR_HELPERS or dotted in _PURE_BUILTINS:
            continue
        if target.split(".")[0] in ("torch", "numpy"):
            continue
        if isinstance(call.func, cst.Attribute) and head not in ctx.bindings:
            continue            # a method of a local value (a tensor or array method)
        return f"it calls `{dotted or _code(call.func)}(...)`, which may have side effects"
    return None


# ----------------------------------------------------------------------------- expression rules
class _Rewriter(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, ctx: _Context, name: str, fn_name: str):
        super().__init__()
        self.ctx = ctx
        self.name = name
        self.fn_name = fn_name
        self.depth = 0
        self.result: cst.FunctionDef | None = None
        self.attr_names: set[int] = set()       # Name nodes that are attribute or keyword names

    # where are we
    def _pos(self, node: cst.CSTNode):
        return self.get_metadata(PositionProvider, node)

    def _flags_on(self, node: cst.CSTNode, *categories: str) -> list[Flag]:
        p = self._pos(node)
        start, end = (p.start.line, p.start.column), (p.end.line, p.end.column)
        return [f for f in self.ctx.flags if f.category in categories
                and (f.line, f.col) < end and start < (f.end_line, f.end_col)]

    def _use(self, flags: list[Flag], rule: str) -> None:
        self.ctx.used.update(flags)
        self.ctx.rules.add(rule)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if self.depth == 0 and node.name.value != self.name:
            return False
        self.depth += 1
        return True

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return self.depth > 0

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef):
        if self.depth == 0:
            return updated
        self.depth -= 1
        if self.depth == 0:
            body = _Statements(self).block(original.body.body, updated.body.body)
            self.result = updated.with_changes(name=cst.Name(self.fn_name), decorators=[],
                                               body=updated.body.with_changes(body=body))
        return updated

    # numpy-negative-stride
    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        flags = self._flags_on(original, "numpy-negative-stride")
        items = [e.slice for e in updated.slice]
        if not flags or not any(_is_reverse(i) for i in items):
            return updated
        line = self._pos(original).start.line
        if any(isinstance(i, cst.Slice) and i.step is not None and not _is_reverse(i) for i in items):
            raise Refused(line, "a slice mixes a negative step with other steps")
        axes = _reverse_axes(items)
        if axes is None:
            raise Refused(line, "an index of the negative-step slice is too complex to place the flipped axis")
        kept = [cst.SubscriptElement(cst.Slice(lower=None, upper=None)) if _is_reverse(e.slice) else e
                for e in updated.slice]
        plain = all(isinstance(e.slice, cst.Slice) and e.slice.lower is None and e.slice.upper is None
                    and e.slice.step is None or _is_ellipsis(e.slice) for e in kept)
        base = updated.value if plain else updated.with_changes(slice=kept)
        ints = [cst.Integer(str(a)) if a >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-a))) for a in axes]
        axis = ints[0] if len(ints) == 1 else cst.Tuple([cst.Element(i) for i in ints])
        self._use(flags, "negative-step slices written as np.flip")
        return _call("np.flip", base, axis=axis)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        for rule in (self._astype, self._extraction, self._min_max, self._full):
            result = rule(original, updated)
            if result is not None:
                return result
        self._check_numbers(original, updated)
        return updated

    # numpy-astype
    def _astype(self, original: cst.Call, updated: cst.Call):
        func = updated.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "astype"):
            return None
        flags = self._flags_on(original, "numpy-astype")
        target = updated.args[0].value if updated.args else None
        name = target.value.strip("'\"") if isinstance(target, cst.SimpleString) else (
            target.attr.value if isinstance(target, cst.Attribute) else None)
        if not flags or name not in _UNSIGNED:
            return None
        self._use(flags, "casts to unsigned dtypes LEAPP lacks written as signed ones (same values in range)")
        return updated.with_changes(args=[cst.Arg(_attr(f"np.{_UNSIGNED[name]}"))] + [
            a for a in updated.args[1:] if a.keyword is None or a.keyword.value != "dtype"])

    # scalar-extraction
    def _extraction(self, original: cst.Call, updated: cst.Call):
        func = updated.func
        if isinstance(func, cst.Name) and func.value in _EXTRACT_CASTS and len(updated.args) == 1:
            value, cast = updated.args[0].value, func.value
        elif isinstance(func, cst.Attribute) and func.attr.value == "item" and not updated.args:
            value, cast = func.value, None
        elif isinstance(func, cst.Attribute) and func.attr.value == "tolist":
            return None                 # handled by the loop rule, refused elsewhere by the coverage check
        else:
            return None
        flags = self._flags_on(original, "scalar-extraction")
        if not flags and not _is_tensor_valued(value, self.ctx):
            return None
        self._use(flags, "scalar extractions kept as 0-d tensors (`twin_scalar`)")
        args = [value] + ([cst.SimpleString(f'"{cast}"')] if cast else [])
        return _call("twin_scalar", *args)

    def _min_max(self, original: cst.Call, updated: cst.Call):
        if not (isinstance(updated.func, cst.Name) and updated.func.value in ("min", "max")):
            return None
        if not any(_is_tensor_valued(a.value, self.ctx) for a in updated.args):
            return None
        line = self._pos(original).start.line
        if len(updated.args) != 2 or any(a.keyword or a.star for a in updated.args):
            raise Refused(line, f"`{updated.func.value}(...)` of a tensor value needs exactly two positional "
                                "arguments to become an elementwise choice")
        self.ctx.rules.add("Python min/max of tensor values written as elementwise choices (`twin_min`/`twin_max`)")
        return _call(f"twin_{updated.func.value}", updated.args[0].value, updated.args[1].value)

    def _full(self, original: cst.Call, updated: cst.Call):
        dotted = _dotted(updated.func) or ""
        head = dotted.split(".")[0]
        target = f"{self.ctx.bindings.get(head, head)}{dotted[len(head):]}"
        if target not in ("torch.full", "torch.tensor"):
            return None
        if not any(_is_tensor_valued(a.value, self.ctx) for a in updated.args):
            return None
        line = self._pos(original).start.line
        if any(a.keyword and a.keyword.value != "dtype" for a in updated.args) or any(a.star for a in updated.args):
            raise Refused(line, f"`{dotted}(...)` of a tensor value with arguments other than dtype")
        dtype = {a.keyword.value: a.value for a in updated.args if a.keyword}
        positional = [a.value for a in updated.args if not a.keyword]
        self.ctx.rules.add(f"`{dotted}` of a value that is now a tensor written as `twin_{target[6:]}`")
        if target == "torch.full":
            if len(positional) != 2:
                raise Refused(line, "`torch.full` needs size and fill value as positional arguments")
            return _call("twin_full", *positional, **dtype)
        if len(positional) != 1:
            raise Refused(line, "`torch.tensor` takes one data argument")
        return _call("twin_tensor", positional[0], **dtype)

    def _check_numbers(self, original: cst.Call, updated: cst.Call) -> None:
        """A tensor value reaching a call that needs a Python number blocks the twin."""
        dotted = _dotted(updated.func) or ""
        head = dotted.split(".")[0]
        line = self._pos(original).start.line
        library = self.ctx.bindings.get(head, head).split(".")[0] in ("torch", "numpy")
        exempt = dotted in _TENSOR_HELPERS or dotted in ("abs", "twin_zip") or (
            library and dotted.rsplit(".", 1)[-1] not in _NEEDS_NUMBERS)
        method = isinstance(updated.func, cst.Attribute) and head not in self.ctx.bindings
        bad = [a.value for a in updated.args if _is_tensor_valued(a.value, self.ctx)]
        if exempt:
            pass
        elif method and _is_tensor_valued(updated.func.value, self.ctx):
            raise Refused(line, f"`{_code(updated.func.value)}` is a tensor in the twin (a Python number in the "
                                f"original) and `.{updated.func.attr.value}()` is called on it")
        elif bad and not method:        # a method of a local tensor or array takes tensors
            raise Refused(line, f"`{_code(bad[0])}` is a tensor in the twin (a Python number in the original) and "
                                f"reaches `{dotted or _code(updated.func)}(...)`, which needs a Python number")

    # library names with a torch adapter
    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attr_names.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.attr_names.add(id(node.keyword))

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if id(original) in self.attr_names:
            return updated
        return self._library(original, updated, updated.value)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        dotted = _dotted(original)
        return self._library(original, updated, dotted) if dotted else updated

    def _library(self, original, updated, dotted: str):
        if self.depth == 0:
            return updated
        head = dotted.split(".")[0]
        if head not in self.ctx.bindings:
            return updated
        flags = self._flags_on(original, "foreign-library", "unmapped-numpy")
        if not flags:
            return updated
        target = f"{self.ctx.bindings[head]}{dotted[len(head):]}"
        name = _adapter_name(target, self.ctx.registry)
        if name is None or self.ctx.registry[name] not in ("function", "class"):
            return updated
        self._use(flags, f"`{target}` replaced by its torch adapter in leapp_codemod.adapters")
        return cst.Attribute(value=cst.Subscript(value=cst.Name("ADAPTERS"), slice=[
            cst.SubscriptElement(cst.Index(cst.SimpleString(f'"{name}"')))]), attr=cst.Name("function"))

    # tensor-branch ternary
    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        flags = self._flags_on(original.test, "tensor-branch")
        if not flags and not _is_tensor_valued(updated.test, self.ctx):
            return updated
        line = self._pos(original).start.line
        for side in (updated.body, updated.orelse):
            why = _side_effect(side, self.ctx)
            if why:
                raise Refused(line, f"both sides of the value-dependent choice would run, but {why}")
        self._use(flags, "value-dependent choices written as `twin_where` (both sides evaluated)")
        return _call("twin_where", updated.test, updated.body, updated.orelse)

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        names = [t.target.value for t in updated.targets if isinstance(t.target, cst.Name)]
        if _is_tensor_valued(updated.value, self.ctx):
            self.ctx.tainted.update(names)
        else:
            self.ctx.tainted.difference_update(names)
        return updated

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        if self.depth and (self._flags_on(original.test, "tensor-branch") or _is_tensor_valued(updated.test, self.ctx)):
            self.ctx.tainted.update(_assigned_names(updated))     # they become twin_where(...) values
        return updated

    def leave_AugAssign(self, original: cst.AugAssign, updated: cst.AugAssign) -> cst.AugAssign:
        if isinstance(updated.target, cst.Name) and _is_tensor_valued(updated.value, self.ctx):
            self.ctx.tainted.add(updated.target.value)
        return updated

    def leave_FormattedString(self, original, updated):
        if self.depth and _is_tensor_valued(updated, self.ctx):
            raise Refused(self._pos(original).start.line, "a tensor value is formatted into a string")
        return updated


def _assigned_names(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            if isinstance(n.target, cst.Name):
                found.add(n.target.value)

    node.visit(V())
    return found


def _adapter_name(target: str, registry: dict[str, str]) -> str | None:
    """The registry name for an import target, private submodules allowed (`scipy.special._ufuncs.expit`)."""
    parts = target.split(".")
    candidates = [target, ".".join(p for p in parts if not p.startswith("_"))]
    for i in range(len(parts) - 1, 0, -1):
        candidates.append(".".join(parts[:i - 1] + parts[i:]) if i > 1 else target)
    return next((c for c in candidates if c in registry), None)


def _is_reverse(item) -> bool:
    return (isinstance(item, cst.Slice) and item.lower is None and item.upper is None
            and isinstance(item.step, cst.UnaryOperation) and isinstance(item.step.operator, cst.Minus)
            and isinstance(item.step.expression, cst.Integer) and item.step.expression.value == "1")


def _is_ellipsis(item) -> bool:
    return isinstance(item, cst.Index) and isinstance(item.value, cst.Ellipsis)


def _reverse_axes(items) -> list[int] | None:
    """Axes of the reversed slices in the result of the (step-free) subscript."""
    def dims(i):
        if isinstance(i, cst.Slice):
            return 1
        value = i.value if isinstance(i, cst.Index) else None
        if isinstance(value, cst.Name) and value.value == "None":
            return 1
        if isinstance(value, (cst.Integer, cst.Name, cst.UnaryOperation, cst.BinaryOperation)):
            return 0    # an integer index
        return None

    ell = next((k for k, i in enumerate(items) if _is_ellipsis(i)), None)
    axes, pos = [], 0
    for i in items if ell is None else items[:ell]:
        d = dims(i)
        if d is None:
            return None
        if _is_reverse(i):
            axes.append(pos)
        pos += d
    if ell is not None:
        after = items[ell + 1:]
        remaining = [dims(i) for i in after]
        if any(d is None for d in remaining):
            return None
        axes += [-sum(remaining[k:]) for k, i in enumerate(after) if _is_reverse(i)]
    return axes


# ------------------------------------------------------------------------------ statement rules
class _Statements:
    """Statement-level rules over one block: `original` (with positions) and `updated` (rewritten
    expressions) are parallel lists."""

    def __init__(self, rewriter: _Rewriter):
        self.r = rewriter
        self.ctx = rewriter.ctx

    def line(self, node) -> int:
        return self.r._pos(node).start.line

    def flagged(self, node, category: str) -> bool:
        line = self.line(node)
        return any(f.category == category and f.line == line for f in self.ctx.flags)

    def block(self, original, updated) -> list:
        out: list = []
        updated = list(updated)
        i = 0
        while i < len(updated):
            orig, new = original[i], updated[i]
            if isinstance(new, cst.If) and self._value_dependent(orig, new):
                if _ends_in_return(new):
                    hoisted, value = self._value_of(original[i:], updated[i:])
                    ret = cst.SimpleStatementLine([cst.Return(value)], leading_lines=new.leading_lines)
                    return out + hoisted + [ret]
                out += self._assignments(orig, new)
            elif isinstance(new, cst.While) and (self.flagged(orig, "tensor-branch")
                                                 or _is_tensor_valued(new.test, self.ctx)):
                raise Refused(self.line(orig), "a `while` loop whose trip count depends on pipeline data cannot "
                                               "be traced as a fixed graph")
            elif isinstance(new, cst.For) and self.flagged(orig, "scalar-extraction"):
                out, rest = self._tolist_loop(out, orig, new, updated[i + 1:])
                updated[i + 1:] = rest
            elif isinstance(new, cst.For) and (self.flagged(orig, "tensor-branch")
                                               or _is_tensor_valued(new.iter, self.ctx)):
                raise Refused(self.line(orig), "a `for` loop whose trip count depends on pipeline data cannot be "
                                               "traced as a fixed graph")
            else:
                out.append(self._nested(orig, new))
            i += 1
        return out

    def _nested(self, orig, new):
        """The same rules inside the blocks of a compound statement that is not itself rewritten."""
        if isinstance(new, (cst.If, cst.For, cst.While, cst.With)) and isinstance(new.body, cst.IndentedBlock):
            new = new.with_changes(body=new.body.with_changes(body=self.block(orig.body.body, new.body.body)))
            if isinstance(new, (cst.If, cst.For, cst.While)) and isinstance(new.orelse, cst.Else):
                body = self.block(orig.orelse.body.body, new.orelse.body.body)
                new = new.with_changes(orelse=new.orelse.with_changes(body=new.orelse.body.with_changes(body=body)))
            elif isinstance(new, cst.If) and isinstance(new.orelse, cst.If):
                new = new.with_changes(orelse=self._nested(orig.orelse, new.orelse))
        return new

    def _value_dependent(self, orig: cst.If, new: cst.If) -> bool:
        return self.flagged(orig, "tensor-branch") or _is_tensor_valued(new.test, self.ctx)

    def _mark(self, orig) -> None:
        self.r._use([f for f in self.ctx.flags if f.category == "tensor-branch" and f.line == self.line(orig)],
                    "value-dependent branches written as `twin_where` (both branches evaluated)")

    def _check_pure(self, node, line: int) -> None:
        why = _side_effect(node, self.ctx)
        if why:
            raise Refused(line, f"both branches would run in the twin, but {why}")

    # `if c: return a` chains, possibly after side-effect-free assignments
    def _value_of(self, original, updated):
        head_o, head_u = original[0], updated[0]
        line = self.line(head_o)
        if isinstance(head_u, cst.SimpleStatementLine) and len(head_u.body) == 1:
            stmt = head_u.body[0]
            if isinstance(stmt, cst.Return) and stmt.value is not None:
                return [], stmt.value
            if isinstance(stmt, cst.Assign) and len(original) > 1 and all(
                    isinstance(t.target, cst.Name) for t in stmt.targets):
                self._check_pure(stmt.value, line)
                hoisted, value = self._value_of(original[1:], updated[1:])
                return [head_u] + hoisted, value
        if isinstance(head_u, cst.If):
            if not self._value_dependent(head_o, head_u):
                raise Refused(line, "an `if` on a configuration value sits between value-dependent returns")
            self._mark(head_o)
            body_h, body_v = self._value_of(head_o.body.body, head_u.body.body)
            if body_h:
                raise Refused(line, "a value-dependent branch assigns before it returns")
            if head_u.orelse is not None:
                if len(original) > 1:
                    raise Refused(line, "statements follow an `if`/`else` that returns in both branches")
                o_else, u_else = _else_body(head_o.orelse), _else_body(head_u.orelse)
                else_h, else_v = self._value_of(o_else, u_else)
            else:
                if len(original) == 1:
                    raise Refused(line, "a value-dependent branch returns, but the function may end without "
                                        "a return value")
                else_h, else_v = self._value_of(original[1:], updated[1:])
            written = {t.target.value for s in else_h for t in s.body[0].targets}
            if written & (_names_in(head_u.test) | _names_in(body_v)):
                raise Refused(line, f"`{min(written)}` is reassigned after the value-dependent return "
                                    "that reads it")
            for side in (body_v, else_v):
                self._check_pure(side, line)
            return else_h, _where_of(head_u.test, body_v, else_v)
        raise Refused(line, "this statement cannot be combined into a value-dependent return value")

    # `if c: x = a else: x = b`
    def _assignments(self, orig: cst.If, new: cst.If) -> list:
        line = self.line(orig)
        self._mark(orig)
        if isinstance(new.orelse, cst.If):
            raise Refused(line, "an `elif` chain that assigns is not rewritten; write it as nested ternaries")
        branches = [new.body.body, _else_body(new.orelse) if new.orelse is not None else []]
        values: list[dict[str, cst.BaseExpression]] = []
        for body in branches:
            assigned: dict[str, cst.BaseExpression] = {}
            for stmt in body:
                if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                        and isinstance(stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1
                        and isinstance(stmt.body[0].targets[0].target, cst.Name)):
                    raise Refused(line, "a value-dependent branch does more than assign names "
                                        f"(`{_code(stmt).strip().splitlines()[0]}`)")
                value = stmt.body[0].value
                if _names_in(value) & set(assigned):
                    raise Refused(line, "a value-dependent branch reads a name it assigned itself")
                self._check_pure(value, line)
                assigned[stmt.body[0].targets[0].target.value] = value
            values.append(assigned)
        names = list(dict.fromkeys([*values[0], *values[1]]))
        cond = "twin_cond"
        out = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(_name(cond))], new.test)])]
        for n in names:
            a, b = values[0].get(n, _name(n)), values[1].get(n, _name(n))
            out.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(_name(n))],
                                                           _call("twin_where", _name(cond), a, b))]))
            self.ctx.tainted.add(n)
        return out

    # for q, a in zip(x.tolist(), cfg.seq): acc.append(f(q, a))
    def _tolist_loop(self, out, orig: cst.For, new: cst.For, rest_u):
        line = self.line(orig)
        why = "the `tolist()` loop is not an elementwise map"
        seqs = _zip_args(new.iter)
        targets = _loop_targets(new.target)
        if seqs is None or targets is None or len(targets) != len(seqs) or new.orelse is not None:
            raise Refused(line, f"{why}: iterate over `zip(...)` of sequences into as many plain names")
        if not any(_tolist_receiver(s) is not None for s in seqs):
            raise Refused(line, f"{why}: no sequence of the loop is a `tolist()`")
        vectors = set(targets)
        body_assigns: list = []
        acc, element = None, None
        for stmt in new.body.body:
            inner = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if isinstance(inner, cst.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0].target,
                                                                                       cst.Name):
                value = self._elementwise(inner.value, vectors, line)
                vectors.add(inner.targets[0].target.value)
                body_assigns.append(cst.SimpleStatementLine([inner.with_changes(value=value)]))
            elif (isinstance(inner, cst.Expr) and isinstance(inner.value, cst.Call)
                  and isinstance(inner.value.func, cst.Attribute) and inner.value.func.attr.value == "append"
                  and isinstance(inner.value.func.value, cst.Name) and len(inner.value.args) == 1 and acc is None):
                acc = inner.value.func.value.value
                element = self._elementwise(inner.value.args[0].value, vectors, line)
            else:
                raise Refused(line, f"{why}: its body may only assign names and append once to a list")
        start = _list_init(out, acc)
        if acc is None or start is None:
            raise Refused(line, f"{why}: the list it appends to must be created empty (`{acc or 'name'} = []`) "
                                "before the loop and not used in between")
        new_rest = [_rewrite_list_uses(s, acc, vectors - {acc}, line) for s in rest_u]
        self.r._use([f for f in self.ctx.flags if f.category == "scalar-extraction" and f.line == line],
                    "an elementwise loop over `tolist()` sequences written as whole-tensor arithmetic (`twin_zip`)")
        self.ctx.rules.add("the list it builds passed to `torch.tensor` as a tensor (`twin_tensor`)")
        zipped = _call("twin_zip", *[_tolist_receiver(s) or s for s in seqs])
        lhs = (cst.Tuple([cst.Element(_name(t)) for t in targets], lpar=[], rpar=[]) if len(targets) > 1
               else cst.Subscript(value=zipped, slice=[cst.SubscriptElement(cst.Index(cst.Integer("0")))]))
        first = (cst.Assign([cst.AssignTarget(lhs)], zipped) if len(targets) > 1
                 else cst.Assign([cst.AssignTarget(_name(targets[0]))], lhs))
        comments = [*out[start].leading_lines, *new.leading_lines]      # kept above the rewritten loop
        del out[start]
        out += [cst.SimpleStatementLine([first], leading_lines=comments), *body_assigns,
                cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(_name(acc))], element)])]
        return out, new_rest

    def _elementwise(self, node: cst.BaseExpression, vectors: set[str], line: int) -> cst.BaseExpression:
        """The loop element expression applied to whole vectors (arithmetic, min, max, abs only)."""
        class T(cst.CSTTransformer):
            def leave_Call(self, o, u):
                fn = u.func.value if isinstance(u.func, cst.Name) else None
                if fn in ("min", "max") and len(u.args) == 2 and not any(a.keyword or a.star for a in u.args):
                    return _call(f"twin_{fn}", u.args[0].value, u.args[1].value)
                if fn == "abs" and len(u.args) == 1:
                    return u
                raise Refused(line, f"the loop element calls `{_code(u.func)}(...)`; only arithmetic, min, max "
                                    "and abs are mapped elementwise")

            def visit_Subscript(self, n):
                raise Refused(line, "the loop element indexes a value; only arithmetic is mapped elementwise")

            def visit_IfExp(self, n):
                raise Refused(line, "the loop element chooses by value; only arithmetic is mapped elementwise")

        return node.visit(T())


def _where_of(test, a, b) -> cst.BaseExpression:
    """`twin_where(test, a, b)`, element by element when both sides are tuples of the same length."""
    if isinstance(a, cst.Tuple) and isinstance(b, cst.Tuple) and len(a.elements) == len(b.elements) and not any(
            isinstance(e, cst.StarredElement) for e in (*a.elements, *b.elements)):
        return cst.Tuple([cst.Element(_where_of(test, x.value, y.value)) for x, y in zip(a.elements, b.elements)])
    return _call("twin_where", test, a, b)


def _else_body(orelse) -> list:
    return list(orelse.body.body) if isinstance(orelse, cst.Else) else [orelse]


def _ends_in_return(node: cst.If) -> bool:
    last = node.body.body[-1] if node.body.body else None
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)


def _zip_args(node: cst.BaseExpression):
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "zip":
        if any(a.keyword or a.star for a in node.args):
            return None
        return [a.value for a in node.args]
    return [node]


def _loop_targets(node):
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Name) for e in node.elements):
        return [e.value.value for e in node.elements]
    return None


def _tolist_receiver(node):
    if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "tolist"
            and not node.args):
        return node.func.value
    return None


def _list_init(out: list, acc: str | None) -> int | None:
    """Index in `out` of `acc = []`, when nothing after it reads acc."""
    if acc is None:
        return None
    for k in range(len(out) - 1, -1, -1):
        stmt = out[k]
        inner = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if (isinstance(inner, cst.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0].target, cst.Name)
                and inner.targets[0].target.value == acc):
            ok = isinstance(inner.value, cst.List) and not inner.value.elements
            return k if ok else None
        if acc in _names_in(stmt):
            return None
    return None


def _rewrite_list_uses(stmt, acc: str, loop_names: set[str], line: int):
    """`torch.tensor(<nested list literals of acc>)` -> `twin_tensor(...)`; any other use refuses."""
    class T(cst.CSTTransformer):
        def __init__(self):
            super().__init__()
            self.inside = 0

        def visit_Call(self, node):
            if _dotted(node.func) == "torch.tensor":
                self.inside += 1

        def leave_Call(self, o, u):
            if _dotted(o.func) != "torch.tensor":
                return u
            self.inside -= 1
            if acc not in _names_in(o):
                return u
            if not _list_literal_of(u.args[0].value, acc) or any(
                    a.keyword and a.keyword.value != "dtype" for a in u.args[1:]):
                raise Refused(line, f"the list `{acc}` built by the loop is used in `{_code(o)}`")
            kwargs = {a.keyword.value: a.value for a in u.args if a.keyword}
            return _call("twin_tensor", u.args[0].value, **kwargs)

        def visit_Name(self, node):
            if node.value in loop_names:
                raise Refused(line, f"`{node.value}` from the loop body is used after the loop")
            if node.value == acc and not self.inside:
                raise Refused(line, f"the list `{acc}` built by the loop is used as a Python list after it")

    return stmt.visit(T())


def _list_literal_of(node, acc: str) -> bool:
    if isinstance(node, cst.Name):
        return node.value == acc
    return isinstance(node, (cst.List, cst.Tuple)) and all(_list_literal_of(e.value, acc) for e in node.elements)


# --------------------------------------------------------------------------------- entry point
def build_twin(source: str, name: str, fn_name: str, flags: list[Flag], bindings: dict[str, str],
               registry: dict[str, str], origin: str) -> Twin | Blocked:
    """The twin of module-level function `name` in `source`, or why it cannot be written."""
    unknown = sorted({f for f in flags if f.category not in _REWRITTEN}, key=lambda f: f.line)
    if unknown:
        return Blocked(unknown[0].line, f"no rewrite rule for {unknown[0].category}")
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError as exc:
        return Blocked(exc.raw_line, f"cannot parse: {exc.message}")
    ctx = _Context(flags=flags, bindings=bindings, registry=registry)
    rewriter = _Rewriter(ctx, name, fn_name)
    try:
        wrapper.visit(rewriter)
    except Refused as exc:
        return Blocked(exc.line, exc.reason)
    if rewriter.result is None:
        return Blocked(0, f"no module-level function {name}")
    left = sorted(set(flags) - ctx.used, key=lambda f: (f.line, f.col))
    if left:
        return Blocked(left[0].line, _uncovered_reason(left[0], ctx))
    fn = _with_docstring(rewriter.result, f"Traceable twin of {origin}: {'; '.join(sorted(ctx.rules))}.")
    fn = fn.with_changes(body=fn.body.with_changes(body=[_fit(stmt) for stmt in fn.body.body]))
    text = cst.Module(body=[fn]).code.strip("\n")
    used = {n for n in _TENSOR_HELPERS | {"twin_zip"} if n in _ast_names(text)}
    return Twin(source=text, helpers=tuple(sorted(used)), rules=tuple(sorted(ctx.rules)))


def _uncovered_reason(flag: Flag, ctx: _Context) -> str:
    if flag.category in ("foreign-library", "unmapped-numpy"):
        return "the library call has no torch adapter in leapp_codemod.adapters"
    if flag.category == "scalar-extraction":
        return "this scalar extraction is not in a form the twin rules rewrite (`.item()`, `float()`, `int()`, " \
               "or an elementwise `tolist()` loop)"
    if flag.category == "tensor-branch":
        return "this value-dependent control flow is not a choice between side-effect-free values"
    return f"no rewrite rule matched this {flag.category}"


def _fit(stmt, width: int = 100):
    """A long `return twin_*(...)` / `x = twin_*(...)` written by a rule, one argument per line."""
    inner = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
    value = getattr(inner, "value", None)
    if not isinstance(inner, (cst.Return, cst.Assign)) or not isinstance(value, cst.Call) or len(value.args) < 2 \
            or _dotted(value.func) not in _TENSOR_HELPERS | {"twin_zip"}:
        return stmt         # untouched code keeps its layout
    if max(len(line) for line in _code(stmt).splitlines()) + 4 <= width:
        return stmt

    def newline(extra: str) -> cst.ParenthesizedWhitespace:
        return cst.ParenthesizedWhitespace(first_line=cst.TrailingWhitespace(), empty_lines=[], indent=True,
                                           last_line=cst.SimpleWhitespace(extra))

    last = len(value.args) - 1
    args = [a.with_changes(comma=cst.Comma(whitespace_after=newline("" if i == last else "    ")))
            for i, a in enumerate(value.args)]
    call = value.with_changes(whitespace_before_args=newline("    "), args=args)
    return stmt.with_changes(body=[inner.with_changes(value=call)])


def _with_docstring(fn: cst.FunctionDef, doc: str) -> cst.FunctionDef:
    lines = textwrap.wrap(doc, 92, break_on_hyphens=False)
    text = '"""' + "\n    ".join(lines) + '"""'
    stmt = cst.SimpleStatementLine([cst.Expr(cst.SimpleString(text))])
    body = list(fn.body.body)
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
            and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        body = body[1:]
    return fn.with_changes(body=fn.body.with_changes(body=[stmt, *body]))


def _ast_names(text: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}


def flags_for(findings) -> list[Flag]:
    """Scan findings (1-based columns, end exclusive) as twin flags (0-based columns)."""
    return [Flag(f.category, f.line, max(f.column - 1, 0), f.end_line or f.line,
                 max(f.end_column - 1, f.column)) for f in findings]
