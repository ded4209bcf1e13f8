"""inplace-state on an array the helper allocates itself: `J = np.zeros((3, 4)); J[0, 0] = v` ->
`J = twin_put(J, (0, 0), v)`.

Writing traced values into a plain array the call allocated loses them (the patched `np.zeros` gives a
plain constant when no traced array is among its arguments). LEAPP traces `__setitem__` on a traced array
or tensor (lowered to index_put), so `twin_put` makes the allocation traced at the first traced value
written into it (same values, same dtype) and writes there; on plain values it writes as the original
does. From the first flagged write on, every element write into the name is rewritten, flagged or not
(the scan flags the first and counts the rest). Integer items of the parameters (`pose[2]`) are kept as
one-element arrays (`twin_item`: LEAPP gives a plain number for them), and `twin_put` writes a
one-element array into a single slot and joins a list of values (`twin_array`).

Also in every twin: `np.cumsum(a)` / `np.cumprod(a)` without an axis -> over `np.reshape(a, (-1,))`
along axis 0 (the same values: NumPy flattens first). LEAPP maps the call to `torch.cumsum` without
the `dim` torch requires, so the traced graph fails when it runs; with the axis it exports. A write into anything else (an argument, an attribute, a value the
helper did not allocate) is persistent state and is not rewritten here."""
from __future__ import annotations

import ast

import libcst as cst

from leapp_codemod.generate.twin.base import Example, Step, TwinRule, call, dotted

# Functions that return a new array or tensor (after import bindings are resolved), and new-value methods.
ALLOCATORS = frozenset(f"{lib}.{fn}" for lib in ("numpy", "torch") for fn in (
    "zeros", "ones", "empty", "full", "eye", "identity", "zeros_like", "ones_like", "empty_like", "full_like",
    "array", "copy", "tensor", "clone"))
NEW_VALUE_METHODS = frozenset({"copy", "clone"})
_CATEGORY = "inplace-state"


class FreshWrites(TwinRule):
    CATEGORIES = (_CATEGORY,)
    EXAMPLES = (
        Example("def f(a):\n    J = np.zeros((2, 2))\n    J[0, 0] = a[0]\n    J[1, :] = a\n    return J\n",
                ((_CATEGORY, "J[0, 0] = a[0]"),),
                "def f(a):\n    J = np.zeros((2, 2))\n    J = twin_put(J, (0, 0), twin_item(a, 0))\n"
                "    J = twin_put(J, (1, slice(None, None, None)), a)\n    return J\n"),
        Example("def f(a):\n    J = np.zeros(2)\n    J[0] = a[0]\n    return np.cumsum(a) + J\n",
                (("inplace-state", "J[0] = a[0]"),),
                "def f(a):\n    J = np.zeros(2)\n    J = twin_put(J, 0, twin_item(a, 0))\n"
                "    return np.cumsum(np.reshape(a, (-1,)), axis=0) + J\n"),
    )

    def statement(self, out: list, original: list, updated: list) -> Step | None:
        new = updated[0]
        fresh = self.__dict__.setdefault("_fresh_names", set())
        if isinstance(new, cst.SimpleStatementLine) and len(new.body) == 1 and isinstance(new.body[0], cst.Assign):
            assign = new.body[0]
            targets = [t.target for t in assign.targets]
            if len(targets) == 1 and isinstance(targets[0], cst.Name):
                if self._allocates(assign.value):
                    fresh.add(targets[0].value)
                else:
                    fresh.discard(targets[0].value)
            elif len(targets) == 1 and isinstance(targets[0], cst.Subscript) \
                    and isinstance(targets[0].value, cst.Name) and targets[0].value.value in fresh:
                target = targets[0]
                index = _index(target.slice)
                flags = self.flags_on(original[0], _CATEGORY)
                claimed = self.__dict__.setdefault("_flagged_names", set())
                if flags:
                    claimed.add(target.value.value)
                if index is not None and target.value.value in claimed:
                    self.use(flags, "element writes into an array the helper allocates written as `twin_put`")
                    put = cst.Assign(targets=[cst.AssignTarget(cst.Name(target.value.value))],
                                     value=call("twin_put", cst.Name(target.value.value), index, assign.value))
                    return Step(out + [new.with_changes(body=[put])], updated[1:])
        return super().statement(out, original, updated)

    def _allocates(self, value: cst.BaseExpression) -> bool:
        if not isinstance(value, cst.Call):
            return False
        text = dotted(value.func) or ""
        head, _, rest = text.partition(".")
        target = {"np": "numpy"}.get(head, self.ctx.bindings.get(head, head)) + (f".{rest}" if rest else "")
        if target in ALLOCATORS:
            return True
        return isinstance(value.func, cst.Attribute) and value.func.attr.value in NEW_VALUE_METHODS


    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        text = dotted(updated.func) or ""
        head, _, rest = text.partition(".")
        target = {"np": "numpy"}.get(head, self.ctx.bindings.get(head, head)) + (f".{rest}" if rest else "")
        if self.depth and target in ("numpy.cumsum", "numpy.cumprod") and len(updated.args) == 1 \
                and updated.args[0].keyword is None and not updated.args[0].star:
            flat = call(f"{head}.reshape", updated.args[0].value,
                        cst.Tuple([cst.Element(cst.UnaryOperation(cst.Minus(), cst.Integer("1")))]))
            self.ctx.rules.add("cumulative sums without an axis taken over the flattened array (axis=0)")
            return updated.with_changes(args=[cst.Arg(flat), cst.Arg(cst.Integer("0"), keyword=cst.Name("axis"),
                                        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))])
        return super().leave_Call(original, updated)


def _part(element: cst.SubscriptElement) -> cst.BaseExpression | None:
    item = element.slice
    if isinstance(item, cst.Index):
        return None if item.star else item.value
    if isinstance(item, cst.Slice):
        parts = [p if p is not None else cst.Name("None") for p in (item.lower, item.upper, item.step)]
        return call("slice", *parts)
    return None


def _index(elements) -> cst.BaseExpression | None:
    parts = [_part(e) for e in elements]
    if any(p is None for p in parts):
        return None
    if len(parts) == 1:
        return parts[0]
    return cst.Tuple([cst.Element(p) for p in parts])


def item_params(source: str, name: str, flags) -> frozenset[str]:
    """The parameters of `name` whose integer items the twin keeps as one-element arrays (`twin_item`) when
    it writes into its own allocations: LEAPP gives a plain number for `pose[2]` of a traced array, so
    the values written from it would drop out of the graph."""
    if not any(f.category == _CATEGORY for f in flags):
        return frozenset()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset()
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    return frozenset(a.arg for a in fn.args.posonlyargs + fn.args.args) if fn else frozenset()
