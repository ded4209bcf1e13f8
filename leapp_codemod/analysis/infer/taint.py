"""Taint questions about one function: is an expression pipeline data, a shape of pipeline data, a NumPy array?

Each question walks the expression iteratively (a 2,000-term sum must not exhaust the stack); a step
answers True/False on its own or hands back the sub-expressions any of which decides.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.walk import is_self_attr
from leapp_codemod.knowledge.vocab import (
    CONTAINER_MUTATORS, META_ATTRS, NDARRAY_RESULT_METHODS, NON_DATA_BUILTINS, SCALAR_METHODS, SHAPE_ATTRS,
    SHAPE_METHODS, TYPE_QUERIES,
)


def _any_leaf(e: ast.expr | None, step) -> bool:
    """True when `step` says True for `e` or for any sub-expression it hands back (no recursion)."""
    stack = [e]
    while stack:
        verdict = step(stack.pop())
        if verdict is True:
            return True
        if verdict:
            stack.extend(verdict)
    return False



class TaintQuestions:
    """Mixin of `FunctionContext`: pipeline data, shapes, NumPy-ness."""

    def fixed_length_list(self, e: ast.expr) -> bool:
        """A local list/dict the function builds from an empty literal, never filled in a loop over pipeline
        data: its length is set by the code path (configuration), not by the data (`h = []; h.append(x)`)."""
        if not isinstance(e, ast.Name):
            return False
        bindings = [n.value for n in self.fn.nodes if isinstance(n, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == e.id for t in n.targets)]
        if not bindings or not all(_empty_container(v) for v in bindings):
            return False
        for loop in self.fn.nodes:
            if isinstance(loop, (ast.For, ast.While)) and self.is_data(loop.iter if isinstance(loop, ast.For) else loop.test):
                if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in CONTAINER_MUTATORS
                       and isinstance(n.func.value, ast.Name) and n.func.value.id == e.id for n in ast.walk(loop)):
                    return False
        return True


    # ------------------------------------------------------------------ pipeline data
    def is_data(self, e: ast.expr | None) -> bool:
        """Iterative over the expression (a 2,000-term sum must not exhaust the stack)."""
        return _any_leaf(e, self._data_step)

    def _data_step(self, e: ast.expr | None) -> bool | list:
        """True/False when `e` decides on its own, else the sub-expressions any of which makes it data."""
        if e is None:
            return False
        if isinstance(e, ast.Name):
            return e.id in self.env.data or self.is_data_global(e.id)
        if isinstance(e, ast.Attribute):
            if e.attr in SHAPE_ATTRS or e.attr in META_ATTRS:
                return False
            if is_self_attr(e, self.self_name):
                return self.self_attr_is_data(e.attr)
            return [e.value]
        if isinstance(e, ast.Subscript):
            return [e.value, e.slice]
        if isinstance(e, ast.Call):
            return self._call_data_step(e)
        if isinstance(e, ast.BinOp):
            return [e.left, e.right]
        if isinstance(e, ast.UnaryOp):
            return [e.operand]
        if isinstance(e, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in e.ops):
                return False
            if any(isinstance(x, ast.Constant) and isinstance(x.value, (str, bytes)) for x in (e.left, *e.comparators)):
                return False  # a mode or a name, never a tensor
            return [e.left, *e.comparators]
        if isinstance(e, ast.BoolOp):
            return list(e.values)
        if isinstance(e, ast.IfExp):
            return [e.body, e.orelse]
        if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
            return list(e.elts)
        if isinstance(e, ast.Dict):
            return [v for v in e.values if v is not None]
        if isinstance(e, (ast.Starred, ast.NamedExpr)):
            return [e.value]
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return [e.elt, *(g.iter for g in e.generators)]
        if isinstance(e, ast.DictComp):
            return [e.value, *(g.iter for g in e.generators)]
        return False

    def args_data(self, call: ast.Call) -> bool:
        return any(self.is_data(a) for a in call.args) or any(self.is_data(k.value) for k in call.keywords)

    def _call_data_step(self, call: ast.Call) -> bool | list:
        builtin = self.builtin(call)
        if builtin == "len" and len(call.args) == 1 and self.is_state_container(call.args[0]):
            return True  # the length of a queue the step fills changes from call to call
        if builtin in NON_DATA_BUILTINS:
            return False
        if self.call_name(call) in TYPE_QUERIES:
            return False
        func = call.func
        children: list = []
        if isinstance(func, ast.Attribute):
            if func.attr in SCALAR_METHODS or func.attr in SHAPE_METHODS:
                return False
            children.append(func.value)
        callees = self.resolve_call(call)
        if any(callee.id in self.facts.returns_data for callee in callees):
            return True
        if callees and all(callee.name != "__init__" and self.project.is_library(callee.module) for callee in callees):
            return children  # a followed library function whose returns were analyzed and hold no pipeline data
        return children + list(call.args) + [k.value for k in call.keywords]

    # ------------------------------------------------------------------ shapes
    def is_shape(self, e: ast.expr | None) -> bool:
        return _any_leaf(e, self._shape_step)

    def _shape_step(self, e: ast.expr | None) -> bool | list:
        if e is None:
            return False
        if isinstance(e, ast.Name):
            return e.id in self.env.shape
        if isinstance(e, ast.Attribute):
            return e.attr in SHAPE_ATTRS and self.is_data(e.value)
        if isinstance(e, ast.Subscript):
            return [e.value]
        if isinstance(e, ast.Call):
            if isinstance(e.func, ast.Attribute) and e.func.attr in SHAPE_METHODS:
                return self.is_data(e.func.value)
            builtin = self.builtin(e)
            if builtin == "len":
                return any(self.is_data(a) and not self.is_state_container(a) and not self.fixed_length_list(a)
                           for a in e.args)
            if builtin in ("min", "max", "abs", "int", "float", "round", "sum"):
                return list(e.args)
            return False
        if isinstance(e, ast.BinOp):
            return [e.left, e.right]
        if isinstance(e, ast.UnaryOp):
            return [e.operand]
        if isinstance(e, (ast.Tuple, ast.List)):
            return list(e.elts)
        return False

    # ------------------------------------------------------------------ numpy-ness
    def is_numpy(self, e: ast.expr | None) -> bool:
        return _any_leaf(e, self._numpy_step)

    def _numpy_step(self, e: ast.expr | None) -> bool | list:
        if e is None:
            return False
        if isinstance(e, ast.Name):
            return self.env.numpy_at(e.id, getattr(e, 'lineno', 0))
        if isinstance(e, ast.Subscript):
            return [e.value]
        if isinstance(e, ast.Attribute):
            return [e.value] if e.attr == "T" else False
        if isinstance(e, ast.BinOp):
            return [e.left, e.right]
        if isinstance(e, ast.Call):
            func = e.func
            if isinstance(func, ast.Attribute) and func.attr == "numpy":
                return True
            name = self.call_name(e)
            if name and name.startswith("numpy.") and not name.startswith(("numpy.random.", "numpy.dtype")):
                return True
            if any(c.id in self.facts.returns_numpy for c in self.resolve_call(e)):
                return True
            if isinstance(func, ast.Attribute) and func.attr in NDARRAY_RESULT_METHODS:
                return [func.value]
            return False
        return False


def _empty_container(value: ast.expr) -> bool:
    """`[]`, `()`, `{}`, `list()`, `dict()`."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return not value.elts
    if isinstance(value, ast.Dict):
        return not value.keys
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "dict") \
        and not value.args and not value.keywords

