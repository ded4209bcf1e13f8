"""numpy-negative-stride: `a[::-1]` -> `np.flip(a, axis=0)`, also among other plain indices.

A negative step gives a view LEAPP cannot follow; `np.flip` over the same axes holds the same values.
A slice that mixes a negative step with other steps, or an index too complex to place the flipped
axis, refuses the twin."""
from __future__ import annotations

import libcst as cst

from leapp_codemod.generate.twin.base import Example, Refused, TwinRule, call


class NegativeStride(TwinRule):
    CATEGORIES = ("numpy-negative-stride",)
    EXAMPLES = (
        Example("def f(a):\n    return a[::-1]\n", (("numpy-negative-stride", "a[::-1]"),),
                "def f(a):\n    return np.flip(a, axis=0)\n"),
        Example("def f(a):\n    return a[:, ::-1] + 1\n", (("numpy-negative-stride", "a[:, ::-1]"),),
                "def f(a):\n    return np.flip(a, axis=1) + 1\n"),
        Example("def f(a):\n    return a[..., 0, ::-1]\n", (("numpy-negative-stride", "a[..., 0, ::-1]"),),
                "def f(a):\n    return np.flip(a[..., 0, :], axis=-1)\n"),
        Example("def f(a):\n    return a[::-1, ::2]\n", (("numpy-negative-stride", "a[::-1, ::2]"),),
                refused="mixes a negative step with other steps"),
    )

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        flags = self.flags_on(original, *NegativeStride.CATEGORIES)
        items = [e.slice for e in updated.slice]
        if not flags or not any(_is_reverse(i) for i in items):
            return super().leave_Subscript(original, updated)
        line = self.line(original)
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
        self.use(flags, "negative-step slices written as np.flip")
        return call("np.flip", base, axis=axis)


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
