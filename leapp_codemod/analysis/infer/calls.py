"""Call questions about one function: which project functions a call may run."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.loaded import is_range
from leapp_codemod.analysis.infer.memo import answered_once
from leapp_codemod.analysis.model import config_picked, import_shapes, runtime_bind
from leapp_codemod.analysis.model.call_fit import fitting
from leapp_codemod.analysis.model.world_steps import WRAPPED_CALLS_KEY
from leapp_codemod.analysis.model.library_built import library_built_classes
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo
from leapp_codemod.analysis.model.resolve_callables import CallableResolver
from leapp_codemod.analysis.model.resolve_types import is_abstract, overrides
from leapp_codemod.analysis.model.walk import is_property, is_self_attr
from leapp_codemod.analysis.model.world_steps import world_step_calls
from leapp_codemod.knowledge.vocab import DATA_METHOD_NAMES
from leapp_codemod.observe.merge import function_by_id, observed_callees


class CallQuestions:
    """Mixin of `FunctionContext`: call resolution and dispatch on the receiver."""

    def receiver_classes(self) -> list[ClassInfo]:
        """The concrete classes this method runs on, when the callers tell; else its own class."""
        known = self.facts.receivers.get(self.fn.id, set())
        if not known or "?" in known:
            return [self.cls] if self.cls is not None else []
        return [c for c in (self.class_for_type(t) for t in sorted(known)) if c is not None] or [self.cls]

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


    @answered_once
    def resolve_call(self, call: ast.Call) -> list[FunctionInfo]:
        """Project functions a call may run (empty for library calls), with those observed running from it."""
        if is_range(self.fn) and id(call) in world_step_calls(self.fn.node, self.fn.walks):
            return []   # an inline range's step of the world: where its action leaves, not pipeline code
        wrapped = self.project.memo.get(WRAPPED_CALLS_KEY, {}).get((self.fn.path, call.lineno, call.col_offset)) \
            if is_range(self.fn) else None
        if wrapped is not None:
            return [wrapped]   # the project environment's step the range keeps, seen through `Monitor(env)`
        found = fitting(self._through_properties(call, self._resolve_static(call)) or self._from_enclosing(call), call)
        observed = self.facts.observed
        if observed is None:
            return found
        seen = [fn for fn in (function_by_id(self.project, fid)
                              for fid in observed_callees(observed, self.fn.id, self.fn.node, call))
                if fn is not None]
        extra = [fn for fn in seen if fn not in found]
        if extra and not found:
            observed.resolved.add((self.fn.id, call.lineno))
        if len(found) > 1 and seen and {fn.id for fn in seen} < {fn.id for fn in found}:
            observed.resolved.add((self.fn.id, call.lineno))
            return seen     # several classes were possible; the run showed which one this call runs
        return found + extra

    def world_step_targets(self, call: ast.Call) -> list[FunctionInfo]:
        """The project functions an inline range's step of the world would run (`self.env.step(a)` of a
        project environment), which `resolve_call` leaves out on purpose."""
        return fitting(self._resolve_static(call), call)

    def _from_enclosing(self, call: ast.Call) -> list[FunctionInfo]:
        """A call in a closure (a nested `def`, a lambda) that names the enclosing function's variables
        (`self.score(a)` in a closure of a method): what the enclosing function resolves it to."""
        outer, sep, _ = self.fn.qualname.rpartition(".<locals>.")
        enclosing = self.module.functions.get(outer) if sep else None
        if enclosing is None or enclosing is self.fn:
            return []
        return self.for_function(enclosing).resolve_call(call)

    def _through_properties(self, call: ast.Call, found: list[FunctionInfo]) -> list[FunctionInfo]:
        """`self.plan(obs)` with `plan` a `@property`: the call runs what the getter returns (a bound method,
        `torch.compile(self._plan)`, a `functools.partial`), not the getter; nothing when that stays unknown
        (the call is then listed as not followed)."""
        func = call.func
        if not isinstance(func, ast.Attribute) or not any(f.name == func.attr and is_property(f) for f in found):
            return found
        receivers = tuple(self.receiver_classes()) if is_self_attr(func, self.self_name) else ()
        out: list[FunctionInfo] = []
        for fn in found:
            run = CallableResolver(self).property_callees(fn, receivers) if is_property(fn) else [fn]
            out += [f for f in run if f not in out]
        return out

    def _resolve_static(self, call: ast.Call) -> list[FunctionInfo]:
        func = call.func
        project = self.project
        if isinstance(func, ast.IfExp):   # `(soften if flat else gust)(x)`: either arm may run
            out: list[FunctionInfo] = []
            for arm in (func.body, func.orelse):
                twin = ast.copy_location(ast.Call(func=arm, args=call.args, keywords=call.keywords), call)
                out += [f for f in self._resolve_static(twin) if f not in out]
            return out
        if ("bindings",) in project.memo:
            bound = runtime_bind.bound_callable(self, func)
            if bound is not None:
                runtime_bind.record(project, call, self.fn.path, [bound], "bound with --bind")
                return [bound]
        if isinstance(func, ast.Attribute):
            receiver = func.value
            if (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super"
                    and self.cls is not None):
                for klass in project.mro(self.cls)[1:]:
                    if func.attr in klass.methods:
                        return [klass.methods[func.attr]]
                if func.attr == "__call__":   # a library base's `__call__` (nn.Module's) runs the instance's forward
                    return self._own_call_target(through_call=False)
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
            for type_name in sorted(self.types_of(receiver)):
                cls = self.class_for_type(type_name)
                method = project.find_method(cls, func.attr) if cls else None
                if method is not None:
                    found.append(method)
                elif cls is not None and (hook := project.library_hook(cls, func.attr)) is not None:
                    found.append(hook[0])
                    runtime_bind.record(project, call, self.fn.path, [hook[0]],
                                        f"the library base `{hook[1]}` runs the project override `{hook[0].name}`")
                if method is not None and is_abstract(method):  # a declared base type: an override runs
                    found += [m for m in overrides(project, cls, func.attr) if m not in found]
            if found and ("bindings",) in project.memo and runtime_bind.bound_types(self, receiver):
                runtime_bind.record(project, call, self.fn.path, found, "bound with --bind / [tool.leapp-codemod.bind]")
            if found and ("duck",) in project.memo and all(is_abstract(m) for m in found):
                found = self._implementations(call, found) or found   # a stub is never the answer
            if found and (choice := config_picked.picked(self, receiver)) is not None:
                return config_picked.follow(self, call, found, choice)   # picked by name: which, and how
            if found:
                return found
        elif isinstance(func, ast.Name) and func.id == self.self_name and self.cls is not None \
                and func.id not in self.env.types:
            own = self._own_call_target(through_call=True)
            if own:
                return own
        else:
            typed = isinstance(func, ast.Name) and (func.id in self.env.types or func.id in self.fn.outer_values or (
                func.id in self.module.globals and func.id not in self.fn.params and not self._is_local(func)))
            # a local, a name bound before a range, a global; bound to several classes, it may run any of them
            targets: list[FunctionInfo] = []
            for type_name in sorted(self.types_of(func)) if typed else ():
                cls = self.class_for_type(type_name)
                target = project.call_target(cls) if cls else None
                if target is not None and target not in targets:
                    targets.append(target)
            if targets and (choice := config_picked.picked(self, func)) is not None:
                return config_picked.follow(self, call, targets, choice)   # `net(x)`, `net` picked by name
            if targets:
                return targets
        if isinstance(func, ast.Attribute) and is_self_attr(func, self.self_name) and self.cls is not None:
            out = []
            attr_types = set().union(*(self.attr_types(c, func.attr) for c in self.receiver_classes()))
            for type_name in attr_types | self.element_types(func):
                cls = self.class_for_type(type_name)
                target = project.call_target(cls) if cls else None
                if target is not None:
                    out.append(target)
            if out and (choice := config_picked.picked(self, func)) is not None:
                return config_picked.follow(self, call, out, choice)   # `self.actor(x)`, picked by name
            if out:
                built = set().union(*(library_built_classes(project, c, func.attr) for c in self.receiver_classes()))
                if built and built >= attr_types:
                    runtime_bind.record(project, call, self.fn.path, out, "the library base builds "
                                        f"`self.{func.attr}` from the class the project names")
                return out
        if isinstance(func, ast.Attribute) and not is_self_attr(func, self.self_name):
            out = self._held_attribute_targets(func)   # `self.perception.head(x)`: a module the object holds
            if out:
                return out
        if isinstance(func, ast.Subscript) and not isinstance(func.slice, ast.Slice):
            out = []   # `self.noise_models[name](obs)`: the items' class, as built or annotated, is called
            for type_name in self.element_types(func.value):
                cls = self.class_for_type(type_name)
                target = project.call_target(cls) if cls else None
                if target is not None and target not in out:
                    out.append(target)
            if out:
                return out
        built = config_picked.constructed(self, call)   # `cls(...)` of a class picked by name
        if built is not None:
            return built
        resolver = CallableResolver(self)
        if isinstance(func, ast.Name) and len(call.args) in (2, 3) and self.builtin(call) == "getattr":
            return resolver.property_getters(call)   # `getattr(obj, "tilt")` runs the getter of a property
        if resolver.applies(func):
            dynamic = resolver.callees(func)
            if dynamic:
                return dynamic
        if isinstance(func, ast.Attribute) and ("duck",) in project.memo:
            duck = self._duck_typed(call)
            if duck:
                return duck
        imported = import_shapes.imported_callees(self, call)   # import alternatives, `import_module("m")`
        if imported:
            return imported
        if self._is_local(func):
            return []
        name = project.qualify(func, self.module)
        target = project.lookup(name) if name else None
        if isinstance(target, ClassInfo):
            init = project.find_method(target, "__init__")
            return [init] if init else []
        return [target] if isinstance(target, FunctionInfo) else []

    def _held_attribute_targets(self, func: ast.Attribute) -> list[FunctionInfo]:
        """`obj.head(x)` with `obj` of a known project class whose `head` is an attribute, not a method:
        what calling the object stored there runs (its class's forward or `__call__`)."""
        out: list[FunctionInfo] = []
        for type_name in self.types_of(func.value):
            owner = self.class_for_type(type_name)
            if owner is None or self.project.find_method(owner, func.attr) is not None:
                continue
            for held in sorted(self.attr_types(owner, func.attr)):
                cls = self.class_for_type(held)
                target = self.project.call_target(cls) if cls else None
                if target is not None and target not in out:
                    out.append(target)
        return out

    def _own_call_target(self, through_call: bool) -> list[FunctionInfo]:
        """What calling the instance itself runs (`self(obs)`, `super().__call__(obs)`): for each class the
        method runs on, its project `__call__` (not through `super()`), else its `forward`: the instance is
        callable, so a base outside the project (nn.Module, a framework's module class) provides `__call__`."""
        out: list[FunctionInfo] = []
        for klass in self.receiver_classes():
            target = self.project.find_method(klass, "__call__") if through_call else None
            if target is None:   # no project `__call__`: a library base provides it, and runs forward
                target = self.project.find_method(klass, "forward")
            if target is not None and target is not self.fn and target not in out:
                out.append(target)
        return out

    def _implementations(self, call: ast.Call, stubs: list[FunctionInfo]) -> list[FunctionInfo]:
        """A declared type whose method is only a stub (a Protocol, an ABC with no subclass in the project):
        the few project classes that implement the method (recorded as duck typing)."""
        found = [m for m in runtime_bind.duck_callees(self, call) if not is_abstract(m)]
        if found:
            declared = ", ".join(sorted({s.id.rpartition(".")[0] for s in stubs}))
            runtime_bind.record(self.project, call, self.fn.path, found,
                                f"duck typing: {declared} only declares `{call.func.attr}`; the project classes "
                                "that implement it")
        return found

    def _duck_typed(self, call: ast.Call) -> list[FunctionInfo]:
        """`recv.meth(...)` on a receiver of unknown class (not a module, not data, no known type): the few
        project classes that define `meth` (entry mode only; recorded as duck typing)."""
        receiver = call.func.value
        root = receiver
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.module.imports and root.id not in self.fn.params:
            return []
        if isinstance(receiver, ast.Name) and receiver.id == self.self_name:
            return []   # `self.generate(...)` its class does not define: a library base class's, not another class's
        found = runtime_bind.duck_callees(self, call)
        if not found or self.types_of(receiver) or self.is_numpy(receiver):
            return []
        if self.is_data(receiver) and not self._object_parameter(call.func):
            return []
        names = ", ".join(sorted(f.id.rpartition(".")[0] for f in found))
        runtime_bind.record(self.project, call, self.fn.path, found,
                            f"duck typing: the project classes that define `{call.func.attr}` ({names})")
        return found

    def _object_parameter(self, func: ast.Attribute) -> bool:
        """`vla.predict_action(...)` with `vla` a parameter: an entry's parameters are taken as pipeline data,
        but a method no tensor, array or container answers to says the parameter is an object whose code runs."""
        receiver = func.value
        return isinstance(receiver, ast.Name) and receiver.id in self.fn.params and receiver.id != self.self_name \
            and func.attr not in DATA_METHOD_NAMES and not func.attr.endswith("_")

    def class_for_type(self, type_name: str) -> ClassInfo | None:
        """The project class a type name (`module:Class`) names, or None."""
        if ":" not in type_name:
            return None
        module, _, qual = type_name.partition(":")
        mod = self.project.modules.get(module)
        return mod.classes.get(qual) if mod else None
