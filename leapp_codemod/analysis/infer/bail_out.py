"""Bail-out guards: `if self.policy is None: log.warn(...); return` or `if len(action) != 12: log.error(...);
return`. One side of the check only reports (I/O, `pass`) and leaves the step (a `raise`, or a bare `return`
or a `return None`: a callback skipping the step, a step giving no result); the test reads no pipeline
values (a setting, a fixed size). A traced call that took that side would export nothing, so the side traced is
the one every accepted input takes: the check is no branch on data and its report is no I/O of the export.
`source.guards.only_raises` is the case with nothing but a raise.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.type_tests import parent_map


class BailOutQuestions:
    """Mixin of `FunctionContext`: `bail_out_arm()`, `in_bail_out()`."""

    def bail_out_arm(self, stmt: ast.AST) -> bool:
        """Is `stmt` an `if` with a side that only reports and leaves, under a test on no pipeline values?"""
        if not isinstance(stmt, ast.If) or not any(self._leaves_only(arm) for arm in (stmt.body, stmt.orelse)):
            return False   # the arms' shape first: most `if`s have no such arm, and the test's flow costs more
        return self._no_values(stmt.test)

    def in_bail_out(self, node: ast.AST) -> bool:
        """Is `node` inside the reporting side of such a check (the warning before the `return`)?"""
        parents = parent_map(self.fn)
        child, parent = node, parents.get(id(node))
        while parent is not None and not isinstance(parent, ast.stmt):
            child, parent = parent, parents.get(id(parent))
        statement, owner = parent, parents.get(id(parent)) if parent is not None else None
        if not isinstance(owner, ast.If) or statement is owner.test:
            return False
        arm = owner.body if any(s is statement for s in owner.body) else owner.orelse
        return self._leaves_only(arm) and self.bail_out_arm(owner)

    def _leaves_only(self, arm: list[ast.stmt]) -> bool:
        return bool(arm) and self._leaves(arm[-1]) and (len(arm) == 1 or self.only_io(arm[:-1]))

    def _leaves(self, s: ast.stmt) -> bool:
        if isinstance(s, ast.Raise):
            return True
        if not isinstance(s, ast.Return):
            return False
        if s.value is None or isinstance(s.value, ast.Constant) and s.value.value is None:
            return True   # no result: nothing to export
        return _flag_constant(s.value) and self._status_only()   # `return False` of a sender: a status, no data

    def _status_only(self) -> bool:
        """Does every `return` of the function give a constant True/False/None (a sender's status)?"""
        known = self.fn.walks.get("status_only")
        if known is None:
            known = self.fn.walks["status_only"] = all(
                n.value is None or _flag_constant(n.value) or isinstance(n.value, ast.Constant) and n.value.value is None
                for n in self.fn.nodes if isinstance(n, ast.Return))
        return known

    def _no_values(self, test: ast.expr) -> bool:
        """A test on settings only, or on pipeline data only through its sizes (`len(action) != 12`)."""
        if not self.is_data(test):
            return True
        if isinstance(test, ast.BoolOp):
            return all(self._no_values(v) for v in test.values)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._no_values(test.operand)
        parts = [test.left, *test.comparators] if isinstance(test, ast.Compare) else None
        return parts is not None and all(not self.is_data(p) or self.is_shape(p) for p in parts)


def _flag_constant(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and isinstance(value.value, bool)
