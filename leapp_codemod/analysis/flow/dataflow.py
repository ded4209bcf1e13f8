"""Which values are pipeline data: a per-function pass plus an interprocedural fixpoint.

A function's local facts (`Env`) are computed by two in-order passes over its statements (the second catches
loop-carried names). Calls then push facts into callees: which parameters receive pipeline data, NumPy arrays
or known types. The analysis repeats over the reachable functions until no fact grows.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.model.class_state import (
    CONSTRUCTION_METHODS, foreign_writes, inputs_from_callbacks, live_state_attrs, live_state_globals,
    methods_called_outside, mutated_attrs, setup_methods, tensor_items,
)
from leapp_codemod.analysis.model.setting_writes import setting_attrs
from leapp_codemod.analysis.model.config_values import CONFIG_KEY, CONFIG_LOCALS, config_key, function_config_constants
from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.infer.devices import built_here, device_filled, device_read, used_as_array
from leapp_codemod.analysis.infer.answers import return_chosen_by_data
from leapp_codemod.analysis.flow.local_binds import bind_local_call, bind_written, local_callables, numpy_annotated
from leapp_codemod.analysis.infer.taint import function_attr
from leapp_codemod.analysis.infer.type_tests import holds_dict
from leapp_codemod.analysis.infer.lattice import NESTED, Env, Facts
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.text_params import text_params
from leapp_codemod.analysis.model.leapp_support import LeappSupport
from leapp_codemod.analysis.model.libraries import call_origin
from leapp_codemod.analysis.model.resolve_types import constructed_before, receiver_ids
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.tensor_values import external_namer, tensor_like
from leapp_codemod.analysis.model.walk import (
    UNKNOWN, binding_nodes, is_self_attr, iter_nodes, literal_bindings,
)
from leapp_codemod.knowledge.io import THREAD_HANDOFFS
from leapp_codemod.analysis.model.resolve_sites import applied_call, handed_call
from leapp_codemod.knowledge.vocab import CONTAINER_MUTATORS, ELEMENT_APPLIERS
from leapp_codemod.analysis.flow.property_reads import property_getters
from leapp_codemod.analysis.flow.kwarg_keys import (
    absent_keyword, forwarded_settings, record_keyword_keys, record_vararg_counts,
)
from leapp_codemod.analysis.model.fold import name_stores
from leapp_codemod.analysis.model.imported_flags import imported_flags
from leapp_codemod.analysis.model.literal_globals import literal_constant
from leapp_codemod.analysis.model.settings import class_settings, dict_defaults, module_flags
from leapp_codemod.analysis.flow.param_kinds import record_kinds
from leapp_codemod.analysis.flow.passed_keys import param_map, record_dict_keys
from leapp_codemod.analysis.model.preset_attrs import preset_settings
from leapp_codemod.analysis.model.returned_classes import built_classes, tuple_item
from leapp_codemod.analysis.model.constructed_attrs import constructed_settings



def _bind_returned_arrays(ctx: FunctionContext, targets: list[ast.expr], call: ast.Call) -> None:
    """`body, wrist = split(obs)` where a project function returns a tuple holding NumPy arrays at those
    positions: the names bound there are NumPy arrays."""
    positions = [ctx.facts.returns_numpy_items.get(c.id, set()) for c in ctx.resolve_call(call)]
    for position, target in enumerate(targets):
        if isinstance(target, ast.Name) and positions and all(position in p for p in positions):
            ctx.env.numpy.add(target.id)
            ctx.env.numpy_bindings.setdefault(target.id, {})[target.lineno] = True


def _bind_returned_classes(ctx: FunctionContext, targets: list[ast.expr], call: ast.Call) -> None:
    """`policy, norm, steps = load_checkpoint(path, env)` where the project function returns a tuple whose item
    is an object it builds (`Actor(...).to(device)`): the name bound there holds that class."""
    for position, target in enumerate(targets):
        if isinstance(target, ast.Name):
            classes = built_classes(ctx.project, tuple_item(call, position), ctx.module, scope=ctx.fn)
            if classes:
                ctx.env.types.setdefault(target.id, set()).update(classes)


def _bind(ctx: FunctionContext, target: ast.expr, value: ast.expr | None, element: bool = False) -> None:
    env = ctx.env
    if isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and not element:
            for t, v in zip(target.elts, value.elts):
                _bind(ctx, t, v)
        else:
            for t in target.elts:
                _bind(ctx, t.value if isinstance(t, ast.Starred) else t, value, element=True)
            if isinstance(value, ast.Call) and not any(isinstance(t, ast.Starred) for t in target.elts):
                _bind_returned_arrays(ctx, target.elts, value)
                _bind_returned_classes(ctx, target.elts, value)
        return
    if isinstance(target, ast.Starred):
        _bind(ctx, target.value, value, element)
        return
    if isinstance(target, ast.Name):
        name = target.id
        if ctx.is_data(value) or (isinstance(value, ast.Call) and name not in env.data and device_read(ctx, value)
                                  and used_as_array(ctx, name)):
            env.data.add(name)
        if ctx.is_shape(value) and not _scaled_value(ctx, value):
            env.shape.add(name)
        numpy = ctx.is_numpy(value)
        if numpy:
            env.numpy.add(name)
        line_bindings = env.numpy_bindings.setdefault(name, {})
        line_bindings[target.lineno] = line_bindings.get(target.lineno, False) or numpy
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
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and ctx.is_data(value) \
            and built_here(ctx, target.value.id):
        env.data.add(target.value.id)   # `pcd = PointCloud()`, `pcd.points = pts`: the object holds the data
        return
    if is_self_attr(target, ctx.self_name) and ctx.cls is not None and ctx.is_data(value):
        ctx.facts.data_attrs.setdefault(ctx.cls.id, set()).add(target.attr)
    elif function_attr(ctx, target) and ctx.is_data(value):
        ctx.facts.data_globals.setdefault(ctx.module.name, set()).add(function_attr(ctx, target))


SCALINGS = (ast.Div, ast.Mult, ast.Pow, ast.MatMult)


def _scaled_value(ctx: FunctionContext, value: ast.expr) -> bool:
    """`x.abs().sum() / x.numel()`: a value of the data scaled by a count is a value, not a size. The count is
    reported where it is mixed in (LCM002); what is computed from the result later is arithmetic on data."""
    return isinstance(value, ast.BinOp) and isinstance(value.op, SCALINGS) and any(
        ctx.is_data(side) and not ctx.is_shape(side) for side in (value.left, value.right))


def _bind_loop(ctx: FunctionContext, target: ast.expr, iterable: ast.expr) -> None:
    """Loop targets take the elements of the iterable; dict keys (`for k, v in d.items()`,
    `for k in d.keys()`) are names, never pipeline data."""
    if isinstance(iterable, ast.Name) and iterable.id not in ctx.fn.params:
        assigned = ctx.fn.assigned(iterable.id)
        if len(assigned) == 1 and isinstance(assigned[0], ast.Call) and ctx.builtin(assigned[0]) in ("zip", "enumerate"):
            iterable = assigned[0]   # `pairs = zip(names, self.cfgs[group])` ... `for name, cfg in pairs`
    if (isinstance(iterable, ast.Call) and ctx.builtin(iterable) == "zip" and isinstance(target, (ast.Tuple, ast.List))
            and len(target.elts) == len(iterable.args) and not any(isinstance(a, ast.Starred) for a in iterable.args)):
        for elt, arg in zip(target.elts, iterable.args):   # each target takes the items of its own iterable
            _bind_loop(ctx, elt, arg)
        return
    method = iterable.func.attr if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) else None
    if method == "keys" or holds_dict(ctx.fn, iterable):
        return
    if method == "items" and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2:
        _bind(ctx, target.elts[1], iterable, element=True)
        return
    if (isinstance(iterable, ast.Call) and ctx.builtin(iterable) == "enumerate" and iterable.args
            and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2):
        _bind(ctx, target.elts[1], iterable.args[0], element=True)  # the index is a Python int
        return
    _bind(ctx, target, iterable, element=True)


def compute_env(ctx: FunctionContext) -> Env:
    """Fill `ctx.env` for the function's current parameter facts; returns it."""
    fn = ctx.fn
    facts = ctx.facts
    env = ctx.env
    callables = local_callables(fn)
    env.data |= facts.data_params.get(fn.id, set()) - text_params(fn)
    env.numpy |= facts.numpy_params.get(fn.id, set()) | numpy_annotated(ctx)
    env.shape |= facts.shape_params.get(fn.id, set())
    for param, types in facts.param_types.get(fn.id, {}).items():
        env.types.setdefault(param, set()).update(types)
    for param, classes in constructed_before(ctx.project, ctx.fn, ctx.module).items():
        env.types.setdefault(param, set()).update(classes)
    nodes = binding_nodes(fn, facts.param_constants.get(fn.id))
    for _ in range(3):
        before = env.size()
        for node in nodes:
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
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                _bind_loop(ctx, node.target, node.iter)
            elif isinstance(node, ast.If) and ctx.cls is not None and ctx.constants_chosen_by_data(node):
                facts.data_attrs.setdefault(ctx.cls.id, set()).update(ctx.constants_chosen_by_data(node))
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                _bind(ctx, node.optional_vars, node.context_expr)
            elif isinstance(node, ast.NamedExpr):
                _bind(ctx, node.target, node.value)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in callables:
                bind_local_call(ctx, node, callables[node.func.id])
            elif isinstance(node, ast.Call) and bind_written(ctx, node):
                pass
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                # `xs.append(data)` / `d.update(data)` make the container pipeline data
                receiver = node.func.value
                if (node.func.attr in ("append", "extend", "insert", "update", "add", "setdefault")
                        and isinstance(receiver, ast.Name) and receiver.id not in ctx.module.imports
                        and ctx.args_data(node)):   # not `np.append(a, b)`: a module's function
                    env.data.add(receiver.id)
                env.data.update(device_filled(ctx, node))   # `udp.GetRecv(state)`: the device fills `state`
        if env.size() == before:
            break
    return env


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
    entry_methods: set[tuple[str, str]] = field(default_factory=set)   # (class id, method) of the roots
    roots: set[str] = field(default_factory=set)   # ids of the functions the analysis starts from (the entry)
    mutated: set[str] = field(default_factory=set)   # attribute names written after construction somewhere
    flags: dict[str, dict[str, set]] = field(default_factory=dict)  # module -> its constant flags
    pass_envs: dict[str, Env] = field(default_factory=dict)      # local facts computed by the current pass
    settled_envs: dict[str, Env] = field(default_factory=dict)   # ... by a last pass that changed no fact

    def context(self, fn: FunctionInfo) -> FunctionContext:
        return FunctionContext(fn, self.project.modules[fn.module], self.project, self.facts, self.support)

    def context_with_env(self, fn: FunctionInfo) -> FunctionContext:
        """A context with the function's local facts: the ones the last pass of `run` computed when that
        pass changed nothing (the facts are final, so recomputing would give the same), else fresh."""
        ctx = self.context(fn)
        settled = self.settled_envs.get(fn.id)
        if settled is not None:
            ctx.env = settled
        else:
            compute_env(ctx)
        return ctx

    def seed_class_state(self) -> None:
        """Tensor-valued attributes that something writes after construction start as pipeline state
        (a tensor set once in `__init__` is a constant); so do attributes a callback writes. Modules
        loaded later (followed libraries) are seeded when they arrive."""
        fresh = [mod for mod in list(self.project.modules.values()) if mod.name not in self.seeded]
        self.seeded |= {mod.name for mod in fresh}
        classes = [(cls, mod) for mod in fresh for cls in mod.classes.values()]
        outside = methods_called_outside(self.project)
        setup = {cls.id: setup_methods(cls, outside) for cls, _ in classes}
        for cls, _ in classes:
            self.mutated |= mutated_attrs(cls, self.project.modules.get(cls.module), setup[cls.id])
        for mod in [m for m in fresh if ("duck",) in self.project.memo and not self.project.is_library(m.name)]:
            self.facts.foreign_written |= foreign_writes(mod)   # entry mode: fields code fills on a shared object
        self.mutated |= self.facts.foreign_written
        for cls, mod in classes:
            attrs = {a for a, values in cls.attr_values.items() if any(tensor_like(v, self.project, mod) for _, v in values)}
            attrs |= cls.buffers | cls.parameters
            attrs |= {a for a, v in cls.class_attrs.items() if tensor_like(v, self.project, mod)}
            attrs |= tensor_items(cls, lambda value, m=mod: tensor_like(value, self.project, m))
            changing = attrs & self.mutated
            changing -= setting_attrs(cls, mod, CONSTRUCTION_METHODS | setup[cls.id], self.mutated,
                                      changing - self.facts.foreign_written)   # re-read settings: not state
            attrs = changing | inputs_from_callbacks(self.project, cls, frozenset(m for c, m in self.entry_methods if c == cls.id)) | live_state_attrs(cls, external_namer(self.project, mod))
            if attrs:
                self.facts.data_attrs.setdefault(cls.id, set()).update(attrs)
        for mod in fresh:
            tensors = {name for name, value in mod.globals.items() if tensor_like(value, self.project, mod)
                       and not literal_constant(value, name, mod)} | live_state_globals(mod, external_namer(self.project, mod))
            if tensors:
                self.facts.data_globals[mod.name] = tensors

    def add_reachable(self, fn: FunctionInfo) -> None:
        if fn.id not in self.reachable:
            flags = self.flags.get(fn.module)
            if flags is None:   # once per module: a 10 MiB module has thousands of functions
                module = self.project.modules.get(fn.module)
                flags = self.flags[fn.module] = {**imported_flags(self.project, module),
                                                 **module_flags(module.tree, module.nodes)} if module is not None else {}
            constants = self.facts.param_constants.setdefault(fn.id, {})
            read = {node.id for node in fn.nodes if isinstance(node, ast.Name)}   # copying every table is quadratic
            for name, values in flags.items():   # a flag, `table:NAME`, `call:helper` or `Cls.attr` it names
                if name.rpartition(":")[2].partition(".")[0] in read:
                    constants.setdefault(name, set(values))
            if ("duck",) in self.project.memo:   # entry mode: what the project's config files decide
                decided = function_config_constants(self.project, fn)
                for name, values in dict_defaults(self.project, fn, UNKNOWN).items():
                    decided.setdefault(name, set()).update(values)
                for name, values in decided.items():
                    constants.setdefault(name, set(values))
            cls = self.project.modules[fn.module].classes.get(fn.class_name) if fn.class_name else None
            if cls is not None and ("duck",) in self.project.memo:   # entry mode: the object's settings
                for name, values in class_settings(self.project, cls, UNKNOWN).items():
                    constants.setdefault(name, set(values))
                constants.update(preset_settings(self.project, cls))   # set by the driver before its loop
                constants.update(constructed_settings(self.project, cls))   # set by the constructor on every path
        self.reachable.setdefault(fn.id, fn)

    def propagate(self, fn: FunctionInfo) -> None:
        ctx = self.context(fn)
        self.pass_envs[fn.id] = compute_env(ctx)
        facts = self.facts
        self_name = ctx.self_name
        for node in iter_nodes(fn, facts.param_constants.get(fn.id)):
            if isinstance(node, ast.Return) and (node.value is None or _constant(node.value)):
                if fn.id not in facts.answers_by_data and return_chosen_by_data(ctx, node):
                    facts.returns_data.add(fn.id)   # `if dist < tol: return True`: the answer follows the data
                    facts.answers_by_data.add(fn.id)
            for getter in property_getters(ctx, node):   # `self.x` / `obj.x` of a `@property`: runs the getter
                self.add_reachable(getter)
            if isinstance(node, ast.Return) and node.value is not None:
                if ctx.is_data(node.value):
                    facts.returns_data.add(fn.id)
                if ctx.is_numpy(node.value):
                    facts.returns_numpy.add(fn.id)
                elif isinstance(node.value, ast.Tuple):
                    for position, item in enumerate(node.value.elts):
                        if not isinstance(item, ast.Starred) and ctx.is_numpy(item):
                            facts.returns_numpy_items.setdefault(fn.id, set()).add(position)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and ctx.cls is not None \
                    and is_self_attr(node, self_name):
                facts.attr_reads.setdefault(ctx.cls.id, {}).setdefault(node.attr, set()).add((fn.id, node.lineno))
            elif isinstance(node, ast.Call):
                self._propagate_call(ctx, node)
                if ctx.cls is not None:
                    self._container_fill(ctx, node)
            if ctx.cls is not None and isinstance(node, (ast.AugAssign, ast.Assign)):
                self._counter_update(ctx, node)

    def _container_fill(self, ctx: FunctionContext, call: ast.Call) -> None:
        """`self.frames.append(obs)`: the list/deque holds pipeline data from call to call."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in CONTAINER_MUTATORS and ctx.args_data(call)):
            return
        held, suffix = func.value, ""
        if isinstance(held, ast.Subscript):   # `self.frames[cam].append(img)`: a dict of queues
            held, suffix = held.value, NESTED
        if (is_self_attr(held, ctx.self_name) and not ctx.resolve_call(call)
                and not any(":" in t for t in ctx.types_of(func.value))):  # not a project object
            self.facts.data_attrs.setdefault(ctx.cls.id, set()).add(held.attr)
            self.facts.container_attrs.setdefault(ctx.cls.id, set()).add(held.attr + suffix)

    def _counter_update(self, ctx: FunctionContext, node: ast.AugAssign | ast.Assign) -> None:
        """`self.count += 1`, `self.phase = (self.phase + dt) % 1.0`: a Python value the step carries
        from call to call. It is pipeline state (the trace would freeze it) unless it already is tensor state."""
        if isinstance(node, ast.AugAssign):
            target = node.target
        elif len(node.targets) == 1 and isinstance(node.value, (ast.BinOp, ast.UnaryOp)):
            target = node.targets[0]
            if not (is_self_attr(target, ctx.self_name)
                    and any(is_self_attr(n, ctx.self_name) and n.attr == target.attr for n in ast.walk(node.value))):
                return
        else:
            return
        if not is_self_attr(target, ctx.self_name) or ctx.self_attr_is_data(target.attr) \
                and not ctx._class_fact(self.facts.counter_attrs, target.attr):
            return
        self.facts.counter_attrs.setdefault(ctx.cls.id, set()).add(target.attr)
        self.facts.data_attrs.setdefault(ctx.cls.id, set()).add(target.attr)

    def _propagate_call(self, ctx: FunctionContext, call: ast.Call) -> None:
        facts = self.facts
        handoff = THREAD_HANDOFFS.get(ctx.call_name(call) or "") if call.keywords or len(call.args) > 1 else None
        if handoff is not None:
            handed = handed_call(call, handoff)
            if handed is not None:   # `Thread(target=self.save, args=(img,))` runs `self.save(img)`
                self._propagate_call(ctx, handed)
        if (ctx.builtin(call) or ctx.call_name(call)) in ELEMENT_APPLIERS:
            applied = applied_call(call)
            if applied is not None:  # `map(self.encode, frames)` runs `self.encode(frames[i])`
                self._propagate_call(ctx, applied)
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
            library = self.project.is_library(callee.module)
            bound = _is_bound_call(callee, call, ctx)
            record_vararg_counts(facts, ctx, callee, call, bound)
            mine = facts.param_constants.get(ctx.fn.id, {})
            pairs, settings = forwarded_settings(ctx, call, callee, bound, param_map(callee, call, bound, ctx.fn, mine), mine)
            _record_constants(facts, ctx, callee, pairs, settings)
            record_kinds(facts, ctx, callee, call, pairs, settings)
            record_dict_keys(facts, ctx, callee, pairs)
            record_keyword_keys(facts, ctx, callee, call)
            for param, arg in pairs:
                if not library and ctx.kept_root(arg) is not None:   # `plan(cfg, mem["cmd"])`: the caller's kept object
                    facts.kept_params.setdefault(callee.id, set()).add(param)
                if ctx.is_data(arg):
                    facts.data_params.setdefault(callee.id, set()).add(param)
                if ctx.is_numpy(arg):
                    facts.numpy_params.setdefault(callee.id, set()).add(param)
                if not library and ctx.passes_shape(arg):
                    facts.shape_params.setdefault(callee.id, set()).add(param)
                types = ctx.types_of(arg)
                if types:
                    facts.param_types.setdefault(callee.id, {}).setdefault(param, set()).update(types)

    def run(self, roots: list[FunctionInfo], data_params: dict[str, set[str]], rounds: int | None = None) -> None:
        """Grow the facts until nothing changes (or for `rounds` passes). Facts only grow and are finite,
        so the fixpoint is reached whatever the call depth; functions found during a pass are analyzed
        in that same pass, so a call chain resolves in one."""
        self.entry_methods |= {(f"{r.module}:{r.class_name}", r.name) for r in roots if r.class_name}
        self.roots |= {r.id for r in roots}
        self.seed_class_state()
        for fid, params in data_params.items():
            self.facts.data_params.setdefault(fid, set()).update(params)
        for root in roots:
            self.add_reachable(root)
        passes = 0
        while rounds is None or passes < rounds:
            passes += 1
            self.seed_class_state()
            before = (len(self.reachable), self.facts.fingerprint(), len(self.project.modules))
            self.pass_envs = {}
            self.settled_envs = {}
            done = 0
            while done < len(self.reachable):
                pending = list(self.reachable.values())[done:]
                done += len(pending)
                for fn in pending:
                    try:
                        self.propagate(fn)
                    except RecursionError:
                        continue  # absurdly nested statement: its facts stay as they are
            if (len(self.reachable), self.facts.fingerprint(), len(self.project.modules)) == before:
                self.settled_envs = self.pass_envs
                break


def _constant(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and (value.value is None or isinstance(value.value, (bool, int, float)))


def _record_constants(facts: Facts, ctx: FunctionContext, callee: FunctionInfo, pairs, settings=None) -> None:
    """What each parameter of `callee` receives at this call: constants (a default when not passed,
    a caller's own constant parameter passed on, a setting handed on in `**kwargs`), or UNKNOWN."""
    table = facts.param_constants.setdefault(callee.id, {})
    mine = facts.param_constants.get(ctx.fn.id, {})
    for param, values in (settings or {}).items():
        table.setdefault(param, set()).update(values)
    passed = set(settings or ())
    for param, arg in pairs:
        passed.add(param)
        if callee.node.args.kwarg is not None and param == callee.node.args.kwarg.arg:
            values = {UNKNOWN}   # `**kwargs` holds a dict, whatever the keyword's value
        elif isinstance(arg, ast.Constant):
            values = {arg.value}
        elif (absent := absent_keyword(ctx, arg, mine)) is not None:
            values = absent      # `kwargs.get("target", None)` where no call passes `target`
        elif is_self_attr(arg, ctx.self_name) and arg.attr == "training":
            values = {False}     # `drop_path(x, p, self.training)`: export runs the module in eval mode
        elif is_self_attr(arg, ctx.self_name) and mine.get(f"self.{arg.attr}") and UNKNOWN not in mine[f"self.{arg.attr}"]:
            values = set(mine[f"self.{arg.attr}"])   # `say(self.verbose, ...)`: a setting the object keeps
        elif isinstance(arg, ast.Name) and (arg.id in ctx.fn.params or arg.id in mine.get(CONFIG_LOCALS, ())) \
                and mine.get(arg.id):
            values = set(mine[arg.id])   # the caller's own constant parameter, or a name bound from a config
        elif isinstance(arg, ast.Name) and (literals := literal_bindings(ctx.fn, arg.id)) is not None:
            values = literals    # `noise = True` ... `f(action, noise)`: a flag the caller sets to literals
        elif (flag := _module_flag(ctx, arg, mine)) is not None:
            values = flag        # `act(x, ENABLE_VISUAL)`, `settings.DEBUG`: a module-level setting passed on
        elif config_key(arg) is not None and mine.get(CONFIG_KEY + config_key(arg)):
            values = set(mine[CONFIG_KEY + config_key(arg)])   # `f(x, mode=cfg.mode)`, decided by the configs
        else:
            values = {UNKNOWN}
        table.setdefault(param, set()).update(values)
    args = callee.node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    defaults += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    for arg, default in defaults:
        if arg.arg not in passed:
            table.setdefault(arg.arg, set()).add(default.value if isinstance(default, ast.Constant) else UNKNOWN)


def _module_flag(ctx: FunctionContext, arg: ast.expr, mine: dict) -> set | None:
    """The values of a module-level flag (the caller's module's own or one it imports, in `mine` under its name
    or `module.NAME`) that `arg` reads, when the caller does not bind that name itself."""
    root = arg.value if isinstance(arg, ast.Attribute) else arg
    if not isinstance(root, ast.Name) or root.id == ctx.self_name or root.id in ctx.fn.params \
            or root.id in name_stores(ctx.fn):
        return None
    key = f"{root.id}.{arg.attr}" if isinstance(arg, ast.Attribute) else root.id
    values = mine.get(key)
    return set(values) if values and UNKNOWN not in values else None


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
