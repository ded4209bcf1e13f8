"""What a rule can ask about the code of one reachable function.

`FunctionContext` answers, for any expression inside the function: is it pipeline data
(derived from the entrypoint's inputs or from persistent tensor state), is it a shape of
pipeline data, is it a NumPy array, what type does it hold, what dotted name does a call
resolve to. Answers come from the analysis-wide `Facts` plus a per-function `Env`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.index import SELF_RETURNING_METHODS, ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.analysis.leapp_support import LeappSupport
from leapp_codemod.analysis.project import Project
from leapp_codemod.analysis.resolve_callables import CallableResolver
from leapp_codemod.analysis.resolve_sites import argument_for, sites_of
from leapp_codemod.analysis.resolve_types import annotation_classes, builds_own_class, is_abstract, overrides

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
TENSOR_COPY_METHODS = frozenset({"clone", "detach", "copy", "to", "float", "double", "half", "contiguous",
                                 "cpu", "cuda", "numpy", "astype"})


@dataclass
class Env:
    """Per-function facts about local names (flow-insensitive, grows monotonically)."""

    data: set[str] = field(default_factory=set)
    shape: set[str] = field(default_factory=set)
    numpy: set[str] = field(default_factory=set)
    types: dict[str, set[str]] = field(default_factory=dict)

    def size(self) -> int:
        return len(self.data) + len(self.shape) + len(self.numpy) + sum(len(v) for v in self.types.values())


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
    # library function id -> application call sites that reach it: (caller id, line, col, end line, end col)
    library_origins: dict[str, set[tuple]] = field(default_factory=dict)
    receivers: dict[str, set[str]] = field(default_factory=dict)   # method id -> concrete receiver class ids

    def fingerprint(self) -> tuple:
        return (
            sum(len(v) for v in self.data_params.values()), sum(len(v) for v in self.numpy_params.values()),
            sum(len(s) for d in self.param_types.values() for s in d.values()),
            len(self.returns_data), len(self.returns_numpy),
            sum(len(v) for v in self.data_attrs.values()),
            sum(len(v) for v in self.library_origins.values()), sum(len(v) for v in self.receivers.values()),
        )


def _flat_targets(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [t for elt in target.elts for t in _flat_targets(elt.value if isinstance(elt, ast.Starred) else elt)]
    return [target]


def is_self_attr(expr: ast.expr, self_name: str | None) -> bool:
    return (self_name is not None and isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
            and expr.value.id == self_name)


def self_name_of(fn: FunctionInfo) -> str | None:
    if not fn.is_method:
        return None
    params = fn.positional_params
    return params[0] if params else None


def training_only_block(node: ast.If, self_name: str | None) -> str | None:
    """'body' when `if self.training:` (training-only), 'orelse' when `if not self.training:`."""
    test = node.test
    if is_self_attr(test, self_name) and test.attr == "training":
        return "body"
    if (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and is_self_attr(test.operand, self_name)
            and test.operand.attr == "training"):
        return "orelse"
    return None


def iter_nodes(fn: FunctionInfo):
    """Every node of the function body except training-only blocks (export runs in eval mode)."""
    self_name = self_name_of(fn)
    stack: list[ast.AST] = list(reversed(fn.node.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If):
            skipped = training_only_block(node, self_name)
            children = [node.test] + ([] if skipped == "body" else node.body) + ([] if skipped == "orelse" else node.orelse)
        else:
            children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))


@dataclass
class FunctionContext:
    fn: FunctionInfo
    module: ModuleIndex
    project: Project
    facts: Facts
    support: LeappSupport
    env: Env = field(default_factory=Env)
    _type_guard: set = field(default_factory=set)

    # ------------------------------------------------------------------ basics
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

    def self_attr_is_data(self, attr: str) -> bool:
        cls = self.cls
        if cls is None:
            return False
        return any(attr in self.facts.data_attrs.get(c.id, ()) for c in self.project.mro(cls))

    # ------------------------------------------------------------------ pipeline data
    def is_data(self, e: ast.expr | None) -> bool:
        if e is None:
            return False
        if isinstance(e, ast.Name):
            return e.id in self.env.data or self.is_data_global(e.id)
        if isinstance(e, ast.Attribute):
            if e.attr in SHAPE_ATTRS or e.attr in META_ATTRS:
                return False
            if is_self_attr(e, self.self_name):
                return self.self_attr_is_data(e.attr)
            return self.is_data(e.value)
        if isinstance(e, ast.Subscript):
            return self.is_data(e.value)
        if isinstance(e, ast.Call):
            return self._call_is_data(e)
        if isinstance(e, ast.BinOp):
            return self.is_data(e.left) or self.is_data(e.right)
        if isinstance(e, ast.UnaryOp):
            return self.is_data(e.operand)
        if isinstance(e, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in e.ops):
                return False
            return any(self.is_data(x) for x in (e.left, *e.comparators))
        if isinstance(e, ast.BoolOp):
            return any(self.is_data(v) for v in e.values)
        if isinstance(e, ast.IfExp):
            return self.is_data(e.body) or self.is_data(e.orelse)
        if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
            return any(self.is_data(x) for x in e.elts)
        if isinstance(e, ast.Dict):
            return any(self.is_data(v) for v in e.values)
        if isinstance(e, ast.Starred):
            return self.is_data(e.value)
        if isinstance(e, ast.NamedExpr):
            return self.is_data(e.value)
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.is_data(e.elt) or any(self.is_data(g.iter) for g in e.generators)
        if isinstance(e, ast.DictComp):
            return self.is_data(e.value) or any(self.is_data(g.iter) for g in e.generators)
        return False

    def args_data(self, call: ast.Call) -> bool:
        return any(self.is_data(a) for a in call.args) or any(self.is_data(k.value) for k in call.keywords)

    def _call_is_data(self, call: ast.Call) -> bool:
        builtin = self.builtin(call)
        if builtin in NON_DATA_BUILTINS:
            return False
        if self.call_name(call) in TYPE_QUERIES:
            return False
        func = call.func
        if isinstance(func, ast.Attribute):
            if func.attr in SCALAR_METHODS or func.attr in SHAPE_METHODS:
                return False
            if self.is_data(func.value):
                return True
        callees = self.resolve_call(call)
        if any(callee.id in self.facts.returns_data for callee in callees):
            return True
        if callees and all(callee.name != "__init__" and self.project.is_library(callee.module) for callee in callees):
            return False   # a followed library function whose returns were analyzed and hold no pipeline data
        return self.args_data(call)

    # ------------------------------------------------------------------ shapes
    def is_shape(self, e: ast.expr | None) -> bool:
        if e is None:
            return False
        if isinstance(e, ast.Name):
            return e.id in self.env.shape
        if isinstance(e, ast.Attribute):
            return e.attr in SHAPE_ATTRS and self.is_data(e.value)
        if isinstance(e, ast.Subscript):
            return self.is_shape(e.value)
        if isinstance(e, ast.Call):
            if isinstance(e.func, ast.Attribute) and e.func.attr in SHAPE_METHODS:
                return self.is_data(e.func.value)
            builtin = self.builtin(e)
            if builtin == "len":
                return any(self.is_data(a) for a in e.args)
            if builtin in ("min", "max", "abs", "int", "float", "round", "sum"):
                return any(self.is_shape(a) for a in e.args)
            return False
        if isinstance(e, ast.BinOp):
            return self.is_shape(e.left) or self.is_shape(e.right)
        if isinstance(e, ast.UnaryOp):
            return self.is_shape(e.operand)
        if isinstance(e, (ast.Tuple, ast.List)):
            return any(self.is_shape(x) for x in e.elts)
        return False

    # ------------------------------------------------------------------ numpy-ness
    def is_numpy(self, e: ast.expr | None) -> bool:
        if e is None:
            return False
        if isinstance(e, ast.Name):
            return e.id in self.env.numpy
        if isinstance(e, ast.Subscript):
            return self.is_numpy(e.value)
        if isinstance(e, ast.Attribute):
            return e.attr == "T" and self.is_numpy(e.value)
        if isinstance(e, ast.BinOp):
            return self.is_numpy(e.left) or self.is_numpy(e.right)
        if isinstance(e, ast.Call):
            func = e.func
            if isinstance(func, ast.Attribute):
                if func.attr == "numpy":
                    return True
                if func.attr in ("astype", "reshape", "copy", "transpose", "squeeze", "flatten", "ravel", "clip",
                                 "swapaxes", "sum", "mean", "round", "cumsum", "min", "max"):
                    if self.is_numpy(func.value):
                        return True
            name = self.call_name(e)
            if name and name.startswith("numpy.") and not name.startswith(("numpy.random.", "numpy.dtype")):
                return True
            return any(c.id in self.facts.returns_numpy for c in self.resolve_call(e))
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
        if fn.id in self._type_guard:
            return set()
        self._type_guard.add(fn.id)
        try:
            module = self.project.modules[fn.module]
            declared = annotation_classes(self.project, fn.node.returns, module)
            if declared:
                return declared
            out: set[str] = set()
            for node in ast.walk(fn.node):
                if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
                    out |= self.call_result_types(node.value, module)
            return out
        finally:
            self._type_guard.discard(fn.id)

    def attr_types(self, cls: ClassInfo, attr: str) -> set[str]:
        guard = ("attr", cls.id, attr)
        if guard in self._type_guard:
            return set()
        self._type_guard.add(guard)
        try:
            out: set[str] = set()
            declared: set[str] = set()
            for klass in self.project.mro(cls):
                module = self.project.modules[klass.module]
                for method, value in klass.attr_values.get(attr, ()):
                    if isinstance(value, ast.Call):
                        built = self.call_result_types(value, module)
                        if not any(":" in t for t in built) and method in klass.methods:
                            built = CallableResolver(self.for_function(klass.methods[method])).classes(value.func)
                        out |= built
                    elif isinstance(value, ast.Name) and method in klass.methods:
                        out |= self.param_value_types(klass.methods[method], value.id)
                if attr in klass.class_attrs and isinstance(klass.class_attrs[attr], ast.Call):
                    out |= self.call_result_types(klass.class_attrs[attr], module)
                if not declared and attr in klass.attr_annotations:
                    declared = annotation_classes(self.project, klass.attr_annotations[attr], module)
            return out | declared
        finally:
            self._type_guard.discard(guard)

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
        if isinstance(root, ast.Name) and self.is_data_global(root.id):
            return root.id
        return None

    def state_owner(self, attr: str) -> str:
        """'module:Class' for attributes of self, 'module' for module globals."""
        if self.cls is not None and attr not in self.facts.data_globals.get(self.module.name, ()):
            return self.cls.id
        return self.module.name

    def state_write(self, node: ast.AST) -> tuple[str, str] | None:
        """(attr, kind) when `node` writes persistent tensor state (of `self` or a module global)."""
        self_name = self.self_name
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if method.endswith("_") and not method.endswith("__") and method not in INPLACE_EXCEPTIONS:
                root = node.func.value
                while isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute) and root.func.attr.endswith("_"):
                    root = root.func.value
                while isinstance(root, ast.Subscript):
                    root = root.value
                attr = self._is_state_root(root)
                if attr:
                    return attr, "inplace"
            return None
        if isinstance(node, ast.AugAssign):
            target = node.target
            while isinstance(target, ast.Subscript):
                target = target.value
            attr = self._is_state_root(target)
            return (attr, "inplace") if attr else None
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            targets = [t for target in targets for t in _flat_targets(target)]   # `out, self.h = ...`
            for target in targets:
                if isinstance(target, ast.Subscript):
                    root = target
                    while isinstance(root, ast.Subscript):
                        root = root.value
                    attr = self._is_state_root(root)
                    if attr:
                        return attr, "inplace"
                elif (is_self_attr(target, self_name) and self.is_data(node.value)
                      and self.cls is not None and self._read_across_calls(target.attr, node.lineno)):
                    return target.attr, "reassigned"
        return None

    def _read_across_calls(self, attr: str, write_line: int) -> bool:
        """Is `self.<attr>` read by another reachable function, or earlier in this one (so the
        value written now is what the next call reads)?"""
        for klass in self.project.mro(self.cls):
            for fid, line in self.facts.attr_reads.get(klass.id, {}).get(attr, ()):
                if fid != self.fn.id or line <= write_line:
                    return True
        return False
