"""tensor-branch: a value-dependent choice -> `twin_where` (both sides evaluated).

Rewritten are a ternary `a if c else b`, `if c: return a` chains (possibly after assignments), and an
`if`/`else` whose branches only assign names or array slots (`if err[i] > 0: duty[i] = a else: duty[i] = b`,
one-armed `if c: out[k] = v`): a slot becomes `twin_where(cond, a, <the slot's value>)` written back
(`twin_put` into an array the helper allocated), the element reads in the condition and in the slot values
kept traced (`twin_item`, also at a `for i in range(...)` position) and a compared 0-d NumPy value made a
one-element array (`twin_vector`: its comparison would be a plain `np.bool_`). Both sides run in the
twin, so each must be free of side effects (`base.side_effect`): a method call on a parameter
(`hist.push(x)`) is not presumed pure and refuses the twin. A `while` or `for` whose trip count depends
on pipeline data refuses it too."""
from __future__ import annotations

import ast

import libcst as cst

from leapp_codemod.generate.twin.base import (
    Example,
    Refused,
    Step,
    TwinRule,
    call,
    code,
    dotted,
    is_tensor_valued,
    name,
    names_in,
    side_effect,
)

_CATEGORY = "tensor-branch"
FRESH_CATEGORIES = ("inplace-state", "scalar-extraction")


class BranchWhere(TwinRule):
    CATEGORIES = (_CATEGORY,)
    EXAMPLES = (
        Example("def f(x, lo, hi):\n    return lo if x.sum() > 0 else hi\n", ((_CATEGORY, "x.sum() > 0"),),
                "def f(x, lo, hi):\n    return twin_where(x.sum() > 0, lo, hi)\n"),
        Example("def f(x):\n    if x.max() > 1.0:\n        return x / x.max()\n    return x\n",
                ((_CATEGORY, "x.max() > 1.0"),),
                "def f(x):\n    return twin_where(x.max() > 1.0, x / x.max(), x)\n"),
        Example("def f(x):\n    if x.mean() > 0:\n        y = x * 2\n    else:\n        y = -x\n    return y\n",
                ((_CATEGORY, "x.mean() > 0"),),
                "def f(x):\n    twin_cond = twin_vector(x.mean()) > 0\n    y = twin_where(twin_cond, x * 2, -x)\n"
                "    return y\n"),
        Example("import numpy as np\n\n\ndef f(err, a, b):\n    duty = np.zeros(4)\n    for i in range(4):\n"
                "        if err[i] > 0:\n            duty[i] = a * err[i]\n        else:\n            duty[i] = b\n"
                "    return duty\n",
                ((_CATEGORY, "err[i] > 0"), ("inplace-state", "duty[i] = a * err[i]")),
                "def f(err, a, b):\n    duty = np.zeros(4)\n    for i in range(4):\n"
                "        twin_cond = twin_item(err, i) > 0\n"
                "        duty = twin_put(duty, i, twin_where(twin_cond, a * twin_item(err, i), b))\n    return duty\n"),
        Example("def f(out, x, k):\n    if x.sum() > 1.0:\n        out[k] = x.sum()\n    return out\n",
                ((_CATEGORY, "x.sum() > 1.0"),),
                "def f(out, x, k):\n    twin_cond = twin_vector(x.sum()) > 1.0\n"
                "    out[k] = twin_where(twin_cond, x.sum(), twin_item(out, k))\n    return out\n"),
        Example("import numpy as np\n\n\ndef f(x):\n    out = np.zeros(2)\n    if x[0] > 0:\n        out[0] = 1.0\n"
                "    elif x[1] > 0:\n        out[1] = 1.0\n    return out\n", ((_CATEGORY, "x[0] > 0"),),
                refused="an `elif` chain that assigns is not rewritten"),
        Example("def f(x, hist):\n    return hist.push(x) if x.sum() > 0 else x\n", ((_CATEGORY, "x.sum() > 0"),),
                refused="`hist.push(...)`, which may have side effects"),
        Example("def f(x, hist):\n    if x.sum() > 0:\n        y = hist.push(x)\n    else:\n        y = x\n"
                "    return y\n", ((_CATEGORY, "x.sum() > 0"),),
                refused="`hist.push(...)`, which may have side effects"),
        Example("def f(x):\n    while x.abs().max() > 1:\n        x = x * 0.5\n    return x\n",
                ((_CATEGORY, "x.abs().max() > 1"),), refused="trip count depends on pipeline data"),
    )

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        flags = self.flags_on(original.test, _CATEGORY)
        if not flags and not is_tensor_valued(updated.test, self.ctx):
            return super().leave_IfExp(original, updated)
        for side in (updated.body, updated.orelse):
            why = side_effect(side, self.ctx)
            if why:
                raise Refused(self.line(original), f"both sides of the value-dependent choice would run, but {why}")
        self.use(flags, "value-dependent choices written as `twin_where` (both sides evaluated)")
        return call("twin_where", updated.test, updated.body, updated.orelse)

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        if self.depth and (self.flags_on(original.test, _CATEGORY) or is_tensor_valued(updated.test, self.ctx)):
            self.ctx.tainted.update(_assigned_names(updated))     # they become twin_where(...) values
        return super().leave_If(original, updated)

    def statement(self, out: list, original: list, updated: list) -> Step | None:
        orig, new = original[0], updated[0]
        if isinstance(new, cst.If) and self._value_dependent(orig, new):
            if _ends_in_return(new):
                hoisted, value = self._value_of(original, updated)
                ret = cst.SimpleStatementLine([cst.Return(value)], leading_lines=new.leading_lines)
                return Step(out + hoisted + [ret], [], done=True)
            return Step(out + self._assignments(orig, new), updated[1:])
        if isinstance(new, cst.While) and (self.flagged(orig, _CATEGORY) or is_tensor_valued(new.test, self.ctx)):
            raise Refused(self.line(orig), "a `while` loop whose trip count depends on pipeline data cannot be "
                                           "traced as a fixed graph")
        if isinstance(new, cst.For) and (self.flagged(orig, _CATEGORY) or is_tensor_valued(new.iter, self.ctx)):
            raise Refused(self.line(orig), "a `for` loop whose trip count depends on pipeline data cannot be "
                                           "traced as a fixed graph")
        return super().statement(out, original, updated)

    def _value_dependent(self, orig: cst.If, new: cst.If) -> bool:
        return self.flagged(orig, _CATEGORY) or is_tensor_valued(new.test, self.ctx)

    def _mark(self, orig) -> None:
        self.use([f for f in self.ctx.flags if f.category == _CATEGORY and f.line == self.line(orig)],
                 "value-dependent branches written as `twin_where` (both branches evaluated)")

    def _check_pure(self, node, line: int) -> None:
        why = side_effect(node, self.ctx)
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
            if written & (names_in(head_u.test) | names_in(body_v)):
                raise Refused(line, f"`{min(written)}` is reassigned after the value-dependent return "
                                    "that reads it")
            for side in (body_v, else_v):
                self._check_pure(side, line)
            return else_h, _where_of(head_u.test, body_v, else_v)
        raise Refused(line, "this statement cannot be combined into a value-dependent return value")

    # `if c: x = a else: x = b`; also slots: `if c: out[i] = a else: out[i] = b`, one-armed `if c: out[k] = v`
    def _assignments(self, orig: cst.If, new: cst.If) -> list:
        line = self.line(orig)
        self._mark(orig)
        if isinstance(new.orelse, cst.If):
            raise Refused(line, "an `elif` chain that assigns is not rewritten; write it as nested ternaries")
        branches = [new.body.body, _else_body(new.orelse) if new.orelse is not None else []]
        values: list[dict[str, cst.BaseExpression]] = []
        targets: dict[str, cst.BaseExpression] = {}      # key -> the name or slot assigned
        for body in branches:
            assigned: dict[str, cst.BaseExpression] = {}
            for stmt in body:
                target = _single_target(stmt)
                if target is None:
                    raise Refused(line, "a value-dependent branch does more than assign names or array slots "
                                        f"(`{code(stmt).strip().splitlines()[0]}`)")
                value = stmt.body[0].value
                if names_in(value) & {_base(t) for t in (targets.get(k) for k in assigned) if t is not None}:
                    raise Refused(line, "a value-dependent branch reads a name it assigned itself")
                self._check_pure(value, line)
                key = code(target)
                targets.setdefault(key, target)
                assigned[key] = value if isinstance(target, cst.Name) else _items_of(value, self.ctx)
            values.append(assigned)
        keys = list(dict.fromkeys([*values[0], *values[1]]))
        cond = "twin_cond"
        test = _compared_as_vectors(_items_of(new.test, self.ctx))
        out = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(name(cond))], test)])]
        for key in keys:
            target = targets[key]
            current = target if isinstance(target, cst.Name) else _slot_read(target)
            a, b = values[0].get(key, current), values[1].get(key, current)
            choice = call("twin_where", name(cond), a, b)
            if isinstance(target, cst.Name):
                out.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(name(target.value))], choice)]))
                self.ctx.tainted.add(target.value)
                continue
            out.append(self._slot_write(orig, target, choice))
        return out

    def _slot_write(self, orig: cst.If, target: cst.Subscript, choice: cst.BaseExpression):
        """`out[i] = choice`; into an array the helper allocated, `out = twin_put(out, i, choice)` (a plain
        allocation becomes traced at the first traced value written, see fresh_writes)."""
        base = target.value.value
        self.ctx.rules.add("value-dependent writes into array slots written as a choice per slot (`twin_where`)")
        writes = self.flags_on(orig, *FRESH_CATEGORIES)
        fresh = self.__dict__.get("_fresh_names", set())
        if base in fresh:
            self.__dict__.setdefault("_flagged_names", set()).add(base)   # later writes into it traced too
            self.use(writes, "element writes into an array the helper allocates written as `twin_put`")
            index = _slot_index(target)
            return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(name(base))],
                                                       call("twin_put", name(base), index, choice))])
        return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], choice)])


def _single_target(stmt) -> cst.BaseExpression | None:
    """The one name or one-name slot (`out[i]`, `out[i, j]`) a simple assignment writes, or None."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1):
        return None
    target = stmt.body[0].targets[0].target
    if isinstance(target, cst.Name):
        return target
    if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and _slot_index(target) is not None:
        return target
    return None


def _base(target) -> str:
    return target.value if isinstance(target, cst.Name) else target.value.value


def _slot_index(target: cst.Subscript) -> cst.BaseExpression | None:
    parts = [e.slice.value for e in target.slice if isinstance(e.slice, cst.Index) and not e.slice.star]
    if len(parts) != len(target.slice):
        return None         # a slice is not one slot
    return parts[0] if len(parts) == 1 else cst.Tuple([cst.Element(p) for p in parts])


def _slot_read(target: cst.Subscript) -> cst.BaseExpression:
    """The slot's current value, kept traced (`twin_item`: a one-element slice of a 1-D array)."""
    index = _slot_index(target)
    return call("twin_item", target.value, index) if len(target.slice) == 1 else target


def _items_of(node: cst.BaseExpression, ctx) -> cst.BaseExpression:
    """Single-element reads `q[i]` (a constant or a `range` loop index) in a value-dependent choice kept as
    one-element slices (`twin_item`): the item of a traced NumPy array is a plain NumPy number, so a
    condition or a value built from it would be exported as the constant seen while tracing."""
    class T(cst.CSTTransformer):
        def leave_Subscript(self, o, u):
            if (isinstance(u.value, cst.Name) and u.value.value not in ctx.tables and len(u.slice) == 1
                    and isinstance(u.slice[0].slice, cst.Index) and _simple_index(u.slice[0].slice.value, ctx)):
                return call("twin_item", u.value, u.slice[0].slice.value)
            return u

        def visit_Call(self, n):
            return dotted(n.func) != "twin_item"      # already kept

    return node.visit(T())


def _compared_as_vectors(node: cst.BaseExpression) -> cst.BaseExpression:
    """Each computed operand of a comparison as `twin_vector(...)`: comparing a 0-d NumPy array (a
    reduction such as `load.min()`) gives a plain `np.bool_` that LEAPP does not trace, so the choice
    would be exported as the one taken while tracing; a one-element array compares as a traced array."""
    class T(cst.CSTTransformer):
        def leave_Comparison(self, o, u):
            wrap = (lambda e: e if isinstance(e, (cst.Integer, cst.Float, cst.Name, cst.UnaryOperation))
                    or dotted(getattr(e, "func", None) or cst.Name("x")) == "twin_item" else call("twin_vector", e))
            return u.with_changes(left=wrap(u.left),
                                  comparisons=[c.with_changes(comparator=wrap(c.comparator)) for c in u.comparisons])

    return node.visit(T())


def _simple_index(node, ctx) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer) or isinstance(node, cst.Name) and node.value in ctx.loop_indices


def _where_of(test, a, b) -> cst.BaseExpression:
    """`twin_where(test, a, b)`, element by element when both sides are tuples of the same length."""
    if isinstance(a, cst.Tuple) and isinstance(b, cst.Tuple) and len(a.elements) == len(b.elements) and not any(
            isinstance(e, cst.StarredElement) for e in (*a.elements, *b.elements)):
        return cst.Tuple([cst.Element(_where_of(test, x.value, y.value)) for x, y in zip(a.elements, b.elements)])
    return call("twin_where", test, a, b)


def _else_body(orelse) -> list:
    return list(orelse.body.body) if isinstance(orelse, cst.Else) else [orelse]


def _ends_in_return(node: cst.If) -> bool:
    last = node.body.body[-1] if node.body.body else None
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)


def _assigned_names(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            if isinstance(n.target, cst.Name):
                found.add(n.target.value)

    node.visit(V())
    return found


def loop_indices(source: str, fn_name: str) -> frozenset[str]:
    """Names in module-level function `fn_name` bound only as the target of `for NAME in range(...)`:
    Python integers at run time, so `q[NAME]` reads one element as a constant index does."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset()
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == fn_name), None)
    if fn is None:
        return frozenset()
    loops, other = set(), set()
    for node in ast.walk(fn):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call) \
                and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range":
            loops.add(node.target.id)
            continue
        for t in getattr(node, "targets", None) or ([node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension)) else []):
            other.update(_bound(t))
    return frozenset(loops - other - {a.arg for a in fn.args.args + fn.args.posonlyargs})


def _bound(target) -> set[str]:
    """Names a binding target binds (not the names read inside a subscript or attribute target)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_bound(e) for e in target.elts))
    if isinstance(target, ast.Starred):
        return _bound(target.value)
    return set()
