"""Taint questions about one function: is an expression pipeline data, a shape of pipeline data, a NumPy array?

Each question walks the expression iteratively (a 2,000-term sum must not exhaust the stack); a step
answers True/False on its own or hands back the sub-expressions any of which decides.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.resolve_types import subclasses
from leapp_codemod.analysis.model.attribute_stores import attribute_rebound
from leapp_codemod.analysis.model.settings import CONSTRUCTION
from leapp_codemod.analysis.infer.devices import converted_read
from leapp_codemod.analysis.infer.built_fields import construction_field, setting_item
from leapp_codemod.analysis.infer.param_reads import holds_callers_setting
from leapp_codemod.analysis.infer.reaching import reaching_bindings
from leapp_codemod.analysis.infer.type_tests import (SCALAR_TYPE_NAMES, built_value, empty_container, entries_call,
                                                     narrowed_from_numpy, narrowed_to_containers, numpy_attr,
                                                     parent_map,
                                                     scalar_predicate, type_answer, type_tests)
from leapp_codemod.analysis.model.walk import is_self_attr, leaves_function
from leapp_codemod.knowledge.io import IMAGE_READS, THREAD_HANDOFFS
from leapp_codemod.knowledge.vocab import (
    CONTAINER_MUTATORS, META_ATTRS, NDARRAY_RESULT_METHODS, NON_DATA_BUILTINS, SCALAR_METHODS,
    RANK_ATTRS, RANK_METHODS, SHAPE_ATTRS, SHAPE_METHODS, TYPE_QUERIES,
)


def _scalar_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2):
        return False
    kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    names = [k.attr if isinstance(k, ast.Attribute) else getattr(k, "id", None) for k in kinds]
    return bool(names) and all(n in SCALAR_TYPE_NAMES for n in names)


def function_attr(ctx, e: ast.expr) -> str | None:
    """`handler.filtered` for an attribute set on a module-level function object (a value kept from call to
    call the way a C `static` is), else None."""
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id in ctx.module.functions \
            and e.value.id not in ctx.fn.params and e.value.id not in ctx.env.types:
        return f"{e.value.id}.{e.attr}"
    return None


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


def _any_leaf_kept(e: ast.expr | None, step, kept: dict[int, tuple]) -> bool:
    """`_any_leaf`, keeping answers in `kept` (node id -> (node, answer); the node is held so that its id
    is never another's) while the facts `step` reads are final: a False answer holds for every
    sub-expression walked, so a rule asking about each operator of a 2,000-term sum walks the sum once,
    not 2,000 times."""
    walked, stack = [], [e]
    while stack:
        node = stack.pop()
        answer = kept.get(id(node), (None, None))[1]
        if answer is False:
            continue
        verdict = True if answer else step(node)
        if verdict is True:
            kept[id(e)] = (e, True)
            return True
        walked.append(node)
        if verdict:
            stack.extend(verdict)
    for node in walked:
        kept[id(node)] = (node, False)
    return False


class TaintQuestions:
    """Mixin of `FunctionContext`: pipeline data, shapes, NumPy-ness."""

    def under_scalar_dispatch(self, node: ast.AST) -> bool:
        """Is `node` inside the branch of `if isinstance(v, (float, int))` / `elif isinstance(v, np.bool_)`: code
        for a Python or NumPy scalar, which the tensors and arrays of a pipeline never take?"""
        parents = parent_map(self.fn)
        child, parent = node, parents.get(id(node))
        while parent is not None:
            if isinstance(parent, ast.If) and any(child is s for s in parent.body) and _scalar_test(parent.test):
                return True
            child, parent = parent, parents.get(id(parent))
        return False

    def fixed_length_list(self, e: ast.expr) -> bool:
        """A local list/dict the function builds from an empty literal, never filled in a loop over pipeline
        data: its length is set by the code path (configuration), not by the data (`h = []; h.append(x)`)."""
        if not isinstance(e, ast.Name):
            return False
        bindings = reaching_bindings(self.fn, e)   # not `feats = torch.cat(feats)` after `len(feats)`
        if not bindings or not all(empty_container(v) for v in bindings):
            return False
        for loop in self.fn.nodes:
            if isinstance(loop, (ast.For, ast.While)) and self.is_data(loop.iter if isinstance(loop, ast.For) else loop.test):
                if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in CONTAINER_MUTATORS
                       and isinstance(n.func.value, ast.Name) and n.func.value.id == e.id
                       and not self._fills_containers(n) for n in ast.walk(loop)):
                    return False
        return True

    def is_type_query(self, call: ast.Call) -> bool:
        """`np.isscalar(x)`, `torch.is_tensor(x)`: a question about the type, never about the values."""
        return self.call_name(call) in TYPE_QUERIES

    def _fills_containers(self, call: ast.Call) -> bool:
        """`groups.append(g)` under `if isinstance(g, dict)`: one entry per Python container the code
        met, not per element of an array (also `groups.append(Group(g))`)."""
        names = [a for a in call.args if isinstance(a, ast.Name)]
        names += [b for a in call.args if isinstance(a, ast.Call) for b in a.args if isinstance(b, ast.Name)]
        return len(names) == len(call.args) and bool(names) and all(
            narrowed_to_containers(self.fn, n.id, call) for n in names)

    def is_type_predicate(self, fn) -> bool:
        """A function every `return` of which answers a question about types or structure: `isinstance`,
        `np.isscalar`, `hasattr`, `x is None`, `x.shape == ()`, a constant, or another such function."""
        known = fn.walks.get("type_predicate")
        if known is not None:
            return known
        fn.walks["type_predicate"] = False  # a recursive predicate is not proven by itself
        returns = [n.value for n in fn.nodes if isinstance(n, ast.Return)]
        ctx = self.for_function(fn)
        verdict = bool(returns) and all(v is not None and type_answer(v, ctx) for v in returns)
        fn.walks["type_predicate"] = verdict
        return verdict

    def not_an_array(self, name: str, where: ast.AST) -> bool:
        """Is `name`, where `where` sits, known not to be an array or tensor? Past an early return for arrays
        at the top of the function (`if isinstance(v, np.ndarray) ...: return v`), or inside an `if` whose
        test is a type predicate naming only scalar types (`if _is_number(v): ...`)."""
        line = getattr(where, "lineno", 0)
        for stmt in self.fn.node.body:
            if stmt.lineno >= line:
                break
            if isinstance(stmt, ast.If) and not stmt.orelse and leaves_function(stmt.body):
                pos, _neg = type_tests(stmt.test).get(name, (set(), set()))
                if pos & {"ndarray", "Tensor"}:
                    return True
        parents = parent_map(self.fn)
        child, parent = where, parents.get(id(where))
        while parent is not None:
            if isinstance(parent, ast.If) and child in parent.body and isinstance(parent.test, ast.Call) \
                    and len(parent.test.args) == 1 and isinstance(parent.test.args[0], ast.Name) \
                    and parent.test.args[0].id == name:
                callees = self.resolve_call(parent.test)
                if callees and all(scalar_predicate(c) for c in callees):
                    return True
            child, parent = parent, parents.get(id(parent))
        return False

    def counts_entries(self, e: ast.expr, where: ast.AST) -> bool:
        """`len(...)` of something whose length the code sets, not the data: the entries of a mapping
        (`d.keys()`, `b.get_keys()`), the `**kwargs` of this function, a name an enclosing `isinstance`
        test narrows to a Python container or object (`if isinstance(v, dict): len(v)`)."""
        if entries_call(e):
            return True
        if not isinstance(e, ast.Name):
            return False
        kwarg = self.fn.node.args.kwarg
        if kwarg is not None and kwarg.arg == e.id:
            return True
        return narrowed_to_containers(self.fn, e.id, where)

    # ------------------------------------------------------------------ pipeline data
    def is_data(self, e: ast.expr | None) -> bool:
        """Iterative over the expression (a 2,000-term sum must not exhaust the stack)."""
        return _any_leaf(e, self._data_step)

    def _data_step(self, e: ast.expr | None) -> bool | list:
        """True/False when `e` decides on its own, else the sub-expressions any of which makes it data."""
        if e is None:
            return False
        if isinstance(e, ast.Name):
            if e.id in self.env.data and not holds_callers_setting(self, e):
                return True
            return self.is_data_global(e.id)
        if isinstance(e, ast.Attribute):
            if e.attr in SHAPE_ATTRS or e.attr in META_ATTRS or self.image_size(e):
                return False
            if is_self_attr(e, self.self_name):   # or a value a callback fills: the input the step reads
                return self.self_attr_is_data(e.attr) or bool(self._outside_fills(e))
            if e.attr in self.facts.foreign_written and self._filled_field(e):
                return True
            if function_attr(self, e) in self.facts.data_globals.get(self.module.name, ()):
                return True
            return False if construction_field(self, e) else [e.value]   # `self.policy.ncams`: built with it
        if isinstance(e, ast.Subscript):   # `buffers["hold"]`: a setting the caller put next to the state
            return False if setting_item(self, e) else [e.value, e.slice]
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
            return [e.elt]  # the elements decide; the loop targets are bound from the iterables
        if isinstance(e, ast.DictComp):
            return [e.value]
        return False

    def args_data(self, call: ast.Call) -> bool:
        return any(self.is_data(a) for a in call.args) or any(self.is_data(k.value) for k in call.keywords)

    def _call_data_step(self, call: ast.Call) -> bool | list:
        builtin = self.builtin(call)
        if builtin == "len" and len(call.args) == 1 and self.is_state_container(call.args[0]):
            return True  # the length of a queue the step fills changes from call to call
        if builtin in NON_DATA_BUILTINS:
            return False
        name = self.call_name(call)
        if name in IMAGE_READS:
            return True    # pixels read in the step: the pipeline's input, whatever the path argument is
        if converted_read(self, call):
            return True    # `torch.as_tensor(port.read(6))`: a device's reading made an array
        if name in TYPE_QUERIES or name in THREAD_HANDOFFS:
            return False   # answers what a value is; a thread's handle
        func = call.func
        children: list = []
        if isinstance(func, ast.Attribute):
            if func.attr in SCALAR_METHODS - {"tolist"} or func.attr in SHAPE_METHODS:
                return False   # `.tolist()`: the Python numbers of pipeline data stay data (LCM101 flags the call)
            children.append(func.value)
        callees = self.resolve_call(call)
        if callees and all(self.is_type_predicate(c) and c.id not in self.facts.answers_by_data for c in callees):
            return False  # `_is_number(v)`: answers what `v` is, not what it holds
        if any(callee.id in self.facts.returns_data for callee in callees):
            return True
        if callees and all(callee.name != "__init__" and self.project.is_library(callee.module) for callee in callees):
            return children  # a followed library function whose returns were analyzed and hold no pipeline data
        return children + list(call.args) + [k.value for k in call.keywords]

    # ------------------------------------------------------------------ shapes
    def passes_shape(self, arg: ast.expr) -> bool:
        """`compute_mask(x.shape)`: a run-time shape of pipeline data handed to a project function, where a
        branch or arithmetic on it is a shape specialization too; not the last dimension (a feature width)."""
        if isinstance(arg, ast.Subscript) and isinstance(arg.slice, ast.UnaryOp) and isinstance(arg.slice.op, ast.USub):
            return False
        return self.is_shape(arg)

    def _filled_field(self, e: ast.Attribute) -> bool:
        """`self.state_cmd.q`: a field of a project object that other code fills (a driver, a thread)."""
        for type_name in self.types_of(e.value):
            module, _, qual = type_name.partition(":")
            cls = self.project.modules[module].classes.get(qual) if module in self.project.modules else None
            if cls is not None and any(e.attr in self.facts.data_attrs.get(c.id, ()) for c in self.project.mro(cls)):
                return True
        return False

    def is_shape(self, e: ast.expr | None) -> bool:
        kept = self.shape_answers
        return _any_leaf(e, self._shape_step) if kept is None else _any_leaf_kept(e, self._shape_step, kept)

    def _shape_step(self, e: ast.expr | None) -> bool | list:
        if e is None:
            return False
        if isinstance(e, ast.Name):
            return e.id in self.env.shape and not holds_callers_setting(self, e)
        if isinstance(e, ast.Attribute):
            return e.attr in SHAPE_ATTRS and e.attr not in RANK_ATTRS and self.is_data(e.value) \
                and not self._allocated(e.value)
        if isinstance(e, ast.Subscript):
            return [e.value]
        if isinstance(e, ast.Call):
            if isinstance(e.func, ast.Attribute) and e.func.attr in SHAPE_METHODS:
                return e.func.attr not in RANK_METHODS and self.is_data(e.func.value) \
                    and not self._allocated(e.func.value)
            builtin = self.builtin(e)
            if builtin == "len":
                if any(self.is_shape(a) for a in e.args):
                    return False   # `len(x.shape)`, `len(size)`: the rank, which a pipeline fixes
                return any(self.is_data(a) and not self.is_state_container(a) and not self.fixed_length_list(a)
                           and not self.counts_entries(a, e) and not self._allocated(a) for a in e.args)
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

    def _allocated(self, e: ast.expr) -> bool:
        """`self.buf` allocated by NumPy with a size fixed at construction and only written in place or by
        arithmetic on itself (a ring buffer's `len(self.data)`), or an attribute only the constructor binds
        (a fitted `self.x_mean` from a dataset): its shape is the same on every call."""
        return is_self_attr(e, self.self_name) and self.cls is not None and (any(
            numpy_attr(self.project, klass, e.attr, allocators_only=True) for klass in self.project.mro(self.cls))
            or self._bound_at_construction(e.attr))

    def _bound_at_construction(self, attr: str) -> bool:
        """Every binding of `self.<attr>` (in the class, its bases and subclasses) is in a constructor and
        builds a value (no list, dict or queue a step could grow), and nothing else rebinds or fills it."""
        family = [*self.project.mro(self.cls), *subclasses(self.project, self.cls)]
        writes = [(method, value) for klass in family for method, value in klass.attr_values.get(attr, ())]
        if not writes or any(method not in CONSTRUCTION or not built_value(value) for method, value in writes):
            return False
        filled = any(attr in self.facts.container_attrs.get(k.id, ()) or attr in self.facts.counter_attrs.get(k.id, ())
                     for k in family)
        return not filled and not attribute_rebound(self.project, self.cls, attr)

    # ------------------------------------------------------------------ numpy-ness
    def is_numpy(self, e: ast.expr | None) -> bool:
        return _any_leaf(e, self._numpy_step)

    def _numpy_step(self, e: ast.expr | None) -> bool | list:
        if e is None:
            return False
        if isinstance(e, ast.Name):
            return self.env.numpy_at(e.id, getattr(e, 'lineno', 0)) and not narrowed_from_numpy(self.fn, e.id, e)
        if isinstance(e, ast.Subscript):
            return [e.value]
        if isinstance(e, ast.Attribute):
            if is_self_attr(e, self.self_name) and self.cls is not None:
                return any(numpy_attr(self.project, klass, e.attr) for klass in self.project.mro(self.cls))
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
