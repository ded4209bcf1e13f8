"""Array items as values LEAPP follows.

* `w = q[0]` flagged by the scan -> `w = twin_item(q, 0)`, as for unpacking below; also `s = s + q[i]` at the
  position a `for i in range(...)` counts.
* `a, b, c = q` -> `a, b, c = twin_unpack(q, 3)`: iterating a NumPy array gives NumPy scalars, which
  LEAPP does not trace (every value computed from them, and the argument they came from, drop out of
  the graph; so does arithmetic on 0-d arrays); `twin_unpack` gives one-element slices of a 1-D array,
  which broadcast as the scalars did, and unpacks anything else as Python does.
* `np.array([x * z - w * y, ...])` flagged by the scan -> `twin_array([...])`: the items joined; in
  such a helper, `v[0]` -> `twin_item(v, 0)` too (a one-element slice of a 1-D array, not its item).
* `np.stack([gx, gy, gz])` of numbers computed only from such slices (arithmetic, elementwise NumPy/math
  functions, constants) -> `twin_array([...])`: stacking one-element slices would add an axis that
  stacking the scalars does not.
* `np.concatenate([a, [s], b])` (any NumPy join) flagged by the scan -> `np.concatenate([a, twin_array([s]),
  b])`: the list of values inside the join becomes one array (LEAPP would keep the Python list inside
  `torch.cat`, which no exporter takes).
* `TABLE[i]` (also `GRID[ix, iy]`, `TABLE[a, :]`) of a module-level constant table (a list or tuple of
  numbers, or a NumPy array built from literals: see `number_tables`) with a computed index ->
  `twin_take(TABLE, i)`: a gather from the table as a constant tensor or traced array when an index is
  one (NumPy's own indexing would turn a traced index into plain numbers and the entry into a constant)."""
from __future__ import annotations

import ast
import re

import libcst as cst

from leapp_codemod.generate.twin.base import Example, TwinRule, arithmetic_of, call, dotted, names_in
from leapp_codemod.rules._helpers import numpy_constant
from leapp_codemod.rules.scalar_list_join import JOINERS


_ITEM_CASTS = ("float", "int", "twin_scalar")


def _cast_items_source(value) -> cst.BaseExpression | None:
    """`q` of `(float(c) for c in q)` (also `[...]` and `twin_scalar(c, "float")`, which an earlier rule
    made of the cast): unpacking the items cast one by one is unpacking `q` itself into one-element
    slices, which keep the values traced; None for any other value."""
    if not isinstance(value, (cst.GeneratorExp, cst.ListComp)):
        return None
    loop, elt = value.for_in, value.elt
    if loop.inner_for_in is not None or loop.ifs or not isinstance(loop.target, cst.Name):
        return None
    if not (isinstance(elt, cst.Call) and isinstance(elt.func, cst.Name) and elt.func.value in _ITEM_CASTS
            and elt.args and isinstance(elt.args[0].value, cst.Name) and elt.args[0].value.value == loop.target.value):
        return None
    return loop.iter


class ArrayItems(TwinRule):
    CATEGORIES = ("unmapped-numpy",)
    EXAMPLES = (
        Example("import numpy as np\n\n\ndef f(p, goal):\n    x, y = p\n"
                "    return np.array([goal[0] - x, goal[1] - y])\n",
                (("unmapped-numpy", "np.array([goal[0] - x, goal[1] - y])"),),
                "def f(p, goal):\n    x, y = twin_unpack(p, 2)\n"
                "    return twin_array([twin_item(goal, 0) - x, twin_item(goal, 1) - y])\n"),
        Example("SPEEDS = [0.2, 0.5, 1.0]\n\n\ndef f(v, score):\n    gear = int(score.argmax())\n"
                "    return v * SPEEDS[gear]\n",
                (("scalar-extraction", "int(score.argmax())"),),
                'def f(v, score):\n    gear = twin_scalar(score.argmax(), "int")\n    return v * twin_take(SPEEDS, gear)\n'),
        Example("import numpy as np\n\n\ndef f(q):\n    w, x, y, z = q\n"
                "    return np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))\n",
                (("scalar-extraction", "w, x, y, z = q"),),
                "def f(q):\n    w, x, y, z = twin_unpack(q, 4)\n"
                "    return np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))\n"),
        Example("import numpy as np\n\n\ndef f(q):\n    w = q[0]\n    z = q[-1]\n"
                "    g = np.zeros(2)\n    g[0] = 2 * w * z\n    return g\n",
                (("scalar-extraction", "w = q[0]"), ("scalar-extraction", "z = q[-1]")),
                "def f(q):\n    w = twin_item(q, 0)\n    z = twin_item(q, -1)\n"
                "    g = np.zeros(2)\n    g[0] = 2 * w * z\n    return g\n"),
        Example("import numpy as np\n\n\ndef f(q, v):\n    u, w = q[:3], q[3]\n"
                "    return v * (2.0 * w * w - 1.0) + np.cross(u, v) * w\n",
                (("scalar-extraction", "u, w = q[:3], q[3]"),),
                "def f(q, v):\n    u, w = q[:3], twin_item(q, 3)\n"
                "    return v * (2.0 * w * w - 1.0) + np.cross(u, v) * w\n"),
        Example("import math\n\n\ndef f(q):\n    w, x, y, z = (float(c) for c in q)\n"
                "    return 2.0 * (w * z + x * y)\n",
                (("scalar-extraction", "float(c)"),),
                "def f(q):\n    w, x, y, z = twin_unpack(q, 4)\n    return 2.0 * (w * z + x * y)\n"),
        Example("import numpy as np\nGRID = np.array([[0.0, 1.0], [2.0, 3.0]])\n\n\ndef f(p):\n"
                "    ix = np.floor(p).astype(np.int64)\n    return GRID[ix[0], ix[1]]\n", (),
                "def f(p):\n    ix = np.floor(p).astype(np.int64)\n    return twin_take(GRID, (ix[0], ix[1]))\n"),
        Example("import math\n\n\ndef f(q):\n    s = 0.0\n    for i in range(3):\n        s = s + q[i]\n"
                "    return math.cos(s)\n",
                (("scalar-extraction", "s = s + q[i]"), ("scalar-extraction", "math.cos(s)")),
                "def f(q):\n    s = 0.0\n    for i in range(3):\n        s = s + twin_item(q, i)\n"
                "    return twin_math(torch.cos, np.cos, math.cos, s)\n"),
        Example("import numpy as np\n\n\ndef f(pose):\n    x, y, yaw = pose\n    c = np.cos(yaw)\n"
                "    return np.stack((c * x - np.sin(yaw) * y, -x, 2.0))\n",
                (("scalar-extraction", "x, y, yaw = pose"),),
                "def f(pose):\n    x, y, yaw = twin_unpack(pose, 3)\n    c = np.cos(yaw)\n"
                "    return twin_array((c * x - np.sin(yaw) * y, -x, 2.0))\n"),
        Example("import numpy as np\n\n\ndef f(q, rate):\n    return np.hstack((q, [rate * 0.5, rate]))\n",
                (("scalar-extraction", "np.hstack((q, [rate * 0.5, rate]))"),),
                "def f(q, rate):\n    return np.hstack((q, twin_array([rate * 0.5, rate])))\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.tables: frozenset[str] | None = None
        self.slice_numbers: set[str] = set()    # names holding one-element slices where the original had numbers

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        if self.depth and len(updated.targets) == 1 and isinstance(updated.targets[0].target, (cst.Tuple, cst.List)) \
                and not isinstance(updated.value, (cst.Tuple, cst.List)):
            names = updated.targets[0].target.elements
            if all(isinstance(e.value, cst.Name) for e in names):
                self.use(self.flags_on(original, "scalar-extraction"),
                         "array items unpacked into names kept as one-element slices (`twin_unpack`)")
                source = _cast_items_source(updated.value)
                updated = updated.with_changes(value=call("twin_unpack", source or updated.value,
                                                          cst.Integer(str(len(names)))))
        elif self.depth and len(updated.targets) == 1 and _parallel(updated.targets[0].target, updated.value):
            flags = self.flags_on(original, "scalar-extraction")
            items = [e.with_changes(value=_item(e.value)) for e in updated.value.elements]
            if flags and any(isinstance(e.value, cst.Call) and dotted(e.value.func) == "twin_item" for e in items):
                self.use(flags, "integer items of arrays kept as one-element slices (`twin_item`)")
                updated = updated.with_changes(value=updated.value.with_changes(elements=items))
        elif self.depth and len(updated.targets) == 1 and isinstance(updated.targets[0].target, cst.Name) \
                and isinstance(updated.value, cst.Subscript) and isinstance(updated.value.value, cst.Name):
            value = updated.value
            index = value.slice[0].slice.value if len(value.slice) == 1 and isinstance(
                value.slice[0].slice, cst.Index) else None
            flags = self.flags_on(original, "scalar-extraction") if _integer(index) else []
            if flags:
                self.use(flags, "integer items of arrays kept as one-element slices (`twin_item`)")
                updated = updated.with_changes(value=call("twin_item", value.value, index))
        if self.depth and len(updated.targets) == 1:
            self.slice_numbers.update(_slice_numbers(updated.targets[0].target, updated.value, self.slice_numbers))
        return super().leave_Assign(original, updated)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if self.depth:
            target = self.ctx.qualified(updated.func)
            flags = self.flags_on(original, "unmapped-numpy")
            if (flags and target in ("numpy.array", "numpy.asarray") and updated.args
                    and isinstance(updated.args[0].value, (cst.List, cst.Tuple)) and not updated.args[0].keyword
                    and all(a.keyword and a.keyword.value == "dtype" for a in updated.args[1:])):
                self.use(flags, "arrays built from lists of array items joined with np.concatenate (`twin_array`)")
                return updated.with_changes(func=cst.Name("twin_array"))
            if target == "numpy.stack" and len(updated.args) == 1 and isinstance(updated.args[0].value, (
                    cst.List, cst.Tuple)) and _numbers_of_slices(updated.args[0].value, self.slice_numbers):
                self.ctx.rules.add("numbers computed from one-element slices stacked as one array (`twin_array`)")
                return updated.with_changes(func=cst.Name("twin_array"))
            joined = self.flags_on(original, "scalar-extraction") if target in JOINERS else []
            if joined and updated.args and isinstance(updated.args[0].value, (cst.List, cst.Tuple)):
                seq = updated.args[0].value
                items = [e.with_changes(value=call("twin_array", e.value)) if isinstance(e.value, (cst.List, cst.Tuple))
                         else e for e in seq.elements]
                if items != list(seq.elements):
                    self.use(joined, "lists of values inside NumPy joins made one array first (`twin_array`)")
                    return updated.with_changes(args=[updated.args[0].with_changes(
                        value=seq.with_changes(elements=items)), *updated.args[1:]])
        return super().leave_Call(original, updated)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        index = updated.slice[0].slice.value if len(updated.slice) == 1 and isinstance(
            updated.slice[0].slice, cst.Index) else None
        if (self.depth and isinstance(updated.value, cst.Name) and updated.value.value not in self.ctx.tables
                and (self.ctx.array_lists or updated.value.value in self.ctx.item_params) and _integer(index)):
            self.ctx.rules.add("integer items of arrays kept as one-element slices (`twin_item`)")
            return call("twin_item", updated.value, index)
        if (self.depth and isinstance(updated.value, cst.Name) and updated.value.value not in self.ctx.tables
                and isinstance(index, cst.Name) and index.value in self.ctx.loop_indices):
            flags = self.flags_on(original, "scalar-extraction")
            if flags:       # `q[i]` at the position a `for i in range(...)` counts, into Python arithmetic
                self.use(flags, "array items read at a loop's position kept as one-element slices (`twin_item`)")
                return call("twin_item", updated.value, index)
        if self.depth and isinstance(updated.value, cst.Name) and updated.value.value in self.ctx.tables:
            index = _computed_index(updated.slice)
            if index is not None:
                self.use(self.flags_on(original, "scalar-extraction"),
                         "constant tables indexed by a computed index written as gathers (`twin_take`)")
                return call("twin_take", updated.value, index)
        return super().leave_Subscript(original, updated)


def _parallel(target, value) -> bool:
    """`a, b = x[:3], x[3]`: a tuple of names assigned a tuple of the same length, element by element."""
    return isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)) \
        and len(target.elements) == len(value.elements) \
        and all(isinstance(e.value, cst.Name) for e in target.elements) \
        and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))


# Elementwise functions of numbers: of a one-element slice they give a one-element slice.
_ELEMENTWISE = frozenset({"sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "asin", "acos", "atan",
                          "atan2", "sqrt", "exp", "log", "abs", "fabs", "tanh", "sinh", "cosh", "hypot"})


def _slice_numbers(target, value, known: set[str]) -> set[str]:
    """The names an assignment binds to one-element slices standing for numbers: `twin_unpack`/`twin_item`
    results, and arithmetic of such names (`gx = 2.0 * (w * y - x * z)`)."""
    if isinstance(target, cst.Name):
        return {target.value} if _number_of(value, known) or _helper(value, "twin_item") else set()
    if not isinstance(target, (cst.Tuple, cst.List)):
        return set()
    names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
    if len(names) == len(target.elements) and _helper(value, "twin_unpack"):
        return set(names)
    if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(names):
        return {n for n, e in zip(names, value.elements) if _helper(e.value, "twin_item") or _number_of(e.value, known)}
    return set()


def _helper(value, name: str) -> bool:
    return isinstance(value, cst.Call) and dotted(value.func) == name


def _number_of(node, known: set[str]) -> bool:
    """An expression of numbers that reads at least one name in `known`: names, numeric literals, unary and
    binary arithmetic, and elementwise functions (`np.cos`, `math.atan2`) of such expressions."""
    return _arithmetic(node, known) and bool(names_in(node) & known)


def _arithmetic(node, known: set[str]) -> bool:
    return arithmetic_of(node, known, lambda c: (dotted(c.func) or "").rsplit(".", 1)[-1] in _ELEMENTWISE
                         and bool(c.args) and all(not a.keyword and _arithmetic(a.value, known) for a in c.args))


def _numbers_of_slices(seq, known: set[str]) -> bool:
    """Every element a number (see `_arithmetic`) and at least one computed from a one-element slice."""
    return bool(seq.elements) and all(_arithmetic(e.value, known) for e in seq.elements) \
        and any(_number_of(e.value, known) for e in seq.elements)


def _item(value: cst.BaseExpression) -> cst.BaseExpression:
    """`x[k]` (a name indexed by an integer) -> `twin_item(x, k)`; anything else as it is."""
    if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and len(value.slice) == 1 \
            and isinstance(value.slice[0].slice, cst.Index) and _integer(value.slice[0].slice.value):
        return call("twin_item", value.value, value.slice[0].slice.value)
    return value


def _computed_index(elements) -> cst.BaseExpression | None:
    """The index of `TABLE[...]` as one expression (`slice(...)` for slices, a tuple for several parts), when
    some part is computed (not a literal integer or a slice); None otherwise."""
    parts = []
    for element in elements:
        item = element.slice
        if isinstance(item, cst.Slice):
            parts.append(call("slice", *[p if p is not None else cst.Name("None")
                                         for p in (item.lower, item.upper, item.step)]))
        elif isinstance(item, cst.Index) and not item.star:
            parts.append(item.value)
        else:
            return None
    if all(_integer(p) or isinstance(p, cst.Call) and dotted(p.func) == "slice" for p in parts):
        return None
    return parts[0] if len(parts) == 1 else cst.Tuple([cst.Element(p) for p in parts])


def _integer(node) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


def array_lists(source: str, flags) -> bool:
    """The scan flagged `np.array([...])` (or `numpy.array`, `np.asarray`) of a list literal."""
    lines = source.splitlines()
    return any(f.category == "unmapped-numpy" and 0 < f.line <= len(lines)
               and re.match(r"(np|numpy)\.(as)?array\(\s*[\[(]", lines[f.line - 1][f.col:])
               for f in flags)


def number_tables(source: str) -> frozenset[str]:
    """Module-level names bound once to a constant table: a list or tuple literal of numbers (nested ones
    included), or a NumPy array built from such literals and from earlier tables (`np.array([[...]])`,
    `np.asarray(..., dtype=...)`, `np.linspace(0, 1, 5)`, `np.eye(3)`): nothing read at run time."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset()
    bound: dict[str, int] = {}
    tables = set()
    for node in ast.walk(tree):
        for t in getattr(node, "targets", None) or ([node.target] if isinstance(node, (ast.AugAssign,
                                                                                     ast.AnnAssign)) else []):
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    bound[n.id] = bound.get(n.id, 0) + 1
    numpy_names = {a.asname or a.name for node in tree.body if isinstance(node, ast.Import)
                   for a in node.names if a.name == "numpy"}
    numbers = set()
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        target = node.targets[0].id
        if isinstance(node.value, (ast.List, ast.Tuple)) and _numbers(node.value):
            tables.add(target)
        elif isinstance(node.value, ast.Call) and numpy_constant(node.value, numpy_names, tables | numbers):
            tables.add(target)
        elif isinstance(node.value, (ast.Constant, ast.UnaryOp, ast.BinOp)) and numpy_constant(
                node.value, numpy_names, numbers):
            numbers.add(target)
    return frozenset(t for t in tables if bound.get(t) == 1)


def _numbers(node) -> bool:
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return False

    def ok(v) -> bool:
        if isinstance(v, (list, tuple)):
            return len(v) > 0 and all(ok(x) for x in v)
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return ok(value)
