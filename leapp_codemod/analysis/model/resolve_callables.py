"""Callables bound at run time: what a call through a name, a container or a field may run.

Covers functions and models held in containers (`self.nets["actor"](obs)`, `for name, fn in
self.terms.items(): fn(obs)`), returned by getters (`policy = runner.get_inference_policy()` returning
`self.alg.policy.act_inference`), looked up by name (`getattr(self, "_act_" + mode)(obs)` with a
constant or enumerable name), and stored in config objects under a field that is called later
(`ObsTerm(func=mdp.joint_pos_rel)` ... `term.func(env, **term.params)`).

Values are followed through a bounded number of assignments; anything not provably a project
callable is left unresolved (a library call or an unknown value is not guessed at).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.model.class_state import stored_items
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex, is_test_path
from leapp_codemod.analysis.model.project import Project, questions
from leapp_codemod.analysis.model import runtime_bind
from leapp_codemod.analysis.model.function_values import (  # noqa: F401 (nested_function re-exported)
    enclosing_function,
    field_stores,
    lambda_function,
    nested_function,
    only_definition,
    range_scope,
)
from leapp_codemod.analysis.model.script_bindings import module_bindings
from leapp_codemod.analysis.model.local_values import (  # noqa: F401 (returned_builds, global_value re-exported)
    MAX_DEPTH as _MAX_DEPTH,
    assignments,
    global_value,
    name_pattern as _name_pattern,
    returned_builds,
    returned_values,
)
from leapp_codemod.analysis.model.picked_by_name import MAX_PICKED, name_pick
from leapp_codemod.analysis.model.resolve_sites import argument_for, calls_named, passed_argument, sites_of
from leapp_codemod.analysis.model.walk import is_property
from leapp_codemod.knowledge.vocab import CALLABLE_WRAPPERS, SELF_RETURNING_METHODS



@dataclass(frozen=True)
class Where:
    """An expression and the function (or module) it is evaluated in."""

    module: ModuleIndex
    fn: FunctionInfo | None
    receivers: tuple[ClassInfo, ...] = ()   # the classes `self` is, when followed from a subclass


class CallableResolver:
    """Resolves the callables an expression may hold, from inside one function."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.project: Project = ctx.project
        self._following: set[tuple] = set()   # calls and attributes being followed, where

    def applies(self, func: ast.expr) -> bool:
        """Only calls through locals, parameters, `self`, containers or getattr are resolved here."""
        root = func
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(root, ast.Call):   # `getattr(self, name)(x)`, `functools.partial(self.f, k)(x)`
            return isinstance(root.func, ast.Name) and root.func.id == "getattr" or root is not func \
                or _wrapped_callable(self.project, root, self.ctx.module) is not None \
                or self._selector(root)
        if not isinstance(root, ast.Name):
            return False
        ctx = self.ctx
        return (root.id == ctx.self_name or root.id in ctx.fn.params
                or root.id in assignments(self.project, ctx.fn) or isinstance(func, ast.Subscript))

    def _selector(self, call: ast.Call) -> bool:
        """`to_mat(kind)(x)`, `self.pick(name)(x)`: a call of what a project function returns (a selector
        returning one of several functions by an if-chain or a table): its returned callables are followed."""
        func = call.func
        if isinstance(func, ast.Name):
            return isinstance(self.project.lookup(self.project.qualify(func, self.ctx.module) or ""), FunctionInfo)
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == self.ctx.self_name and self.ctx.cls is not None \
            and self.project.find_method(self.ctx.cls, func.attr) is not None

    def _resolve(self, func: ast.expr) -> list:
        """What `func` may hold; re-entrant questions about the same expression answer nothing."""
        active = self.project.memo.setdefault(("resolving",), {})   # id(func) -> depth (project.Questions)
        q = questions(self.project)
        if id(func) in active:
            q.cut(active[id(func)])
            return []
        active[id(func)] = q.depth
        try:
            return self._callables(func, Where(self.ctx.module, self.ctx.fn), 0)
        finally:
            del active[id(func)]

    def callees(self, func: ast.expr) -> list[FunctionInfo]:
        """Functions a call of `func` runs (a class held in a value runs its `__init__`)."""
        out: list[FunctionInfo] = []
        for target in self._resolve(func):
            if isinstance(target, ClassInfo):
                target = self.project.find_method(target, "__init__")
            if target is not None and target not in out:
                out.append(target)
        return out

    def held_instances(self, expr: ast.expr) -> set[str]:
        """Classes of the instances a container lookup returns: `self.models.get("policy")`, `nets["actor"]`
        where the container is a literal, a dict a constructor argument passes, or one its site fills."""
        out: set[str] = set()
        where = Where(self.ctx.module, self.ctx.fn)
        for container, container_where, how in self._values(expr, where, 0):
            if how == "value":
                continue
            for item, item_where in self._items(container, container_where, how, 1):
                if isinstance(item, ast.Call):
                    out |= {t for t in self.ctx.call_result_types(item, item_where.module) if ":" in t}
        return out

    def classes(self, func: ast.expr) -> set[str]:
        """Classes `func` may hold (`self.policy_class`, `ALIASES[name]`): what calling it builds."""
        return {t.id for t in self._resolve(func) if isinstance(t, ClassInfo)}

    # ------------------------------------------------------------------ values
    def _callables(self, expr: ast.expr, where: Where, depth: int) -> list[FunctionInfo]:
        if depth > _MAX_DEPTH:
            return []
        out: list[FunctionInfo] = []
        for value, value_where, how in self._values(expr, where, depth):
            out += self._leaf(value, value_where, how, depth + 1)
        return out

    def _values(self, expr: ast.expr, where: Where, depth: int):
        """(expression, where, how) the callee expression may evaluate to, one step back."""
        if isinstance(expr, ast.Name) and where.fn is not None:
            found = assignments(self.project, where.fn).get(expr.id, ())
            if not found and expr.id in where.fn.outer_values:   # an inline range's name bound before it
                return [(where.fn.outer_values[expr.id], Where(where.module, None), "value")]
            if not found and expr.id in where.fn.params:   # `def _run(self, fn, x): fn(x)`: what callers pass
                scope = range_scope(where.module, where.fn)
                if scope is not None and expr.id not in scope.params \
                        and nested_function(self.project, scope, expr.id) is not None:
                    return [(expr, Where(where.module, scope), "value")]   # a closure the range's function defines
                return self._passed(where.fn, expr.id)
            return [(value, where, how) for value, how in found]
        if isinstance(expr, ast.Name) and expr.id not in where.module.imports:   # a script-level name
            bound = module_bindings(self.project, where.module).get(expr.id, ())
            if bound:
                return [(value, where, "value") for value in bound]
        if isinstance(expr, ast.Subscript):
            return [(expr.value, where, f"key:{_constant_key(expr.slice)}")]
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get" \
                and expr.args and isinstance(expr.args[0], ast.Constant):   # `self.models.get("policy")`
            return [(expr.func.value, where, f"key:{_constant_key(expr.args[0])}")]
        return [(expr, where, "value")]

    def _passed(self, fn: FunctionInfo, param: str) -> list[tuple[ast.expr, Where, str]]:
        """(argument, where) for each reachable call of `fn` that passes `param`: a callable handed to a
        helper (`self._run(self.policy.act, obs)`, `apply(normalize, x)`) is what the helper calls.
        Kept for the current outermost question (nothing it reads changes during one: `Questions`), as the
        answers of `resolve_call` are: a helper many callables pass through (`_apply(fn)`) is asked again
        from every call of its parameter."""
        return questions(self.project).answer(("passed", fn.id, param), lambda: self._passed_now(fn, param), (fn,))

    def _passed_now(self, fn: FunctionInfo, param: str) -> list[tuple[ast.expr, Where, str]]:
        out = []
        for caller_id in sorted(self.ctx.facts.callers.get(fn.id, ())):
            module_name, _, qualname = caller_id.partition(":")
            module = self.project.modules.get(module_name)
            caller = module.functions.get(qualname) if module is not None else None
            if caller is None:
                continue
            caller_ctx = self.ctx.for_function(caller)
            for node in caller.nodes:
                if isinstance(node, ast.Call) and fn in caller_ctx.resolve_call(node):
                    arg = passed_argument(fn, node, param)
                    if arg is not None:
                        out.append((arg, Where(module, caller), "value"))
        return out or self._passed_anywhere(fn, param)

    def _passed_anywhere(self, fn: FunctionInfo, param: str) -> list[tuple[ast.expr, Where, str]]:
        """(argument, where) for each call of `fn` anywhere in the project, reached or not: a setter
        (`agent.set_scorer(score)` in a helper that builds the agent) stores what the code that wires the
        pipeline hands it, and the step calls it later through `self`. A call whose receiver resolves to
        other functions is not one of `fn`; an unresolved one counts when no other project class defines
        a method of that name. Tests are not callers: their mocks are not what the application hands over."""
        key = ("passed_anywhere", fn.id, param)
        if key in self.project.memo:
            return self.project.memo[key]
        self.project.memo[key] = []   # re-entrant questions about the same parameter answer nothing
        out = []
        if fn.name == "__init__" and fn.class_name is not None:   # `Scorer(fn=score)`: its construction sites
            cls = self.project.modules[fn.module].classes.get(fn.class_name)
            for site in sites_of(self.project, cls) if cls is not None else ():
                arg = argument_for(fn, site.call, param)
                if arg is not None and not is_test_path(site.module.path):
                    out.append((arg, Where(site.module, enclosing_function(self.project, site.module, site.call)),
                                "value"))
            self.project.memo[key] = out
            return out
        unique = only_definition(self.project, fn)
        for call, _, module in calls_named(self.project).get(fn.name, ()):
            arg = passed_argument(fn, call, param)
            if arg is None or (fn.is_method and not isinstance(call.func, ast.Attribute)) or is_test_path(module.path):
                continue   # a test's mock is not what the application hands over
            caller = enclosing_function(self.project, module, call)
            resolved = self.ctx.for_function(caller).resolve_call(call) if caller is not None else []
            if fn in resolved or (not resolved and unique):
                out.append((arg, Where(module, caller), "value"))
        self.project.memo[key] = out
        return out

    def _leaf(self, value: ast.expr, where: Where, how: str, depth: int) -> list[FunctionInfo]:
        if how != "value":
            return [fn for item, item_where in self._items(value, where, how, depth)
                    for fn in self._leaf(item, item_where, "value", depth + 1)]
        if isinstance(value, (ast.Name, ast.Subscript)) and depth <= _MAX_DEPTH:
            direct = self._reference(value, where)
            if direct:
                return direct
            if isinstance(value, ast.Name):
                return self._follow_name(value, where, depth)
            return self._callables(value, where, depth)
        if isinstance(value, ast.Call):
            return self._follow(self._call_value, value, where, depth)
        if isinstance(value, ast.Lambda):          # `agent.set_cost(lambda a: model.cost(a))`
            return [lambda_function(self.project, where.module, where.fn, value)]
        if isinstance(value, ast.Attribute):
            return self._reference(value, where) or self._follow(self._attribute, value, where, depth)
        return []

    def _follow(self, step, value: ast.expr, where: Where, depth: int) -> list[FunctionInfo]:
        """`step` unless the same value is already being followed in the same place: a value built from
        itself (`self.x = self.make()` where `make` returns `self.x`) holds nothing more on a second lap
        (it used to recurse until the recursion limit and lose the whole function)."""
        key = (id(value), id(where.fn) if where.fn is not None else where.module.name, *map(id, where.receivers))
        if key in self._following:
            return []
        self._following.add(key)
        try:
            return step(value, where, depth)
        finally:
            self._following.discard(key)

    def _follow_name(self, value: ast.Name, where: Where, depth: int) -> list[FunctionInfo]:
        """What a name holds, unless the same name of the same function is already being followed: a
        recursive helper passing its parameter on (`_map(item.start, fn)` inside `_map(obj, fn)`) names
        what its first lap already yields, and following every such call again multiplied the work by
        the number of recursive calls at each lap, up to the depth bound."""
        scope = id(where.fn) if where.fn is not None else where.module.name
        key = ("name", value.id, scope, *map(id, where.receivers))
        if key in self._following:
            return []
        self._following.add(key)
        try:
            return self._callables(value, where, depth)
        finally:
            self._following.discard(key)

    def _items(self, container: ast.expr, where: Where, how: str, depth: int):
        """Elements (`element`), values (`item`, `key:K`) of a container expression."""
        if isinstance(container, ast.Call) and isinstance(container.func, ast.Attribute) \
                and container.func.attr in ("items", "values") and not container.args:
            how = "item" if how in ("element", "item") else how
            container = container.func.value
        if isinstance(container, ast.Name) and where.fn is not None and container.id not in where.fn.params:
            aliases = where.fn.walks.get("global_aliases")
            if aliases is None:   # found once per function: they depend on its code and the module's globals
                aliases = where.fn.walks["global_aliases"] = runtime_bind.global_aliases(where.fn.node, where.module)
            aliased = aliases.get(container.id)
            for table in aliased or [container.id]:   # `HEADS` a decorator registry fills, or a local naming it
                name = self.project.qualify(ast.Name(id=table, ctx=ast.Load()), where.module)
                for member in runtime_bind.registry_members(self.project, name) if name else ():
                    yield ast.Name(id=member.name, ctx=ast.Load()), Where(self.project.modules[member.module], None)
        if isinstance(container, ast.Attribute) and where.fn is not None and how in ("element", "item", "key:"):
            yield from self._filled_items(container, where)   # not under a constant key: it names one item
        for literal, literal_where in self._literals(container, where, depth):
            if isinstance(literal, ast.Dict):
                key = how.partition(":")[2] if how.startswith("key:") else None
                for k, v in zip(literal.keys, literal.values):
                    if key in (None, "") or (isinstance(k, ast.Constant) and str(k.value) == key):
                        yield v, literal_where
            elif isinstance(literal, (ast.List, ast.Tuple, ast.Set)):
                for element in literal.elts:
                    yield element, literal_where
            elif isinstance(literal, (ast.ListComp, ast.GeneratorExp)) and how == "element":
                yield literal.elt, literal_where   # `[build("obs", s) for s in specs]`: what each item is built by

    def _filled_items(self, container: ast.Attribute, where: Where):
        """Items a method of the receiver's class puts into `self.<attr>` (`self.policies.append(policy)` in an
        `add_policy(policy)` the wiring code calls): an item that is the method's parameter is what its
        callers pass."""
        ctx = self.ctx.for_function(where.fn)
        if isinstance(container.value, ast.Name) and container.value.id == ctx.self_name and ctx.cls is not None:
            receivers = where.receivers or tuple(ctx.receiver_classes())
            for klass in (k for cls in receivers for k in self.project.mro(cls)):
                for method, item in stored_items(self.project, klass, container.attr):
                    yield item, Where(self.project.modules[klass.module], klass.methods.get(method), receivers)

    def _literals(self, expr: ast.expr, where: Where, depth: int):
        """Container literals (also inside `nn.ModuleDict({...})`/`dict(...)`) an expression may be."""
        if depth > _MAX_DEPTH:
            return
        if isinstance(expr, (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.ListComp, ast.GeneratorExp)):
            yield expr, where
        elif isinstance(expr, ast.Call) and expr.args and isinstance(expr.args[0], (ast.Dict, ast.List, ast.Tuple)):
            yield expr.args[0], where
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "dict" and expr.keywords:
            yield ast.Dict(keys=[ast.Constant(k.arg) for k in expr.keywords], values=[k.value for k in expr.keywords]), where
        elif isinstance(expr, ast.Name) and where.fn is not None and expr.id in assignments(self.project, where.fn):
            for value, how in assignments(self.project, where.fn)[expr.id]:
                if how == "value":
                    yield from self._literals(value, where, depth + 1)
        elif isinstance(expr, ast.Name) and where.fn is not None and where.fn.name == "__init__" \
                and expr.id in where.fn.params and where.fn.class_name is not None:
            yield from self._constructed_with(expr.id, where, depth)
        elif isinstance(expr, ast.Name) and expr.id in where.module.globals:
            yield from self._literals(where.module.globals[expr.id], Where(where.module, None), depth + 1)
        elif isinstance(expr, ast.Name) and expr.id in where.module.imports:   # `from pkg import ALGOS`
            found = global_value(self.project, where.module.imports[expr.id])
            if found is not None:
                yield from self._literals(found[0], Where(found[1], None), depth + 1)
        elif isinstance(expr, ast.Attribute):
            for value, value_where in self._attribute_values(expr, where):
                yield from self._literals(value, value_where, depth + 1)
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
                and expr.func.attr in SELF_RETURNING_METHODS and isinstance(expr.func.value, ast.Call):
            yield from self._literals(expr.func.value, where, depth + 1)   # `nn.ModuleDict({...}).to(device)`
        elif isinstance(expr, ast.Call) and where.fn is not None:   # `self.chain.table()["bias"]`: what it returns
            for callee in self.ctx.for_function(where.fn).resolve_call(expr):
                if callee.name != "__init__":
                    callee_where = Where(self.project.modules[callee.module], callee)
                    for value in returned_values(self.project, callee):
                        yield from self._literals(value, callee_where, depth + 1)

    def _constructed_with(self, param: str, where: Where, depth: int):
        """Container literals the project's construction sites pass for `param` of this `__init__`
        (`PPO(models={"policy": Policy(...)})`, or a dict the site fills: `models["policy"] = Policy()`)."""
        cls = self.project.modules[where.fn.module].classes.get(where.fn.class_name)
        for site in sites_of(self.project, cls) if cls is not None else ():
            arg = argument_for(where.fn, site.call, param)
            if isinstance(arg, (ast.Dict, ast.List, ast.Tuple)):
                yield arg, Where(site.module, None)
            elif isinstance(arg, ast.Name):
                for value in site.scope.get(arg.id, ()):
                    if isinstance(value, (ast.Dict, ast.List, ast.Tuple)):
                        yield value, Where(site.module, None)
                filled = [n for n in ast.walk(site.module.tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
                          and isinstance(n.targets[0], ast.Subscript) and isinstance(n.targets[0].value, ast.Name)
                          and n.targets[0].value.id == arg.id and isinstance(n.targets[0].slice, ast.Constant)]
                if filled:
                    yield ast.Dict(keys=[n.targets[0].slice for n in filled], values=[n.value for n in filled]), \
                        Where(site.module, None)

    # ------------------------------------------------------------------ leaves
    def _reference(self, value: ast.expr, where: Where) -> list[FunctionInfo]:
        """A function or class named directly: `mdp.joint_pos_rel`, `Actor` (its instances' forward), or a
        function defined inside the function that uses it (a closure a helper returns or stores)."""
        if isinstance(value, ast.Name) and where.fn is not None and value.id in where.fn.params:
            return []
        name = self.project.qualify(value, where.module)
        target = self.project.lookup(name) if name else None
        if target is None and isinstance(value, ast.Name) and where.fn is not None:
            target = nested_function(self.project, where.fn, value.id)
        return [target] if target is not None else []

    def _call_value(self, call: ast.Call, where: Where, depth: int) -> list[FunctionInfo]:
        func = call.func
        wrapped = _wrapped_callable(self.project, call, where.module)
        if wrapped is not None:                    # `torch.compile(self._plan)`: calling it runs `_plan`
            return self._leaf(wrapped, where, "value", depth + 1)
        if isinstance(func, ast.Name) and func.id == "getattr" and len(call.args) >= 2:
            return self._getattr(call, where, depth)
        held = runtime_bind.hydra_callable_values(self.ctx, call, where.module)
        if held:                                   # `get_class(cfg._target_)`, a `_partial_` instantiate
            return held
        if isinstance(func, ast.Attribute) and func.attr in SELF_RETURNING_METHODS and isinstance(func.value, ast.Call):
            return self._follow(self._call_value, func.value, where, depth + 1)   # `Net().to(device)` is the Net
        name = self.project.qualify(func, where.module)
        target = self.project.lookup(name) if name else None
        if isinstance(target, ClassInfo):          # an instance: calling it runs forward / __call__
            run = self.project.call_target(target)
            return [run] if run else []
        if isinstance(target, FunctionInfo):       # a factory or getter: what it returns
            return self._returns(target, depth)
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and where.receivers and where.fn
                and where.fn.positional_params and func.value.id == where.fn.positional_params[0]):
            out = []
            for cls in where.receivers:
                method = self.project.find_method(cls, func.attr)
                if method is not None:
                    out += self._returns(method, depth, where.receivers)
            return out
        ctx = self.ctx.for_function(where.fn) if where.fn is not None else None
        if ctx is None and any(v is call for v in self.ctx.fn.outer_values.values()):
            ctx = self.ctx   # `policy = runner.get_inference_policy()` before an inline range: the range's view
        if ctx is not None:
            out = []
            for callee in ctx.resolve_call(call):
                if callee.name != "__init__":
                    out += self._returns(callee, depth)
                elif callee.class_name is not None:   # `cls(**params)` of a class a registry holds: an instance
                    run = self.project.call_target(self.project.modules[callee.module].classes[callee.class_name])
                    out += [run] if run is not None and run not in out else []
            runs = [r for r in (self.project.call_target(c) for c in map(ctx.class_for_type, ctx.types_of(call))
                                if c is not None) if r is not None]
            if len(runs) > MAX_PICKED and name_pick(self.project, call.func, where.module, where.fn) is not None:
                runs = []   # an instance of one of many classes picked by name: not guessed (listed)
            return out + runs
        return []

    def property_callees(self, getter: FunctionInfo, receivers: tuple) -> list[FunctionInfo]:
        """What calling the value a `@property` returns runs: a bound method, or the function a wrapper
        (`torch.compile`, `functools.partial`) holds."""
        out: list[FunctionInfo] = []
        for fn in self._returns(getter, 0, receivers):
            if fn is not getter and fn not in out:
                out.append(fn)
        return out

    def _returns(self, fn: FunctionInfo, depth: int, receivers: tuple = ()) -> list[FunctionInfo]:
        where = Where(self.project.modules[fn.module], fn, receivers)
        out = []
        for value in returned_values(self.project, fn):
            out += self._leaf(value, where, "value", depth + 1)
        return out

    def _getattr(self, call: ast.Call, where: Where, depth: int) -> list[FunctionInfo]:
        owner = self._owner_classes(call.args[0], where)
        pattern = _name_pattern(call.args[1], where, self.ctx, depth)
        if pattern is None:
            return []
        out = []
        for cls in owner:
            for klass in self.project.mro(cls):
                out += [m for n, m in klass.methods.items() if pattern.fullmatch(n) and m not in out]
        return out

    def property_getters(self, call: ast.Call) -> list[FunctionInfo]:
        """`getattr(self.body, what)` with the name a constant, or a parameter every caller passes a constant
        string: the `@property` getters the read runs (a read of a plain field or a method runs nothing)."""
        where = Where(self.ctx.module, self.ctx.fn)
        pattern = _name_pattern(call.args[1], where, self.ctx, 0)
        if pattern is None:
            return []
        out: list[FunctionInfo] = []
        for cls in self._owner_classes(call.args[0], where):
            for klass in self.project.mro(cls):
                out += [m for n, m in klass.methods.items() if pattern.fullmatch(n) and is_property(m) and m not in out]
        return out

    def _owner_classes(self, expr: ast.expr, where: Where) -> list[ClassInfo]:
        if where.fn is self.ctx.fn:
            if isinstance(expr, ast.Name) and expr.id == self.ctx.self_name:
                return self.ctx.receiver_classes()
            return [c for c in (self.ctx.class_for_type(t) for t in self.ctx.types_of(expr)) if c is not None]
        return []

    def _attribute(self, value: ast.Attribute, where: Where, depth: int) -> list[FunctionInfo]:
        """`obj.meth` as a value: a bound method of a typed receiver, or what a field holds."""
        out = []
        if where.fn is not None:
            ctx = self.ctx.for_function(where.fn)
            if isinstance(value.value, ast.Name) and value.value.id == ctx.self_name and ctx.cls is not None:
                for cls in where.receivers or (ctx.cls,):   # `self._plan`: a bound method of the receiver
                    method = self.project.find_method(cls, value.attr)
                    if method is not None and method not in out:
                        out.append(method)
            types = ctx.types_of(value.value)
            if not types and isinstance(value.value, ast.Name):   # a function not analysed: `gate = Gate()`
                types = {t for built in where.fn.assigned(value.value.id) if isinstance(built, ast.Call)
                         for t in ctx.call_result_types(built, where.module)}
            for type_name in types:
                cls = ctx.class_for_type(type_name)
                method = self.project.find_method(cls, value.attr) if cls else None
                if method is not None:
                    out.append(method)
        if out:
            return out
        for stored, stored_where in self._attribute_values(value, where):
            out += self._leaf(stored, stored_where, "value", depth + 1)
        return out

    def _attribute_values(self, value: ast.Attribute, where: Where):
        """Values assigned to `self.<attr>` in the receiver's classes, else stored under the field name."""
        if where.fn is not None:
            ctx = self.ctx.for_function(where.fn)
            if isinstance(value.value, ast.Name) and value.value.id == ctx.self_name and ctx.cls is not None \
                    and self.project.find_method(ctx.cls, value.attr) is None:
                found = False
                receivers = where.receivers or tuple(ctx.receiver_classes())
                for cls in receivers:
                    for klass in self.project.mro(cls):
                        module = self.project.modules[klass.module]
                        for method, stored in klass.attr_values.get(value.attr, ()):
                            if isinstance(stored, ast.Constant):   # `self.on_step = None` until registered
                                continue
                            found = True
                            yield stored, Where(module, klass.methods.get(method), receivers)
                        if value.attr in klass.class_attrs:
                            found = True
                            yield klass.class_attrs[value.attr], Where(module, None)
                            break
                if found:
                    return
            held = list(self._held_values(ctx, value))
            if held:
                yield from held
                return
        for stored, module in field_stores(self.project).get(value.attr, ()):
            yield stored, Where(module, None)

    def _held_values(self, ctx, value: ast.Attribute):
        """`self.spec.make`, `chain.stages` with the owner of a known project class whose `make` is a field,
        not a method: the values its class's methods assign to `self.make` (a registry lookup in
        `__post_init__`, a `functools.partial`, a list of instances)."""
        if isinstance(value.value, ast.Name) and value.value.id == ctx.self_name:
            return
        for type_name in sorted(ctx.types_of(value.value)):
            owner = ctx.class_for_type(type_name)
            if owner is None or self.project.find_method(owner, value.attr) is not None:
                continue
            for klass in self.project.mro(owner):
                module = self.project.modules[klass.module]
                for method, stored in klass.attr_values.get(value.attr, ()):
                    if not isinstance(stored, ast.Constant):
                        yield stored, Where(module, klass.methods.get(method), (owner,))
                if value.attr in klass.class_attrs:
                    yield klass.class_attrs[value.attr], Where(module, None)


def _wrapped_callable(project: Project, call: ast.Call, module: ModuleIndex) -> ast.expr | None:
    """The callable a wrapper call returns wrapped (CALLABLE_WRAPPERS): its first argument, or for
    `functools.wraps(f)(g)` the wrapper `g`."""
    func = call.func
    if isinstance(func, ast.Call) and call.args:   # `functools.wraps(f)(g)`, `torch.no_grad()(f)`
        name = project.qualify(func.func, module)
        return call.args[0] if name and project.external_name(name) in CALLABLE_WRAPPERS else None
    name = project.qualify(func, module)
    if not name or not call.args or project.external_name(name) not in CALLABLE_WRAPPERS:
        return None
    return call.args[0]


def _constant_key(expr: ast.expr) -> str:
    return str(expr.value) if isinstance(expr, ast.Constant) else ""
