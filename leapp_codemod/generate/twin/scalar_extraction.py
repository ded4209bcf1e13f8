"""scalar-extraction: `t.item()`, `float(t)`, `int(t)` -> a 0-d tensor (`twin_scalar`).

The values computed from it stay tensors: `min`/`max` -> `twin_min`/`twin_max`, `torch.full(size, v)`
-> `twin_full`, `torch.tensor(v)` -> `twin_tensor`; an elementwise loop over zipped `tolist()`
sequences that appends to a list -> whole-tensor arithmetic (`twin_zip`). Such a value reaching a
call that needs a Python number (a size, a string) refuses the twin."""
from __future__ import annotations

import libcst as cst

from leapp_codemod.generate.twin.base import (
    TENSOR_HELPERS,
    Example,
    Refused,
    Step,
    TwinRule,
    arithmetic_of,
    call,
    code,
    dotted,
    is_tensor_valued,
    names_in,
)
from leapp_codemod.knowledge.vocab import PURE_METHODS

_EXTRACT_CASTS = frozenset({"float", "int"})
# torch / NumPy functions whose arguments are sizes or fill values: a tensor there is read as a number.
_NEEDS_NUMBERS = frozenset({"full_like", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye",
                            "randint", "range"})


class ScalarExtraction(TwinRule):
    CATEGORIES = ("scalar-extraction",)
    EXAMPLES = (
        Example("def f(t, limit):\n    peak = t.abs().max().item()\n    return min(peak, limit)\n",
                (("scalar-extraction", "t.abs().max().item()"),),
                "def f(t, limit):\n    peak = twin_scalar(t.abs().max())\n    return twin_min(peak, limit)\n"),
        Example("import torch\n\n\ndef f(t):\n    n = float(t.sum())\n    return torch.full((2,), n)\n",
                (("scalar-extraction", "float(t.sum())"),),
                'def f(t):\n    n = twin_scalar(t.sum(), "float")\n    return twin_full((2,), n)\n'),
        Example("import torch\n\n\ndef f(t):\n    n = int(t.sum())\n    return torch.zeros(n)\n",
                (("scalar-extraction", "int(t.sum())"),), refused="which needs a Python number"),
    )

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        for rule in (self._extraction, self._min_max, self._full):
            result = rule(original, updated)
            if result is not None:
                return result
        self._check_numbers(original, updated)
        result = super().leave_Call(original, updated)
        return self._numpy_of_numbers(updated) if result is updated else result

    def _numpy_of_numbers(self, updated: cst.Call) -> cst.BaseExpression:
        """`np.f(x)` where every argument was a Python number in the original: NumPy returned a float64
        scalar there (which makes float32 arithmetic downstream float64), so the twin casts the same way."""
        text = dotted(updated.func) or ""
        head = text.split(".")[0]
        if (isinstance(updated.func, cst.Name) or self.ctx.bindings.get(head, head).split(".")[0] != "numpy"
                or not updated.args or any(a.keyword or a.star for a in updated.args)
                or not all(_number_expr(a.value, self.ctx) for a in updated.args)
                or not any(is_tensor_valued(a.value, self.ctx) for a in updated.args)):
            return updated
        self.ctx.rules.add("NumPy functions of values that were Python numbers cast to NumPy's float64 "
                           "(`twin_numpy_number`)")
        return call("twin_numpy_number", updated)

    def _extraction(self, original: cst.Call, updated: cst.Call):
        func = updated.func
        if isinstance(func, cst.Name) and func.value in _EXTRACT_CASTS and len(updated.args) == 1:
            value, cast = updated.args[0].value, func.value
        elif isinstance(func, cst.Attribute) and func.attr.value == "item" and not updated.args:
            value, cast = func.value, None
        else:
            return None         # `tolist()` is the loop rule's, refused elsewhere by the coverage check
        flags = self.flags_on(original, *ScalarExtraction.CATEGORIES)
        same_line = any(self.flagged(original, c) for c in ScalarExtraction.CATEGORIES)   # the scan reports one a line
        if not flags and not same_line and not is_tensor_valued(value, self.ctx):
            return None
        self.use(flags, "scalar extractions kept as 0-d tensors (`twin_scalar`)")
        args = [value] + ([cst.SimpleString(f'"{cast}"')] if cast else [])
        return call("twin_scalar", *args)

    def _min_max(self, original: cst.Call, updated: cst.Call):
        if not (isinstance(updated.func, cst.Name) and updated.func.value in ("min", "max")):
            return None
        if "min" in self.ctx.bindings or "max" in self.ctx.bindings:
            return None         # a module-level `min`/`max` that is not the builtin
        flags = self.flags_on(original, "tensor-branch")     # a min/max the scan saw comparing pipeline data
        if not flags and not any(is_tensor_valued(a.value, self.ctx) for a in updated.args):
            return None
        if len(updated.args) != 2 or any(a.keyword or a.star for a in updated.args):
            raise Refused(self.line(original), f"`{updated.func.value}(...)` of a tensor value needs exactly two "
                                               "positional arguments to become an elementwise choice")
        self.use(flags, "Python min/max of tensor values written as elementwise choices (`twin_min`/`twin_max`)")
        return call(f"twin_{updated.func.value}", updated.args[0].value, updated.args[1].value)

    def _full(self, original: cst.Call, updated: cst.Call):
        text = dotted(updated.func) or ""
        target = self.ctx.qualified(updated.func)
        if target not in ("torch.full", "torch.tensor"):
            return None
        if not any(is_tensor_valued(a.value, self.ctx) for a in updated.args):
            return None
        line = self.line(original)
        if any(a.keyword and a.keyword.value != "dtype" for a in updated.args) or any(a.star for a in updated.args):
            raise Refused(line, f"`{text}(...)` of a tensor value with arguments other than dtype")
        dtype = {a.keyword.value: a.value for a in updated.args if a.keyword}
        positional = [a.value for a in updated.args if not a.keyword]
        start = self.pos(original).start        # the flag on this call itself (a list of pipeline values)
        self.use([f for f in self.flags_on(original, *ScalarExtraction.CATEGORIES)
                  if (f.line, f.col) == (start.line, start.column)],
                 f"`{text}` of a value that is now a tensor written as `twin_{target[6:]}`")
        if target == "torch.full":
            if len(positional) != 2:
                raise Refused(line, "`torch.full` needs size and fill value as positional arguments")
            return call("twin_full", *positional, **dtype)
        if len(positional) != 1:
            raise Refused(line, "`torch.tensor` takes one data argument")
        return call("twin_tensor", positional[0], **dtype)

    def _check_numbers(self, original: cst.Call, updated: cst.Call) -> None:
        """A tensor value reaching a call that needs a Python number blocks the twin."""
        text = dotted(updated.func) or ""
        head = text.split(".")[0]
        line = self.line(original)
        library = self.ctx.bindings.get(head, head).split(".")[0] in ("torch", "numpy")
        exempt = text in TENSOR_HELPERS or text in ("abs", "twin_zip") or (
            library and text.rsplit(".", 1)[-1] not in _NEEDS_NUMBERS)
        method = isinstance(updated.func, cst.Attribute) and head not in self.ctx.bindings
        bad = [a.value for a in updated.args if is_tensor_valued(a.value, self.ctx)]
        if exempt:
            return
        if method and is_tensor_valued(updated.func.value, self.ctx) and not (
                updated.func.attr.value in PURE_METHODS and self._array_result(updated.func.value)):
            raise Refused(line, f"`{code(updated.func.value)}` is a tensor in the twin (a Python number in the "
                                f"original) and `.{updated.func.attr.value}()` is called on it")
        if bad and not method:        # a method of a local tensor or array takes tensors
            raise Refused(line, f"`{code(bad[0])}` is a tensor in the twin (a Python number in the original) and "
                                f"reaches `{text or code(updated.func)}(...)`, which needs a Python number")

    def _array_result(self, node: cst.BaseExpression) -> bool:
        """`node` is a call of a NumPy or torch function: an array (or a NumPy scalar, which has the array
        methods) in the original too, so an array method on it is no Python-number method."""
        if not isinstance(node, cst.Call) or isinstance(node.func, cst.Name):
            return False
        head = (dotted(node.func) or "").split(".")[0]
        return self.ctx.bindings.get(head, head).split(".")[0] in ("numpy", "torch")

    # which names hold a tensor that was a Python number
    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        names = [t.target.value for t in updated.targets if isinstance(t.target, cst.Name)]
        if is_tensor_valued(updated.value, self.ctx):
            self.ctx.tainted.update(names)
        else:
            self.ctx.tainted.difference_update(names)
        return super().leave_Assign(original, updated)

    def leave_AugAssign(self, original: cst.AugAssign, updated: cst.AugAssign) -> cst.AugAssign:
        if isinstance(updated.target, cst.Name) and is_tensor_valued(updated.value, self.ctx):
            self.ctx.tainted.add(updated.target.value)
        return super().leave_AugAssign(original, updated)

    def leave_FormattedString(self, original, updated):
        if self.depth and is_tensor_valued(updated, self.ctx):
            raise Refused(self.line(original), "a tensor value is formatted into a string")
        return super().leave_FormattedString(original, updated)

    # for q, a in zip(x.tolist(), cfg.seq): acc.append(f(q, a))
    def statement(self, out: list, original: list, updated: list) -> Step | None:
        if isinstance(updated[0], cst.For) and self.flagged(original[0], "scalar-extraction"):
            return self._tolist_loop(out, original[0], updated[0], updated[1:])
        return super().statement(out, original, updated)

    def _tolist_loop(self, out, orig: cst.For, new: cst.For, rest_u) -> Step:
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
                value = _elementwise(inner.value, line)
                vectors.add(inner.targets[0].target.value)
                body_assigns.append(cst.SimpleStatementLine([inner.with_changes(value=value)]))
            elif (isinstance(inner, cst.Expr) and isinstance(inner.value, cst.Call)
                  and isinstance(inner.value.func, cst.Attribute) and inner.value.func.attr.value == "append"
                  and isinstance(inner.value.func.value, cst.Name) and len(inner.value.args) == 1 and acc is None):
                acc = inner.value.func.value.value
                element = _elementwise(inner.value.args[0].value, line)
            else:
                raise Refused(line, f"{why}: its body may only assign names and append once to a list")
        start = _list_init(out, acc)
        if acc is None or start is None:
            raise Refused(line, f"{why}: the list it appends to must be created empty (`{acc or 'name'} = []`) "
                                "before the loop and not used in between")
        new_rest = [_rewrite_list_uses(s, acc, vectors - {acc}, line) for s in rest_u]
        self.use([f for f in self.ctx.flags if f.category == "scalar-extraction" and f.line == line],
                 "an elementwise loop over `tolist()` sequences written as whole-tensor arithmetic (`twin_zip`)")
        self.ctx.rules.add("the list it builds passed to `torch.tensor` as a tensor (`twin_tensor`)")
        zipped = call("twin_zip", *[_tolist_receiver(s) or s for s in seqs])
        lhs = (cst.Tuple([cst.Element(cst.Name(t)) for t in targets], lpar=[], rpar=[]) if len(targets) > 1
               else cst.Subscript(value=zipped, slice=[cst.SubscriptElement(cst.Index(cst.Integer("0")))]))
        first = (cst.Assign([cst.AssignTarget(lhs)], zipped) if len(targets) > 1
                 else cst.Assign([cst.AssignTarget(cst.Name(targets[0]))], lhs))
        comments = [*out[start].leading_lines, *new.leading_lines]      # kept above the rewritten loop
        out = out[:start] + out[start + 1:]
        out += [cst.SimpleStatementLine([first], leading_lines=comments), *body_assigns,
                cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(acc))], element)])]
        return Step(out, new_rest)


def _number_expr(node: cst.BaseExpression, ctx) -> bool:
    """An expression of values that were Python numbers in the original: names holding them,
    extractions (`twin_scalar`), numeric literals and arithmetic on those."""
    return arithmetic_of(node, ctx.tainted, lambda c: dotted(c.func) in ("twin_scalar", "twin_numpy_number"))


def _elementwise(node: cst.BaseExpression, line: int) -> cst.BaseExpression:
    """The loop element expression applied to whole vectors (arithmetic, min, max, abs only)."""
    class T(cst.CSTTransformer):
        def leave_Call(self, o, u):
            fn = u.func.value if isinstance(u.func, cst.Name) else None
            if fn in ("min", "max") and len(u.args) == 2 and not any(a.keyword or a.star for a in u.args):
                return call(f"twin_{fn}", u.args[0].value, u.args[1].value)
            if fn == "abs" and len(u.args) == 1 or fn in ("twin_min", "twin_max"):
                return u        # twin_min/twin_max: a min/max the scan flagged, already made elementwise
            raise Refused(line, f"the loop element calls `{code(u.func)}(...)`; only arithmetic, min, max "
                                "and abs are mapped elementwise")

        def visit_Subscript(self, n):
            raise Refused(line, "the loop element indexes a value; only arithmetic is mapped elementwise")

        def visit_IfExp(self, n):
            raise Refused(line, "the loop element chooses by value; only arithmetic is mapped elementwise")

    return node.visit(T())


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
        if acc in names_in(stmt):
            return None
    return None


def _rewrite_list_uses(stmt, acc: str, loop_names: set[str], line: int):
    """`torch.tensor(<nested list literals of acc>)` -> `twin_tensor(...)`; any other use refuses."""
    class T(cst.CSTTransformer):
        def __init__(self):
            super().__init__()
            self.inside = 0

        def visit_Call(self, node):
            if dotted(node.func) == "torch.tensor":
                self.inside += 1

        def leave_Call(self, o, u):
            if dotted(o.func) != "torch.tensor":
                return u
            self.inside -= 1
            if acc not in names_in(o):
                return u
            if not _list_literal_of(u.args[0].value, acc) or any(
                    a.keyword and a.keyword.value != "dtype" for a in u.args[1:]):
                raise Refused(line, f"the list `{acc}` built by the loop is used in `{code(o)}`")
            kwargs = {a.keyword.value: a.value for a in u.args if a.keyword}
            return call("twin_tensor", u.args[0].value, **kwargs)

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
