"""tensor-branch: a value-dependent choice -> `twin_where` (both sides evaluated).

Rewritten are a ternary `a if c else b`, `if c: return a` chains (possibly after assignments), and an
`if`/`else` whose branches only assign names. Both sides run in the twin, so each must be free of
side effects (`base.side_effect`): a method call on a parameter (`hist.push(x)`) is not presumed pure
and refuses the twin. A `while` or `for` whose trip count depends on pipeline data refuses it too."""
from __future__ import annotations

import libcst as cst

from leapp_codemod.generate.twin.base import (
    Example,
    Refused,
    Step,
    TwinRule,
    call,
    code,
    is_tensor_valued,
    name,
    names_in,
    side_effect,
)

_CATEGORY = "tensor-branch"


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
                "def f(x):\n    twin_cond = x.mean() > 0\n    y = twin_where(twin_cond, x * 2, -x)\n    return y\n"),
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
                                        f"(`{code(stmt).strip().splitlines()[0]}`)")
                value = stmt.body[0].value
                if names_in(value) & set(assigned):
                    raise Refused(line, "a value-dependent branch reads a name it assigned itself")
                self._check_pure(value, line)
                assigned[stmt.body[0].targets[0].target.value] = value
            values.append(assigned)
        names = list(dict.fromkeys([*values[0], *values[1]]))
        cond = "twin_cond"
        out = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(name(cond))], new.test)])]
        for n in names:
            a, b = values[0].get(n, name(n)), values[1].get(n, name(n))
            out.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(name(n))],
                                                           call("twin_where", name(cond), a, b))]))
            self.ctx.tainted.add(n)
        return out


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
