"""What a rule can ask about the code of one reachable function.

`FunctionContext` answers, for any expression inside the function: is it pipeline data
(derived from the entrypoint's inputs or from persistent tensor state), is it a shape of
pipeline data, is it a NumPy array, what type does it hold, what dotted name does a call
resolve to. Answers come from the analysis-wide `Facts` plus a per-function `Env`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from leapp_codemod.analysis.class_state import CONTAINER_MUTATORS
from leapp_codemod.analysis.index import SELF_RETURNING_METHODS, ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.analysis.leapp_support import LeappSupport
from leapp_codemod.analysis.project import Project, questions
from leapp_codemod.analysis.resolve_callables import CallableResolver, returned_values
from leapp_codemod.analysis.resolve_sites import argument_for, sites_of
from leapp_codemod.analysis.resolve_types import annotation_classes, builds_own_class, is_abstract, overrides

if TYPE_CHECKING:  # pragma: no cover
    from leapp_codemod.analysis.access_order import AccessOrder

SHAPE_ATTRS = frozenset({"shape", "ndim"})
META_ATTRS = frozenset({"dtype", "device", "is_cuda", "requires_grad", "training", "layout", "names",
                        "is_leaf", "grad_fn", "itemsize", "nbytes"})
SHAPE_METHODS = frozenset({"size", "dim", "numel", "nelement", "ndimension"})
SCALAR_METHODS = frozenset({"item", "tolist", "__float__", "__int__", "__bool__", "__index__", "element_size",
                            "data_ptr", "is_contiguous", "is_floating_point", "get_device", "keys", "__len__"})
NON_DATA_BUILTINS = frozenset({"float", "int", "bool", "complex", "str", "repr", "len", "isinstance", "issubclass",
                               "type", "id", "hash", "print", "range", "callable", "hasattr", "getattr", "format",
                               "setattr", "super", "iter", "next", "open", "vars", "dir"})
INPLACE_EXCEPTIONS = frozenset({"requires_grad_", "share_memory_", "retain_grad_"})
# Type and mode queries that return Python booleans about a tensor, not about its values.
TYPE_QUERIES = frozenset({"torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.is_storage",
                          "torch.is_grad_enabled", "torch.is_inference_mode_enabled", "torch.is_autocast_enabled",
                          "torch.jit.is_scripting", "torch.jit.is_tracing", "torch.onnx.is_in_onnx_export",
                          "torch.compiler.is_compiling", "torch.numel"})
CONTAINER_MODULES = ("torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict")
NDARRAY_RESULT_METHODS = frozenset({"astype", "reshape", "copy", "transpose", "squeeze", "flatten", "ravel", "clip",
                                    "swapaxes", "sum", "mean", "round", "cumsum", "min", "max"})
TENSOR_COPY_METHODS = frozenset({"clone", "detach", "copy", "to", "float", "double", "half", "contiguous",
                                 "cpu", "cuda", "numpy", "astype"})


@dataclass
class Env:
    """Per-function facts about local names (flow-insensitive, grows monotonically)."""

    data: set[str] = field(default_factory=set)
    shape: set[str] = field(default_factory=set)
    numpy: set[str] = field(default_factory=set)
    types: dict[str, set[str]] = field(default_factory=dict)
    # name -> {line of an assignment: whether it bound a NumPy array}; numpy-ness follows source order
    numpy_bindings: dict[str, dict[int, bool]] = field(default_factory=dict)

    def size(self) -> int:
        return len(self.data) + len(self.shape) + len(self.numpy) + sum(len(v) for v in self.types.values())

    def numpy_at(self, name: str, line: int) -> bool:
        """Is `name` a NumPy array where it is read at `line`? The latest assignment above decides;
        with none above (parameters, loop-carried names) any NumPy binding counts."""
        if name not in self.numpy:
            return False
        bindings = self.numpy_bindings.get(name)
        if not bindings:
            return True
        above = [ln for ln in bindings if ln < line]
        return bindings[max(above)] if above else True


@dataclass
class Facts:
    """Analysis-wide facts, grown to a fixpoint over the reachable functions."""

    data_params: dict[str, set[str]] = field(default_factory=dict)
    numpy_params: dict[str, set[str]] = field(default_factory=dict)
    param_types: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    returns_data: set[str] = field(default_factory=set)
    returns_numpy: set[str] = field(default_factory=set)
    data_attrs: dict[str, set[str]] = field(default_factory=dict)      # class id -> attrs holding pipeline data
    # class id -> attr -> {(function id, line)} where reachable code reads self.<attr>
    attr_reads: dict[str, dict[str, set[tuple[str, int]]]] = field(default_factory=dict)
    data_globals: dict[str, set[str]] = field(default_factory=dict)    # module -> tensor-valued module globals
    call_bindings: dict[str, set[tuple[str, str]]] = field(default_factory=dict)  # fid -> {(module, name)}
    callers: dict[str, set[str]] = field(default_factory=dict)
    # class id -> Python scalars the step updates from their own value (`self.count += 1`, a phase clock)
    counter_attrs: dict[str, set[str]] = field(default_factory=dict)
    # class id -> lists/deques/dicts on self that the step fills with pipeline data
    container_attrs: dict[str, set[str]] = field(default_factory=dict)
    # function id -> parameter -> constant values its callers pass (UNKNOWN when one passes something else)
    param_constants: dict[str, dict[str, set]] = field(default_factory=dict)
    # library function id -> application call sites that reach it: (caller id, line, col, end line, end col)
    library_origins: dict[str, set[tuple]] = field(default_factory=dict)
    receivers: dict[str, set[str]] = field(default_factory=dict)   # method id -> concrete receiver class ids
    access: AccessOrder | None = None   # entry mode: the order one call reads and writes attributes of self

    def fingerprint(self) -> tuple:
        return (
            sum(len(v) for v in self.data_params.values()), sum(len(v) for v in self.numpy_params.values()),
            sum(len(s) for d in self.param_types.values() for s in d.values()),
            len(self.returns_data), len(self.returns_numpy),
            sum(len(v) for v in self.data_attrs.values()),
            sum(len(v) for v in self.counter_attrs.values()), sum(len(v) for v in self.container_attrs.values()),
            sum(len(s) for d in self.attr_reads.values() for s in d.values()),
            sum(len(v) for v in self.library_origins.values()), sum(len(v) for v in self.receivers.values()),
            sum(len(s) for d in self.param_constants.values() for s in d.values()),
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


def is_self_attr(expr: ast.expr, self_name: str | None) -> bool:
    return (self_name is not None and isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
            and expr.value.id == self_name)


def self_name_of(fn: FunctionInfo) -> str | None:
    if not fn.is_method:
        return None
    params = fn.positional_params
    return params[0] if params else None


def _is_training(expr: ast.expr, self_name: str | None) -> bool:
    return is_self_attr(expr, self_name) and expr.attr == "training"


def _is_not_training(expr: ast.expr, self_name: str | None) -> bool:
    return isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not) and _is_training(expr.operand, self_name)


def training_only_block(node: ast.If | ast.IfExp, self_name: str | None) -> str | None:
    """'body' when the body runs only in training (`if self.training:`, `if x > 0 and self.training:`),
    'orelse' when the else-branch does (`if not self.training:`, `if not self.training or x:`)."""
    test = node.test
    if _is_training(test, self_name):
        return "body"
    if _is_not_training(test, self_name):
        return "orelse"
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
            and any(_is_training(v, self_name) for v in test.values):
        return "body"
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) \
            and any(_is_not_training(v, self_name) for v in test.values):
        return "orelse"
    return None


UNKNOWN = ("<not a constant>",)   # a parameter value no call site fixes


def constant_flag_block(node: ast.If, fn: FunctionInfo, constants: dict[str, set] | None) -> str | None:
    """'body'/'orelse' when `if flag:` / `if not flag:` tests a parameter that every call passes as
    constants of one truth value (`predict(obs, deterministic=True)`): that block never runs."""
    if not constants:
        return None
    test, negate = node.test, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negate = test.operand, True
    if not isinstance(test, ast.Name):
        return None
    values = constants.get(test.id)
    if not values or UNKNOWN in values or len({bool(v) for v in values}) != 1:
        return None
    if any(isinstance(n, ast.Name) and n.id == test.id and isinstance(n.ctx, ast.Store) for n in ast.walk(fn.node)):
        return None  # rebound in the body
    taken = bool(next(iter(values))) != negate
    return "orelse" if taken else "body"


def iter_nodes(fn: FunctionInfo, constants: dict[str, set] | None = None):
    """Every node of the function body except training-only blocks (export runs in eval mode) and
    code that constant flag parameters rule out (`constants`: parameter -> values callers pass):
    the block not taken, and what follows a taken block that always returns."""
    key = tuple(sorted((name, frozenset(values)) for name, values in constants.items())) if constants else None
    nodes = fn.walks.get(key)
    if nodes is None:
        nodes = fn.walks[key] = tuple(_walk_live(fn, constants))
    return iter(nodes)


def _walk_live(fn: FunctionInfo, constants: dict[str, set] | None):
    self_name = self_name_of(fn)
    stack: list[ast.AST] = list(reversed(live_statements(fn.node.body, fn, constants)))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If):
            skipped = training_only_block(node, self_name) or constant_flag_block(node, fn, constants)
            children = [node.test] + ([] if skipped == "body" else live_statements(node.body, fn, constants)) \
                + ([] if skipped == "orelse" else live_statements(node.orelse, fn, constants))
        elif isinstance(node, ast.IfExp):
            skipped = training_only_block(node, self_name)
            children = [node.test] + ([] if skipped == "body" else [node.body]) + ([] if skipped == "orelse" else [node.orelse])
        else:
            children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))


def live_statements(block: list[ast.stmt], fn: FunctionInfo, constants: dict[str, set] | None) -> list[ast.stmt]:
    """`block` up to an `if flag: ... return` whose flag is constant and whose taken branch returns."""
    if not constants:
        return block
    for i, stmt in enumerate(block):
        if isinstance(stmt, ast.If):
            skipped = constant_flag_block(stmt, fn, constants)
            taken = stmt.orelse if skipped == "body" else stmt.body if skipped == "orelse" else None
            if taken and isinstance(taken[-1], (ast.Return, ast.Raise)):
                return block[: i + 1]
    return block


def _answered_once(method):
    """Keep `method`'s answers for the current outermost question (see `project.Questions`)."""
    kind = method.__name__

    def asked(self, *args):
        q = questions(self.project)
        if not q.frames:
            q.answers.clear()
        key = (kind, self._asker(), *(a if isinstance(a, str) else id(a) for a in args))
        kept = q.kept(key)
        if kept is not None:
            return kept.copy()
        outer_reach, q.reach = q.reach, q.NEVER
        q.serial += 1
        q.frames.append(q.serial)
        try:
            answer = method(self, *args)
        finally:
            q.frames.pop()
            reach, q.reach = q.reach, min(outer_reach, q.reach)
        q.keep(key, answer, reach, (self, args))
        return answer.copy()

    asked.__name__, asked.__doc__ = method.__name__, method.__doc__
    return asked


@dataclass
class FunctionContext:
    fn: FunctionInfo
    module: ModuleIndex
    project: Project
    facts: Facts
    support: LeappSupport
    env: Env = field(default_factory=Env)
    # line -> (start, end) positions of the statements of this function that do nothing but I/O,
    # computed once when a rule first asks (see rules.io_call.only_logged)
    io_statements: dict[int, list[tuple[tuple[int, int], tuple[int, int]]]] | None = None

    # ------------------------------------------------------------------ basics
    def _asker(self):
        """Who asks, for kept answers and cycle guards: a context with local facts is itself; one with
        none yet (`for_function` makes a fresh one per call) answers like any other for its function."""
        env = self.env
        return id(self) if env.data or env.shape or env.numpy or env.types else self.fn.id

    @property
    def self_name(self) -> str | None:
        return self_name_of(self.fn)

    @property
    def cls(self) -> ClassInfo | None:
        return self.module.classes.get(self.fn.class_name) if self.fn.class_name else None

    def for_function(self, fn: FunctionInfo) -> FunctionContext:
        """A context for another function sharing the analysis facts (its local facts left empty)."""
        if fn is self.fn:
            return self
        return FunctionContext(fn, self.project.modules[fn.module], self.project, self.facts, self.support)

    def qualify(self, expr: ast.expr) -> str | None:
        name = self.project.qualify(expr, self.module)
        return self.project.external_name(name) if name else None

    def call_name(self, call: ast.Call) -> str | None:
        """Dotted name of the called function, e.g. 'numpy.linalg.norm' or 'scipy.special.expit'."""
        name = self.qualify(call.func)
        if name is None or self._is_local(call.func):
            return None
        return name

    def _is_local(self, expr: ast.expr) -> bool:
        root = expr
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and (root.id in self.env.types or root.id in self.env.data
                                               or root.id in self.fn.params or root.id in self.env.numpy)

    def builtin(self, call: ast.Call) -> str | None:
        """The builtin a call names (`float`, `print`, ...) unless the name is shadowed."""
        if isinstance(call.func, ast.Name):
            name = call.func.id
            if (name not in self.module.imports and name not in self.module.functions and name not in self.module.classes
                    and name not in self.module.globals and name not in self.fn.params and name not in self.env.types):
                return name
        return None

    def is_data_global(self, name: str) -> bool:
        """A tensor-valued module global, not shadowed by a parameter or a local assignment."""
        return (name in self.facts.data_globals.get(self.module.name, ()) and name not in self.fn.params
                and name not in self.env.types and name not in self.env.numpy and name not in self.env.shape)

    def _class_fact(self, table: dict[str, set[str]], attr: str) -> bool:
        return self.cls is not None and any(attr in table.get(c.id, ()) for c in self.project.mro(self.cls))

    def holds_tensor(self, attr: str) -> bool:
        """Can `self.<attr>` be declared as LEAPP state tensors? Not a Python counter, a list/deque the step
        fills, or an attribute built as a dict/list literal (those stay findings for the user to restructure)."""
        if self._class_fact(self.facts.counter_attrs, attr) or self._class_fact(self.facts.container_attrs, attr):
            return False
        literals = (ast.Dict, ast.List, ast.Tuple, ast.DictComp, ast.ListComp)
        return not any(isinstance(value, literals) for klass in self.project.mro(self.cls)
                       for _, value in klass.attr_values.get(attr, ()))

    def fixed_length_list(self, e: ast.expr) -> bool:
        """A local list/dict the function builds from an empty literal, never filled in a loop over pipeline
        data: its length is set by the code path (configuration), not by the data (`h = []; h.append(x)`)."""
        if not isinstance(e, ast.Name):
            return False
        bindings = [n.value for n in ast.walk(self.fn.node) if isinstance(n, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == e.id for t in n.targets)]
        if not bindings or not all(_empty_container(v) for v in bindings):
            return False
        for loop in ast.walk(self.fn.node):
            if isinstance(loop, (ast.For, ast.While)) and self.is_data(loop.iter if isinstance(loop, ast.For) else loop.test):
                if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in CONTAINER_MUTATORS
                       and isinstance(n.func.value, ast.Name) and n.func.value.id == e.id for n in ast.walk(loop)):
                    return False
        return True

    def is_loop_carried(self, name: str) -> bool:
        return name in self.fn.carried

    def is_carried_state(self, name: str) -> bool:
        """Does the next iteration read what this one left in the loop-carried `name`?"""
        return name in self.fn.carried and self._carried(ast.Name(id=name, ctx=ast.Load()))

    def is_state_container(self, expr: ast.expr) -> bool:
        """`self.queue` when the step fills it with pipeline data (a history list, a deque of frames), or a
        container the driver loop carries into the next iteration."""
        if isinstance(expr, ast.Name):
            return expr.id in self.fn.carried
        return is_self_attr(expr, self.self_name) and self._class_fact(self.facts.container_attrs, expr.attr)

    def self_attr_is_data(self, attr: str) -> bool:
        cls = self.cls
        if cls is None:
            return False
        return any(attr in self.facts.data_attrs.get(c.id, ()) for c in self.project.mro(cls))

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

    # ------------------------------------------------------------------ types
    def types_of(self, e: ast.expr | None) -> set[str]:
        """Qualified types an expression may hold: project classes as 'module:Class', else a dotted callee."""
        if e is None:
            return set()
        if isinstance(e, ast.Name):
            if e.id in self.env.types:
                return self.env.types[e.id]
            if e.id in self.module.globals:
                return self.global_types(self.module, e.id)
            return set()
        return self._compound_types(e)

    @_answered_once
    def _compound_types(self, e: ast.expr) -> set[str]:
        if isinstance(e, ast.Attribute):
            if is_self_attr(e, self.self_name) and self.cls is not None:
                return set().union(*(self.attr_types(c, e.attr) for c in self.receiver_classes()))
            out: set[str] = set()
            for type_name in self.types_of(e.value):     # `self.alg.policy`: an attribute of a typed object
                cls = self._class_for_type(type_name)
                if cls is not None:
                    out |= self.attr_types(cls, e.attr)
            return out
        if isinstance(e, ast.Call):
            out = self.call_result_types(e, self.module)
            if not any(":" in t for t in out) and isinstance(e.func, ast.Attribute):
                for callee in self.resolve_call(e):
                    if callee.name != "__init__":
                        out |= self.return_types(callee)
                if not any(":" in t for t in out) and not isinstance(e.func.value, ast.Name):
                    out |= self._built_by_held_class(e.func)
            return out
        return set()

    def _builds_own_class(self, fn: FunctionInfo) -> bool:
        key = ("builds_own_class", fn.id)
        if key not in self.project.memo:
            self.project.memo[key] = builds_own_class(fn, self.project.modules[fn.module])
        return self.project.memo[key]

    def _built_by_held_class(self, func: ast.Attribute) -> set[str]:
        """`ALGOS[name].load(path)`: the classes a container holds, when the classmethod builds its class."""
        out = set()
        for class_id in CallableResolver(self).classes(func.value):
            cls = self._class_for_type(class_id)
            method = self.project.find_method(cls, func.attr) if cls else None
            if method is not None and self._builds_own_class(method):
                out.add(class_id)
        return out

    def call_result_types(self, call: ast.Call, module: ModuleIndex) -> set[str]:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in SELF_RETURNING_METHODS and isinstance(func.value, ast.Call):
            return self.call_result_types(func.value, module)
        if isinstance(func, ast.Subscript):  # a parametrized generic: `Window[float](8)` builds a Window
            func = func.value
        name = self.project.qualify(func, module)
        if name is None:
            return set()
        target = self.project.lookup(name)
        if isinstance(target, ClassInfo):
            return {target.id}
        if target is not None and isinstance(func, ast.Attribute) and self._builds_own_class(target):
            owner = self.project.class_of(self.project.qualify(func.value, module))
            if owner is not None:
                return {owner.id}
        if target is not None:
            return self.return_types(target)
        return {self.project.external_name(name)}

    def return_types(self, fn: FunctionInfo) -> set[str]:
        q, guard = questions(self.project), (self._asker(), "returns", fn.id)
        if guard in q.guards:
            q.cut(q.guards[guard])
            return set()
        q.guards[guard] = q.depth
        try:
            module = self.project.modules[fn.module]
            declared = annotation_classes(self.project, fn.node.returns, module)
            if declared:
                return declared
            out: set[str] = set()
            for value in returned_values(self.project, fn):
                if isinstance(value, ast.Call):
                    out |= self.call_result_types(value, module)
            return out
        finally:
            del q.guards[guard]

    @_answered_once
    def attr_types(self, cls: ClassInfo, attr: str) -> set[str]:
        q, guard = questions(self.project), (self._asker(), "attr", cls.id, attr)
        if guard in q.guards:
            q.cut(q.guards[guard])
            return set()
        q.guards[guard] = q.depth
        try:
            out: set[str] = set()
            declared: set[str] = set()
            for klass in self.project.mro(cls):
                module = self.project.modules[klass.module]
                for method, value in klass.attr_values.get(attr, ()):
                    if isinstance(value, ast.Call):
                        built = self.call_result_types(value, module)
                        if not any(":" in t for t in built) and method in klass.methods:
                            built = CallableResolver(self.for_function(klass.methods[method])).classes(value.func) \
                                or built  # keep a library type (`lcm.LCM`) when no project class builds it
                        out |= built
                    elif isinstance(value, ast.Name) and method in klass.methods:
                        out |= self.param_value_types(klass.methods[method], value.id)
                if attr in klass.class_attrs and isinstance(klass.class_attrs[attr], ast.Call):
                    out |= self.call_result_types(klass.class_attrs[attr], module)
                if not declared and attr in klass.attr_annotations:
                    declared = annotation_classes(self.project, klass.attr_annotations[attr], module)
            return out | declared
        finally:
            del q.guards[guard]

    def param_value_types(self, fn: FunctionInfo, param: str) -> set[str]:
        """What a method parameter may hold: its annotation, what reachable callers pass and, for
        `__init__`, what every instantiation site in the project passes."""
        arg = next((a for a in (*fn.node.args.posonlyargs, *fn.node.args.args, *fn.node.args.kwonlyargs)
                    if a.arg == param), None)
        if arg is None:
            return set()
        out = annotation_classes(self.project, arg.annotation, self.project.modules[fn.module])
        out |= self.facts.param_types.get(fn.id, {}).get(param, set())
        if fn.name == "__init__" and fn.class_name is not None:
            cls = self.project.modules[fn.module].classes.get(fn.class_name)
            for site in sites_of(self.project, cls) if cls is not None else ():
                value = argument_for(fn, site.call, param)
                if value is not None:
                    out |= self.expr_types_in_scope(value, site.module, site.scope)
        return out

    def expr_types_in_scope(self, e: ast.expr, module: ModuleIndex, scope: dict, depth: int = 0) -> set[str]:
        if isinstance(e, ast.Call):
            return self.call_result_types(e, module)
        if isinstance(e, ast.Name) and depth < 4:
            if e.id in scope:
                return set().union(*(self.expr_types_in_scope(v, module, scope, depth + 1) for v in scope[e.id]))
            return self.global_types(module, e.id)
        return set()

    def receiver_classes(self) -> list[ClassInfo]:
        """The concrete classes this method runs on, when the callers tell; else its own class."""
        known = self.facts.receivers.get(self.fn.id, set())
        if not known or "?" in known:
            return [self.cls] if self.cls is not None else []
        return [c for c in (self._class_for_type(t) for t in sorted(known)) if c is not None] or [self.cls]

    def dispatch(self, name: str) -> list[FunctionInfo]:
        """What `self.<name>(...)` runs: the method of each concrete receiver class, plus the overrides
        of subclasses when the receiver is unknown or its method is abstract."""
        known = self.facts.receivers.get(self.fn.id, set())
        exact = bool(known) and "?" not in known
        found: list[FunctionInfo] = []
        for klass in self.receiver_classes():
            method = self.project.find_method(klass, name)
            if method is not None and method not in found:
                found.append(method)
            if not exact or method is None or is_abstract(method):
                found += [m for m in overrides(self.project, klass, name) if m not in found]
        return found

    def element_types(self, e: ast.expr | None) -> set[str]:
        """Types of the modules inside an nn.ModuleList / nn.Sequential / nn.ModuleDict expression."""
        values: list[tuple[ast.expr, ModuleIndex]] = []
        if is_self_attr(e, self.self_name) and self.cls is not None:
            for klass in self.project.mro(self.cls):
                module = self.project.modules[klass.module]
                values += [(v, module) for _, v in klass.attr_values.get(e.attr, ())]
        elif isinstance(e, ast.Call):
            values.append((e, self.module))
        out: set[str] = set()
        for value, module in values:
            if not isinstance(value, ast.Call):
                continue
            name = self.project.qualify(value.func, module)
            if not name or self.project.external_name(name) not in CONTAINER_MODULES:
                continue
            for arg in value.args:
                items = arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg.elt] if isinstance(
                    arg, (ast.ListComp, ast.GeneratorExp)) else [arg]
                for item in items:
                    if isinstance(item, ast.Call):
                        out |= self.call_result_types(item, module)
        return {t for t in out if ":" in t}

    def global_types(self, module: ModuleIndex, name: str) -> set[str]:
        value = module.globals.get(name)
        return self.call_result_types(value, module) if isinstance(value, ast.Call) else set()

    # ------------------------------------------------------------------ calls
    @_answered_once
    def resolve_call(self, call: ast.Call) -> list[FunctionInfo]:
        """Project functions a call may run (empty for library calls)."""
        func = call.func
        project = self.project
        if isinstance(func, ast.Attribute):
            receiver = func.value
            if (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super"
                    and self.cls is not None):
                for klass in project.mro(self.cls)[1:]:
                    if func.attr in klass.methods:
                        return [klass.methods[func.attr]]
                return []
            if isinstance(receiver, ast.Name) and receiver.id == self.self_name and self.cls is not None:
                methods = self.dispatch(func.attr)
                if methods:
                    return methods
                if func.attr in self.cls.class_attrs:
                    target = project.lookup(project.qualify(self.cls.class_attrs[func.attr], self.module) or "")
                    if isinstance(target, FunctionInfo):
                        return [target]
            found = []
            for type_name in self.types_of(receiver):
                cls = self._class_for_type(type_name)
                method = project.find_method(cls, func.attr) if cls else None
                if method is not None:
                    found.append(method)
                if method is not None and is_abstract(method):  # a declared base type: an override runs
                    found += [m for m in overrides(project, cls, func.attr) if m not in found]
            if found:
                return found
        else:
            for type_name in self.types_of(func) if isinstance(func, ast.Name) and func.id in self.env.types else ():
                cls = self._class_for_type(type_name)
                target = project.call_target(cls) if cls else None
                if target is not None:
                    return [target]
        if isinstance(func, ast.Attribute) and is_self_attr(func, self.self_name) and self.cls is not None:
            out = []
            attr_types = set().union(*(self.attr_types(c, func.attr) for c in self.receiver_classes()))
            for type_name in attr_types | self.element_types(func):
                cls = self._class_for_type(type_name)
                target = project.call_target(cls) if cls else None
                if target is not None:
                    out.append(target)
            if out:
                return out
        resolver = CallableResolver(self)
        if resolver.applies(func):
            dynamic = resolver.callees(func)
            if dynamic:
                return dynamic
        if self._is_local(func):
            return []
        name = project.qualify(func, self.module)
        target = project.lookup(name) if name else None
        if isinstance(target, ClassInfo):
            init = project.find_method(target, "__init__")
            return [init] if init else []
        return [target] if isinstance(target, FunctionInfo) else []

    def _class_for_type(self, type_name: str) -> ClassInfo | None:
        if ":" not in type_name:
            return None
        module, _, qual = type_name.partition(":")
        mod = self.project.modules.get(module)
        return mod.classes.get(qual) if mod else None

    # ------------------------------------------------------------------ state writes
    def _is_state_root(self, root: ast.expr) -> str | None:
        if is_self_attr(root, self.self_name) and self.self_attr_is_data(root.attr):
            return root.attr
        if isinstance(root, ast.Name) and (self.is_data_global(root.id) or root.id in self.fn.carried):
            return root.id
        return None

    def state_owner(self, attr: str) -> str:
        """'module:Class' for attributes of self, 'module' for module globals and loop-carried names."""
        if self.cls is not None and attr not in self.facts.data_globals.get(self.module.name, ()) \
                and attr not in self.fn.carried:
            return self.cls.id
        return self.module.name

    def state_write(self, node: ast.AST) -> tuple[str, str] | None:
        """(attr, kind) of the first persistent state `node` writes (see `state_writes`)."""
        writes = self.state_writes(node)
        return writes[0] if writes else None

    def state_writes(self, node: ast.AST) -> list[tuple[str, str]]:
        """(attr, kind) for each piece of persistent state (of `self` or a module global) `node` writes:
        kind 'inplace' (`x.copy_()`, `x += ...`, `x[i] = ...`, `queue.append(...)`) or 'reassigned'."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return self._call_state_writes(node)
        if isinstance(node, ast.AugAssign):
            target = node.target
            while isinstance(target, ast.Subscript):
                target = target.value
            attr = self._is_state_root(target)
            if attr and self._is_counter(target) and not self._read_elsewhere(attr, {node.lineno}):
                return []  # a counter nothing else reads
            return [(attr, "inplace")] if attr and self._carried(target) else []
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out: list[tuple[str, str]] = []
            for target in targets:
                for elt, value in _target_pairs(target, node.value):
                    write = self._assign_state_write(elt, value, node.lineno)
                    if write and write not in out:
                        out.append(write)
            return out
        return []

    def _call_state_writes(self, node: ast.Call) -> list[tuple[str, str]]:
        method = node.func.attr
        root = node.func.value
        if method.endswith("_") and not method.endswith("__") and method not in INPLACE_EXCEPTIONS:
            while isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute) and root.func.attr.endswith("_"):
                root = root.func.value
            while isinstance(root, ast.Subscript):
                root = root.value
            attr = self._is_state_root(root)
            return [(attr, "inplace")] if attr and self._carried(root) else []
        if method in CONTAINER_MUTATORS and self.is_state_container(root) and self._carried(root):
            return [(root.id if isinstance(root, ast.Name) else root.attr, "inplace")]
        return []

    def _assign_state_write(self, target: ast.expr, value: ast.expr, line: int) -> tuple[str, str] | None:
        if isinstance(target, ast.Subscript):
            root = target
            while isinstance(root, ast.Subscript):
                root = root.value
            attr = self._is_state_root(root)
            return (attr, "inplace") if attr and self._carried(root) else None
        if isinstance(target, ast.Name) and target.id in self.fn.carried:
            return (target.id, "reassigned") if self.is_data(value) and self._carried(target) else None
        if not is_self_attr(target, self.self_name) or self.cls is None:
            return None
        if not self.is_data(value) and not self._fed_back(value, target.attr):
            return None
        if _same_value(value, target.attr, self.self_name):
            return None  # `self.w = self.w.to(x.device)`: the same tensor, moved
        if self._is_counter(target):
            updates = {line}
            return (target.attr, "reassigned") if self._read_elsewhere(target.attr, updates) else None
        return (target.attr, "reassigned") if self._read_across_calls(target.attr, line) else None

    def _fed_back(self, value: ast.expr, attr: str) -> bool:
        """`self.states = model.predict(obs, state=self.states)`: a call on pipeline data that takes the
        attribute's previous value and returns its next one is recurrent state, whatever the callee."""
        if not isinstance(value, ast.Call) or not self.args_data(value):
            return False
        args = (*value.args, *(k.value for k in value.keywords))
        return any(is_self_attr(a, self.self_name) and a.attr == attr for a in args)

    def _carried(self, root: ast.expr) -> bool:
        """Can a read of this state root see the value the previous call left? Without a known order
        (lint mode, module globals) every write counts; with one, only reads no always-running write
        precedes (see `access_order`)."""
        order = self.facts.access
        if order is not None and isinstance(root, ast.Name) and root.id in self.fn.carried:
            return bool(order.uncovered.get((self.fn.id, root.id)))
        if order is None or self.cls is None or not is_self_attr(root, self.self_name):
            return True
        attr = root.attr
        for klass in self.project.mro(self.cls):
            if any(not self._decides_only_io(fid, line) for fid, line in order.uncovered.get((klass.id, attr), ())):
                return True
            if any(fid not in order.visited and not self._decides_only_io(fid, line)
                   for fid, line in self.facts.attr_reads.get(klass.id, {}).get(attr, ())):
                return True
        return False

    def _is_counter(self, target: ast.expr) -> bool:
        return is_self_attr(target, self.self_name) and self._class_fact(self.facts.counter_attrs, target.attr)

    def _read_elsewhere(self, attr: str, lines: set[int]) -> bool:
        """Is `self.<attr>` read anywhere in the pipeline other than on these lines of this function,
        and other than for I/O (`print(self.count)`, `if self.count % 50 == 0: print(...)`)?"""
        for klass in self.project.mro(self.cls):
            for fid, line in self.facts.attr_reads.get(klass.id, {}).get(attr, ()):
                if (fid != self.fn.id or line not in lines) and not self._decides_only_io(fid, line):
                    return True
        return False

    def _decides_only_io(self, fid: str, line: int) -> bool:
        from leapp_codemod.rules.io_call import only_io  # the rule owns what counts as I/O
        module, _, qualname = fid.partition(":")
        fn = self.project.modules[module].functions.get(qualname) if module in self.project.modules else None
        if fn is None:
            return False
        reader = self.for_function(fn)
        for node in ast.walk(fn.node):
            if node.__class__ in (ast.If, ast.Expr) and node.lineno <= line <= (node.end_lineno or line):
                if only_io([node] if isinstance(node, ast.Expr) else node.body + node.orelse, reader):
                    return True
        return False

    def _read_across_calls(self, attr: str, write_line: int) -> bool:
        """Is `self.<attr>` read before this write can have set it: earlier in this function, or in
        another reachable function that is not only called from here after the write (a scratch
        attribute written at the top of a step and read by its helpers is no state)?"""
        unconditional = self._top_level_line(write_line)
        for klass in self.project.mro(self.cls):
            for fid, line in self.facts.attr_reads.get(klass.id, {}).get(attr, ()):
                order = self.facts.access
                if order is not None and fid in order.visited:  # the order of this call is known
                    if (fid, line) in order.uncovered.get((klass.id, attr), ()):
                        return True
                    continue
                if fid == self.fn.id:
                    if line <= write_line:
                        return True
                elif not (unconditional and self._only_called_after(fid, write_line)):
                    return True
        return False

    def _top_level_line(self, line: int) -> bool:
        return any(stmt.lineno == line for stmt in self.fn.node.body)

    def _only_called_after(self, fid: str, line: int) -> bool:
        if self.facts.callers.get(fid, set()) != {self.fn.id}:
            return False
        call_lines = [node.lineno for node in ast.walk(self.fn.node) if isinstance(node, ast.Call)
                      and any(c.id == fid for c in self.resolve_call(node))]
        return bool(call_lines) and min(call_lines) > line


def _empty_container(value: ast.expr) -> bool:
    """`[]`, `()`, `{}`, `list()`, `dict()`."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return not value.elts
    if isinstance(value, ast.Dict):
        return not value.keys
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "dict") \
        and not value.args and not value.keywords


def _target_pairs(target: ast.expr, value: ast.expr):
    """(target, value) for each name a target binds: `a, self.h = x, y` pairs elementwise;
    `out, self.h = rnn(x, self.h)` gives each element the whole value."""
    if isinstance(target, (ast.Tuple, ast.List)):
        paired = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
            and not any(isinstance(t, ast.Starred) for t in target.elts)
        for i, elt in enumerate(target.elts):
            elt = elt.value if isinstance(elt, ast.Starred) else elt
            yield from _target_pairs(elt, value.elts[i] if paired else value)
    else:
        yield target, value


_SAME_VALUE_METHODS = frozenset({"to", "float", "double", "half", "cpu", "cuda", "contiguous", "detach", "type"})


def _same_value(value: ast.expr, attr: str, self_name: str | None) -> bool:
    """`self.x`, `self.x.to(device)`, `self.x.float().contiguous()`: the attribute's own value."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in _SAME_VALUE_METHODS:
        value = value.func.value
    return is_self_attr(value, self_name) and value.attr == attr
