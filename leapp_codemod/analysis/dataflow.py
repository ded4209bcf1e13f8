"""Which values are pipeline data: a per-function pass plus an interprocedural fixpoint.

A function's local facts (`Env`) are computed by two in-order passes over its statements
(the second catches loop-carried names). Calls then push facts into callees: which
parameters receive pipeline data, NumPy arrays or known types. The analysis repeats over
the reachable functions until no fact grows.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.context import (
    TENSOR_COPY_METHODS, Env, Facts, FunctionContext, is_self_attr, iter_nodes, self_name_of,
)
from leapp_codemod.analysis.index import FunctionInfo
from leapp_codemod.analysis.leapp_support import LeappSupport
from leapp_codemod.analysis.libraries import call_origin
from leapp_codemod.analysis.resolve_types import receiver_ids
from leapp_codemod.analysis.project import Project

_MAX_ROUNDS = 12
CONFIG_PARAM_NAMES = frozenset({"cfg", "config", "conf", "settings", "params", "hparams", "opts", "options", "args"})
NON_DATA_ANNOTATIONS = frozenset({"int", "float", "str", "bool", "bytes", "None", "dict", "list", "tuple"})


def _bind(ctx: FunctionContext, target: ast.expr, value: ast.expr | None, element: bool = False) -> None:
    env = ctx.env
    if isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and not element:
            for t, v in zip(target.elts, value.elts):
                _bind(ctx, t, v)
        else:
            for t in target.elts:
                _bind(ctx, t.value if isinstance(t, ast.Starred) else t, value, element=True)
        return
    if isinstance(target, ast.Starred):
        _bind(ctx, target.value, value, element)
        return
    if isinstance(target, ast.Name):
        name = target.id
        if ctx.is_data(value):
            env.data.add(name)
        if ctx.is_shape(value):
            env.shape.add(name)
        if ctx.is_numpy(value):
            env.numpy.add(name)
        types = ctx.element_types(value) if element else ctx.types_of(value)
        if types:
            env.types.setdefault(name, set()).update(types)
        return
    if isinstance(target, ast.Subscript):
        root = target.value
        while isinstance(root, ast.Subscript):
            root = root.value
        if isinstance(root, ast.Name) and ctx.is_data(value):
            env.data.add(root.id)
        return
    if is_self_attr(target, ctx.self_name) and ctx.cls is not None and ctx.is_data(value):
        ctx.facts.data_attrs.setdefault(ctx.cls.id, set()).add(target.attr)


def _local_callables(fn: FunctionInfo) -> dict[str, ast.arguments]:
    """Functions and lambdas defined inside `fn` and bound to a name: name -> their arguments."""
    out: dict[str, ast.arguments] = {}
    for node in iter_nodes(fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = node.args
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = node.value.args
    return out


def _bind_local_call(ctx: FunctionContext, call: ast.Call, args: ast.arguments) -> None:
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    for i, arg in enumerate(call.args):
        if i < len(params) and ctx.is_data(arg):
            ctx.env.data.add(params[i])
    for kw in call.keywords:
        if kw.arg and ctx.is_data(kw.value):
            ctx.env.data.add(kw.arg)


def compute_env(ctx: FunctionContext) -> Env:
    """Fill `ctx.env` for the function's current parameter facts; returns it."""
    fn = ctx.fn
    facts = ctx.facts
    env = ctx.env
    local_callables = _local_callables(fn)
    env.data |= facts.data_params.get(fn.id, set())
    env.numpy |= facts.numpy_params.get(fn.id, set())
    for param, types in facts.param_types.get(fn.id, {}).items():
        env.types.setdefault(param, set()).update(types)
    for _ in range(3):
        before = env.size()
        for node in iter_nodes(fn):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    _bind(ctx, target, node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                _bind(ctx, node.target, node.value)
            elif isinstance(node, ast.AugAssign):
                if isinstance(node.target, ast.Name) and ctx.is_data(node.value):
                    env.data.add(node.target.id)
                elif ctx.is_data(node.value):
                    _bind(ctx, node.target, node.value)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                _bind(ctx, node.target, node.iter, element=True)
            elif isinstance(node, ast.comprehension):
                _bind(ctx, node.target, node.iter, element=True)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                _bind(ctx, node.optional_vars, node.context_expr)
            elif isinstance(node, ast.NamedExpr):
                _bind(ctx, node.target, node.value)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in local_callables:
                _bind_local_call(ctx, node, local_callables[node.func.id])
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                # `xs.append(data)` / `d.update(data)` make the container pipeline data
                receiver = node.func.value
                if (node.func.attr in ("append", "extend", "insert", "update", "add", "setdefault")
                        and isinstance(receiver, ast.Name) and ctx.args_data(node)):
                    env.data.add(receiver.id)
        if env.size() == before:
            break
    return env


def _param_map(callee: FunctionInfo, call: ast.Call, bound: bool) -> list[tuple[str, ast.expr]]:
    params = callee.positional_params
    if bound and params:
        params = params[1:]
    pairs: list[tuple[str, ast.expr]] = []
    vararg = callee.node.args.vararg.arg if callee.node.args.vararg else None
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            pairs += [(p, arg.value) for p in params[i:]]
            if vararg:
                pairs.append((vararg, arg.value))
            break
        if i < len(params):
            pairs.append((params[i], arg))
        elif vararg:
            pairs.append((vararg, arg))
    kwarg = callee.node.args.kwarg.arg if callee.node.args.kwarg else None
    for kw in call.keywords:
        if kw.arg is None:
            pairs += [(p, kw.value) for p in callee.params]
        elif kw.arg in callee.params:
            pairs.append((kw.arg, kw.value))
        elif kwarg:
            pairs.append((kwarg, kw.value))
    return pairs


def _is_bound_call(callee: FunctionInfo, call: ast.Call, ctx: FunctionContext) -> bool:
    """Does the call pass `self` implicitly? (`obj.meth(x)`, `self.meth(x)`, `instance(x)`)"""
    if not callee.is_method:
        return False
    func = call.func
    if isinstance(func, ast.Attribute):
        qualified = ctx.project.qualify(func.value, ctx.module)
        cls = ctx.project.class_of(qualified) if qualified else None
        return cls is None  # `Cls.meth(obj, x)` passes self explicitly
    return True


@dataclass
class Analysis:
    project: Project
    support: LeappSupport
    facts: Facts = field(default_factory=Facts)
    reachable: dict[str, FunctionInfo] = field(default_factory=dict)
    seeded: set[str] = field(default_factory=set)

    def context(self, fn: FunctionInfo) -> FunctionContext:
        return FunctionContext(fn, self.project.modules[fn.module], self.project, self.facts, self.support)

    def seed_class_state(self) -> None:
        """Tensor-valued attributes of every class start as pipeline state (modules loaded later too)."""
        for mod in list(self.project.modules.values()):
            if mod.name in self.seeded:
                continue
            self.seeded.add(mod.name)
            for cls in mod.classes.values():
                attrs = {a for a, values in cls.attr_values.items() if any(_tensor_like(v, self.project, mod) for _, v in values)}
                attrs |= cls.buffers | cls.parameters
                attrs |= {a for a, v in cls.class_attrs.items() if _tensor_like(v, self.project, mod)}
                if attrs:
                    self.facts.data_attrs.setdefault(cls.id, set()).update(attrs)
            tensors = {name for name, value in mod.globals.items() if _tensor_like(value, self.project, mod)}
            if tensors:
                self.facts.data_globals[mod.name] = tensors

    def add_reachable(self, fn: FunctionInfo) -> None:
        self.reachable.setdefault(fn.id, fn)

    def propagate(self, fn: FunctionInfo) -> None:
        ctx = self.context(fn)
        compute_env(ctx)
        facts = self.facts
        self_name = ctx.self_name
        for node in iter_nodes(fn):
            if isinstance(node, ast.Return) and node.value is not None:
                if ctx.is_data(node.value):
                    facts.returns_data.add(fn.id)
                if ctx.is_numpy(node.value):
                    facts.returns_numpy.add(fn.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and ctx.cls is not None \
                    and is_self_attr(node, self_name):
                facts.attr_reads.setdefault(ctx.cls.id, {}).setdefault(node.attr, set()).add((fn.id, node.lineno))
                getter = self.project.find_method(ctx.cls, node.attr)
                if getter is not None and _is_property(getter):
                    self.add_reachable(getter)
            elif isinstance(node, ast.Call):
                self._propagate_call(ctx, node)

    def _propagate_call(self, ctx: FunctionContext, call: ast.Call) -> None:
        facts = self.facts
        for callee in ctx.resolve_call(call):
            self.add_reachable(callee)
            facts.callers.setdefault(callee.id, set()).add(ctx.fn.id)
            if callee.class_name is not None:
                facts.receivers.setdefault(callee.id, set()).update(receiver_ids(ctx, call, callee))
            if self.project.is_library(callee.module):
                origins = (facts.library_origins.get(ctx.fn.id, set()) if self.project.is_library(ctx.fn.module)
                           else {call_origin(call, ctx.fn.id)})
                facts.library_origins.setdefault(callee.id, set()).update(origins)
            if callee.class_name is None:
                binding = _binding(ctx, call)
                if binding:
                    facts.call_bindings.setdefault(callee.id, set()).add(binding)
            for param, arg in _param_map(callee, call, _is_bound_call(callee, call, ctx)):
                if ctx.is_data(arg):
                    facts.data_params.setdefault(callee.id, set()).add(param)
                if ctx.is_numpy(arg):
                    facts.numpy_params.setdefault(callee.id, set()).add(param)
                types = ctx.types_of(arg)
                if types:
                    facts.param_types.setdefault(callee.id, {}).setdefault(param, set()).update(types)

    def run(self, roots: list[FunctionInfo], data_params: dict[str, set[str]], rounds: int = _MAX_ROUNDS) -> None:
        self.seed_class_state()
        for fid, params in data_params.items():
            self.facts.data_params.setdefault(fid, set()).update(params)
        for root in roots:
            self.add_reachable(root)
        for _ in range(rounds):
            self.seed_class_state()
            before = (len(self.reachable), self.facts.fingerprint(), len(self.project.modules))
            for fn in list(self.reachable.values()):
                try:
                    self.propagate(fn)
                except RecursionError:
                    continue  # absurdly nested expression: its facts stay as they are
            if (len(self.reachable), self.facts.fingerprint(), len(self.project.modules)) == before:
                break


def _is_property(fn: FunctionInfo) -> bool:
    return any((isinstance(d, ast.Name) and d.id in ("property", "cached_property"))
               or (isinstance(d, ast.Attribute) and d.attr == "cached_property") for d in fn.node.decorator_list)


def _binding(ctx: FunctionContext, call: ast.Call) -> tuple[str, str] | None:
    """(module, name) the call looks the function up through: `f(...)` in this module, `mod.f(...)`."""
    func = call.func
    if isinstance(func, ast.Name):
        return ctx.module.name, func.id
    if isinstance(func, ast.Attribute):
        owner = ctx.project.qualify(func.value, ctx.module)
        if owner and owner in ctx.project.modules:
            return owner, func.attr
    return None


def _tensor_like(expr: ast.expr, project: Project, module) -> bool:
    """Does an attribute's initial value look like a tensor or array (state), not config or a module?"""
    if isinstance(expr, ast.BinOp):
        return _tensor_like(expr.left, project, module) or _tensor_like(expr.right, project, module)
    if not isinstance(expr, ast.Call):
        return False
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr in TENSOR_COPY_METHODS - {"to", "float", "double", "half", "cpu", "cuda"}:
        return True
    name = project.qualify(func, module)
    if not name:
        return False
    name = project.external_name(name)
    if name in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer"):
        return True
    if name.startswith("torch.nn.") or name.startswith("torch.distributions.") or name.startswith("torch.optim."):
        return False
    if name.startswith("numpy.random."):
        return False
    return name.startswith("torch.") or name.startswith("numpy.")


def lint_data_params(fn: FunctionInfo) -> set[str]:
    """Lint mode: parameters treated as pipeline data when no entrypoint is known."""
    out = set()
    skip_first = fn.is_method
    args = fn.node.args
    all_args = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    for i, arg in enumerate(all_args):
        if skip_first and i == 0:
            continue
        if arg.arg in CONFIG_PARAM_NAMES or arg.arg.endswith(("_cfg", "_config")):
            continue
        ann = arg.annotation
        if isinstance(ann, ast.Name) and (ann.id in NON_DATA_ANNOTATIONS or ann.id.endswith(("Config", "Cfg"))):
            continue
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str) and ann.value in NON_DATA_ANNOTATIONS:
            continue
        out.add(arg.arg)
    return out


def entry_data_params(fn: FunctionInfo) -> set[str]:
    params = fn.params
    if fn.node.args.vararg:
        params = [*params, fn.node.args.vararg.arg]
    if fn.node.args.kwarg:
        params = [*params, fn.node.args.kwarg.arg]
    self_name = self_name_of(fn)
    return {p for p in params if p != self_name}
