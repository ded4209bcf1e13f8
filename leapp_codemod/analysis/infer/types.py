"""Type questions about one function: which project classes (or dotted library names) an expression may hold."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.loaded import is_range, loaded_before, loader_result
from leapp_codemod.analysis.infer.memo import answered_once
from leapp_codemod.analysis.model.config_values import ruled_out_in
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.project import questions
from leapp_codemod.analysis.model.resolve_callables import CallableResolver, returned_builds
from leapp_codemod.analysis.model.resolve_sites import argument_for, sites_of
from leapp_codemod.analysis.model.argument_types import method_returns
from leapp_codemod.analysis.model.picked_by_name import name_pick, picked_classes
from leapp_codemod.analysis.model.returned_classes import built_classes, unpacked_classes
from leapp_codemod.analysis.model.resolve_types import (
    annotation_classes, builds_own_class, foreign_annotations, foreign_class, subclasses,
)
from leapp_codemod.analysis.model import runtime_bind
from leapp_codemod.analysis.model.class_state import stored_items
from leapp_codemod.analysis.model.handed_stores import stores_on
from leapp_codemod.analysis.model.subclass_sites import class_keyword
from leapp_codemod.analysis.model.library_built import library_built_classes
from leapp_codemod.analysis.model.walk import is_self_attr, self_returned
from leapp_codemod.knowledge.libraries import PIL_IMAGE_RESULTS
from leapp_codemod.knowledge.vocab import CONTAINER_MODULES, SELF_RETURNING_METHODS


# A PIL image's size fields: the image's shape (fixed by the camera), never its pixels.
IMAGE_SIZE_ATTRS = frozenset({"size", "width", "height", "mode"})


class TypeQuestions:
    """Mixin of `FunctionContext`: types of expressions, attributes, parameters and returns."""

    def image_size(self, e: ast.Attribute) -> bool:
        """`image.size`, `image.width` of a PIL image."""
        return e.attr in IMAGE_SIZE_ATTRS and any(t.startswith("PIL.") for t in self.types_of(e.value))

    def types_of(self, e: ast.expr | None) -> set[str]:
        """Qualified types an expression may hold: project classes as 'module:Class', else a dotted callee."""
        if e is None:
            return set()
        if ("bindings",) in self.project.memo:
            bound = runtime_bind.bound_types(self, e)
            if bound:
                return bound
        if isinstance(e, ast.Name):
            if e.id in self.env.types:
                return self.env.types[e.id]
            if e.id in self.module.globals or e.id in self.module.rebound_globals:
                return self.global_types(self.module, e.id)
            declared = foreign_annotations(self.project, self.fn, self.module).get(e.id)
            if declared:
                return {declared}   # `log: DopplerLog` from a package that is not installed
            return loaded_before(self, e.id) if is_range(self.fn) or ".<locals>." in self.fn.qualname \
                else set()   # `model = PPO.load(p)` before the range, or in the function around a closure
        return self._compound_types(e)

    @answered_once
    def _compound_types(self, e: ast.expr) -> set[str]:
        if isinstance(e, ast.Attribute):
            if is_self_attr(e, self.self_name) and self.cls is not None:
                return set().union(*(self.attr_types(c, e.attr) for c in self.receiver_classes()))
            out: set[str] = set()
            for type_name in self.types_of(e.value):     # `self.alg.policy`: an attribute of a typed object
                cls = self.class_for_type(type_name)
                if cls is not None:
                    out |= self.attr_types(cls, e.attr)
            return out
        if isinstance(e, ast.Call):
            if isinstance(e.func, ast.Attribute) and e.func.attr in PIL_IMAGE_RESULTS \
                    and any(t.startswith("PIL.") for t in self.types_of(e.func.value)):
                return {"PIL.Image.Image"}   # `frame.crop(...)`: a new image
            out = self.call_result_types(e, self.module)
            if not any(":" in t for t in out) and isinstance(e.func, ast.Attribute):
                for callee in self.resolve_call(e):
                    if callee.name != "__init__":
                        out |= self.return_types(callee)
                if not any(":" in t for t in out) and not isinstance(e.func.value, ast.Name):
                    out |= self._built_by_held_class(e.func)
            elif not any(":" in t for t in out) and isinstance(e.func, ast.Name) and ("duck",) in self.project.memo \
                    and self._is_local(e.func):
                out |= CallableResolver(self).classes(e.func)   # `cls = get_class(...)`; `cls(cfg)`
            return out
        if isinstance(e, ast.Subscript) and not isinstance(e.slice, ast.Slice):
            return self.element_types(e.value)   # `self.sensors[k]`: an item of a container of objects
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
            cls = self.class_for_type(class_id)
            method = self.project.find_method(cls, func.attr) if cls else None
            if method is not None and self._builds_own_class(method):
                out.add(class_id)
        return out

    def call_result_types(self, call: ast.Call, module: ModuleIndex) -> set[str]:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in SELF_RETURNING_METHODS and isinstance(func.value, ast.Call):
            return self.call_result_types(func.value, module)
        if isinstance(func, ast.Call) and ("duck",) in self.project.memo:   # `eval(cfg.head.network)(...)`
            named = runtime_bind.config_named(self, func, module)
            if named:
                return {c.id for c in named if isinstance(c, ClassInfo)}
        picked = name_pick(self.project, func, module, self.fn if module is self.module else None) \
            if ("duck",) in self.project.memo else None
        if picked is not None:   # `cls = getattr(robots, cfg.robot)`; `cls(...)`: a class picked by name
            return picked_classes(self.project, picked, self.fn if module is self.module else None)
        if isinstance(func, ast.Subscript):  # a parametrized generic: `Window[float](8)` builds a Window
            func = func.value
        if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in ("instantiate", "call") \
                or runtime_bind.own_instantiate(self.project, self.project.qualify(func, module)):
            built = runtime_bind.hydra_result_types(self, call, module)
            if built is not None:
                return built
        if isinstance(func, ast.Call):   # `getattr(rigs, cfg.kind)(...)`: a class the module holds
            return self._module_attr_classes(func, module)
        if isinstance(func, ast.Name) and module is self.module:   # `cls: type[Pipeline] = ...`; `cls(cfg)`
            declared = self._declared_class_types(func.id)
            if declared:
                return declared
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

    def _module_attr_classes(self, call: ast.Call, module: ModuleIndex) -> set[str]:
        """`getattr(pkg, name)` on a project module: the class named by a constant, else every class the
        module defines or imports (the one chosen at run time is among them)."""
        if not (isinstance(call.func, ast.Name) and call.func.id == "getattr" and len(call.args) >= 2):
            return set()
        owner = self.project.qualify(call.args[0], module)
        held = self.project.modules.get(owner) if owner else None
        if held is None:
            return set()
        key = call.args[1]
        names = [key.value] if isinstance(key, ast.Constant) and isinstance(key.value, str) \
            else [*held.classes, *held.imports]
        found = (self.project.lookup(f"{owner}.{n}") if n in held.classes else
                 self.project.lookup(held.imports[n]) if n in held.imports else None for n in names)
        return {c.id for c in found if isinstance(c, ClassInfo)}

    def _declared_class_types(self, name: str) -> set[str]:
        """`pipeline_class: type[RlBase] = ...` in this function: calling the name builds that class."""
        declared = self.fn.walks.get("class annotations")
        if declared is None:   # name -> its first `name: type[...]` annotation, indexed once per function
            declared = self.fn.walks["class annotations"] = {}
            for node in self.fn.nodes:
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                        and isinstance(node.annotation, ast.Subscript) and node.target.id not in declared:
                    head = node.annotation.value
                    if (head.attr if isinstance(head, ast.Attribute) else getattr(head, "id", "")) in ("type", "Type"):
                        declared[node.target.id] = node.annotation
        annotation = declared.get(name)
        return annotation_classes(self.project, annotation.slice, self.module) if annotation is not None else set()

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
            out: set[str] = {"PIL.Image.Image"} if any(
                _image_in(v, fn, self, 0) for v in _image_returns(fn, module)) else set()
            ruled_out = ruled_out_in(self.project, module, fn.node) \
                if not self.project.is_library(fn.module) else frozenset()   # an arm the settings never take
            for value in returned_builds(self.project, fn):   # `m = Model(); ...; return m` too
                if isinstance(value, ast.Call) and id(value) not in ruled_out:
                    built = self.call_result_types(value, module)
                    if not any(":" in t for t in built) and isinstance(value.func, ast.Subscript):
                        built = CallableResolver(self.for_function(fn)).classes(value.func) or built  # `HEADS[k]()`
                    elif not any(":" in t for t in built) and isinstance(value.func, ast.Attribute):
                        built = loader_result(self.for_function(fn), value.func, fn) or built   # `cls.load(p)`
                    out |= built
            return out
        finally:
            del q.guards[guard]

    @answered_once
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
                for method, value in _branches(klass.attr_values.get(attr, ())):
                    if method in klass.methods and not self.project.is_library(klass.module) \
                            and id(value) in ruled_out_in(self.project, module, klass.methods[method].node):
                        continue   # `if args.filter == "smooth": self.filter = Smooth()` under `--filter pass`
                    if isinstance(value, ast.Call):
                        built = self.call_result_types(value, module)
                        if not any(":" in t for t in built) and method in klass.methods:
                            resolver = CallableResolver(self.for_function(klass.methods[method]))
                            held = resolver.held_instances(value) if isinstance(value.func, ast.Attribute) \
                                and value.func.attr == "get" else set()   # `self.models.get("policy")`
                            built = held or resolver.classes(value.func) \
                                or built  # keep a library type (`lcm.LCM`) when no project class builds it
                        if not any(":" in t for t in built) and isinstance(value.func, ast.Attribute) \
                                and isinstance(value.func.value, ast.Name) and value.func.value.id == "self":
                            own = self.project.find_method(klass, value.func.attr)   # `self.get_policy(path)`
                            built |= self.return_types(own) if own is not None and own.name != "__init__" else set()
                            nested = module.classes.get(f"{klass.id.partition(':')[2]}.{value.func.attr}")
                            built |= {nested.id} if nested is not None else set()   # `self.imu = self.IMU()`
                        if is_self_attr(value.func, "self") and value.func.attr == attr:
                            built |= self._stored_callable_results(klass, attr, module)   # `self.f = self.f(n)`
                        if not any(":" in t for t in built) and isinstance(value.func, ast.Attribute) \
                                and method in klass.methods:   # `self.dist.build_state(n)`, `codec.make(n)`
                            built |= self._held_method_returns(klass, klass.methods[method], value.func)
                        out |= built
                    elif isinstance(value, ast.Name) and method in klass.methods:
                        out |= self.param_value_types(klass.methods[method], value.id)
                        # `net, opt = build(cfg); self.net = net`: item 0 of what `build` returns
                        out |= unpacked_classes(self.project, klass.methods[method], value.id, module)
                    elif isinstance(value, ast.Attribute) and method in klass.methods:
                        out |= self._param_field_types(klass.methods[method], value)
                        if is_self_attr(value, "self") and value.attr != attr:   # `self.pi_head = self.head`
                            out |= self.attr_types(cls, value.attr)
                    moved = self_returned(value)   # `self.net = network.eval().to(device)`
                    if moved is not value and not any(":" in t for t in out) and method in klass.methods \
                            and isinstance(moved, ast.Name):
                        out |= self.param_value_types(klass.methods[method], moved.id)
                        out |= self._local_built(klass.methods[method], moved.id, module)
                if attr in klass.class_attrs and isinstance(klass.class_attrs[attr], ast.Call):
                    out |= self.call_result_types(klass.class_attrs[attr], module)
                if not declared and attr in klass.attr_annotations:
                    declared = annotation_classes(self.project, klass.attr_annotations[attr], module)
            if self.project.is_library(cls.module):   # `agent.policy = Head()` after `agent = PPO(...)`
                out |= self._stored_types(cls, attr)
            if not out and not declared:   # `self.model` a library base builds from `ModelCls`
                out = library_built_classes(self.project, cls, attr)
            if not out and not declared:   # `filt: LowPass | None` from a package neither scanned nor installed
                declared = self._declared_outside(cls, attr)
            if any(":" in t for t in out) and all(self._derives_from_any(t, declared) for t in out if ":" in t):
                return out   # `self.f: Filter = build(cfg.f)`: the subclasses built, not every one declared
            return out | declared
        finally:
            del q.guards[guard]

    def _stored_types(self, cls: ClassInfo, attr: str) -> set[str]:
        """What the project's own code stores into `<obj>.<attr>` of a library object of class `cls`."""
        out: set[str] = set()
        for store, where in stores_on(self, cls, attr):
            if where is not None:
                out |= {t for t in where.types_of(store.value) if ":" in t}
            elif isinstance(store.value, ast.Call):
                out |= {t for t in self.call_result_types(store.value, store.module) if ":" in t}
        return out

    def _declared_outside(self, cls: ClassInfo, attr: str) -> set[str]:
        """The class an attribute's annotation names, when the package it comes from is absent: its methods
        run (listed as not followed), not a project class's that shares a method name."""
        for klass in self.project.mro(cls):
            if attr in klass.attr_annotations:
                found = foreign_class(self.project, klass.attr_annotations[attr], self.project.modules[klass.module])
                return {found} if found else set()
        return set()

    def _stored_callable_results(self, klass: ClassInfo, attr: str, module: ModuleIndex) -> set[str]:
        """`self.net = eval(net_name)` then `self.net = self.net(width)`: what calling the classes or functions
        the configs name for the first value builds."""
        out: set[str] = set()
        for method, value in klass.attr_values.get(attr, ()):
            if isinstance(value, ast.Call) and method in klass.methods:
                for found in runtime_bind.config_named(self.for_function(klass.methods[method]), value, module) or ():
                    out |= {found.id} if isinstance(found, ClassInfo) else self.return_types(found)
        return out

    def _held_method_returns(self, klass: ClassInfo, fn: FunctionInfo, func: ast.Attribute) -> set[str]:
        """What `self.<held>.<method>(...)` or `<param>.<method>(...)` in `fn` returns, for each project class
        the receiver may hold."""
        receiver = func.value
        if is_self_attr(receiver, "self"):
            held = self.attr_types(klass, receiver.attr)
        elif isinstance(receiver, ast.Name) and receiver.id in fn.params:
            held = self.param_value_types(fn, receiver.id)
        else:
            return set()
        out: set[str] = set()
        for type_name in sorted(held):
            owner = self.class_for_type(type_name)
            found = self.project.find_method(owner, func.attr) if owner is not None else None
            if found is not None and found.name != "__init__":
                out |= self.return_types(found)
        return out

    def _param_field_types(self, fn: FunctionInfo, value: ast.Attribute) -> set[str]:
        """`self.noise = cfg.noise` with `cfg` a typed parameter: the project classes the field's class
        declares or assigns for it (`noise: NoiseCfg | None` in the config class)."""
        chain: list[str] = []
        root: ast.expr = value
        while isinstance(root, ast.Attribute):
            chain.insert(0, root.attr)
            root = root.value
        if not isinstance(root, ast.Name) or root.id not in fn.params or len(chain) > 3:
            return set()
        types = {t for t in self.param_value_types(fn, root.id) if ":" in t}
        for attr in chain:
            classes = [c for c in (self.class_for_type(t) for t in types) if c is not None]
            types = {t for c in classes for t in self.attr_types(c, attr) if ":" in t}
        return types

    def _derives_from_any(self, type_id: str, declared: set[str]) -> bool:
        cls = self.class_for_type(type_id)
        bases = {c.id for c in self.project.mro(cls)} if cls is not None else set()
        return bool(declared) and bool(bases & declared)

    def _local_built(self, fn: FunctionInfo, name: str, module: ModuleIndex) -> set[str]:
        """`model = build_model(cfg); self.model = model.cuda()`: the project classes the local was built as."""
        out: set[str] = set()
        for value in fn.assigned(name):
            if isinstance(value, ast.Call):
                out |= {t for t in self.call_result_types(value, module) if ":" in t}
        return out

    def param_value_types(self, fn: FunctionInfo, param: str) -> set[str]:
        """What a method parameter may hold: its annotation, what reachable callers pass and, for
        `__init__`, what every instantiation site in the project passes."""
        arg = next((a for a in (*fn.node.args.posonlyargs, *fn.node.args.args, *fn.node.args.kwonlyargs)
                    if a.arg == param), None)
        if arg is None:
            return set()
        declared = annotation_classes(self.project, arg.annotation, self.project.modules[fn.module])
        out = set(self.facts.param_types.get(fn.id, {}).get(param, set()))
        if fn.name == "__init__" and fn.class_name is not None:
            cls = self.project.modules[fn.module].classes.get(fn.class_name)
            sites = sites_of(self.project, cls) if cls is not None else []
            built: list[set[str]] = []
            for site in sites:
                value = argument_for(fn, site.call, param)
                if value is not None:
                    built.append(self.expr_types_in_scope(value, site.module, site.scope))
                    out |= built[-1]
                elif self.project.is_library(fn.module) and class_keyword(site.call, param) is not None:
                    named = self.project.class_of(self.project.qualify(class_keyword(site.call, param), site.module))
                    out |= {named.id} if named is not None else set()   # `features_extractor_class=Lidar`
            if declared and sites and len(built) == len(sites) and not out - declared \
                    and all(any(":" in t for t in b) for b in built):
                declared = set()   # every construction passes one of the declared classes: those it builds
            if cls is not None and ("hydra_targets",) in self.project.memo:
                out |= runtime_bind.hydra_argument_types(self, cls, param)
                out |= runtime_bind.hydra_keyword_types(self, cls, param)
            for sub_init, passed in _super_init_passes(self.project, cls, fn) if cls is not None else ():
                value = argument_for(fn, passed, param)
                if isinstance(value, ast.Name) and value.id in sub_init.params:
                    out |= self.param_value_types(sub_init, value.id)   # `super().__init__(cfg, swarm)`
        return out | declared

    def expr_types_in_scope(self, e: ast.expr, module: ModuleIndex, scope: dict, depth: int = 0) -> set[str]:
        if isinstance(e, ast.Call):
            out = self.call_result_types(e, module)
            if not any(":" in t for t in out) and isinstance(e.func, ast.Attribute) and depth < 4:
                out |= method_returns(self, self.expr_types_in_scope(e.func.value, module, scope, depth + 1), e.func.attr)
            return out   # `Loader(dev).load_model(args)`: what the method of the receiver's class returns
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Call):   # `net, stats = load(path)`
            return built_classes(self.project, e, module)
        if isinstance(e, ast.Name) and depth < 4:
            if e.id in scope:
                return set().union(*(self.expr_types_in_scope(v, module, scope, depth + 1) for v in scope[e.id]))
            return self.global_types(module, e.id)
        return set()

    def element_types(self, e: ast.expr | None) -> set[str]:
        """Project types of the items of an nn.ModuleList / nn.Sequential / nn.ModuleDict expression, or of a
        list, tuple or dict attribute of self built from a literal or a comprehension."""
        values: list[tuple[ast.expr, ModuleIndex]] = []
        if is_self_attr(e, self.self_name) and self.cls is not None:
            for klass in self.project.mro(self.cls):
                module = self.project.modules[klass.module]
                values += [(v, module) for _, v in klass.attr_values.get(e.attr, ())]
                values += [(ast.List(elts=[v]), module) for _, v in stored_items(self.project, klass, e.attr)]
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and not e.args \
                and e.func.attr in ("values", "items"):
            return self.element_types(e.func.value)   # `self.legs.values()`: the dict's values
        elif isinstance(e, ast.Subscript) and not isinstance(e.slice, ast.Slice):
            return self._annotated_items(e)   # `self.buffers[group]`: a dict of dicts
        elif isinstance(e, ast.Call):
            values.append((e, self.module))
        elif isinstance(e, ast.Name) and (e.id not in self.fn.params or e.id in self.fn.outer_values):
            # `hists = [History(n) for n in dims]` here, or before an inline range: a local list of objects
            bound = [*self.fn.assigned(e.id)]
            if e.id in self.fn.outer_values:
                bound.append(self.fn.outer_values[e.id])
            values += [(v, self.module) for v in bound if _literal_items(v) is not None]
        out: set[str] = self._annotated_items(e) if values else set()
        for value, module in values:
            literal = _literal_items(value)
            if literal is not None:   # `self.terms = [Term(a), Term(b)]`, `{k: Sensor(k) for k in names}`
                out |= {t for item in literal if isinstance(item, ast.Call)
                        for t in self.call_result_types(item, module)}
                continue
            if not isinstance(value, ast.Call):
                continue
            name = self.project.qualify(value.func, module)
            if not name or self.project.external_name(name) not in CONTAINER_MODULES:
                continue
            for arg in value.args:
                arg = arg.value if isinstance(arg, ast.Starred) else arg   # `nn.Sequential(*[Block(d) for ...])`
                items = arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg.elt] if isinstance(
                    arg, (ast.ListComp, ast.GeneratorExp)) else [arg]
                for item in items:
                    if isinstance(item, ast.Call):
                        out |= self.call_result_types(item, module)
        return {t for t in out if ":" in t}

    def _annotated_items(self, e: ast.expr) -> set[str]:
        """Project classes of the items of `self.x`, `self.x[k]`, ... as the attribute's annotation declares them
        (`self.bufs: dict[str, dict[str, Ring]]`: the items of `self.bufs[g]` are Rings)."""
        depth, base = 1, e
        while isinstance(base, ast.Subscript) and not isinstance(base.slice, ast.Slice):
            depth, base = depth + 1, base.value
        if not is_self_attr(base, self.self_name) or self.cls is None:
            return set()
        for klass in self.project.mro(self.cls):
            annotation = klass.attr_annotations.get(base.attr)
            if annotation is None:
                continue
            for _ in range(depth):
                annotation = _item_annotation(annotation)
            return annotation_classes(self.project, annotation, self.project.modules[klass.module])
        return set()

    def global_types(self, module: ModuleIndex, name: str) -> set[str]:
        """What a module global may hold: its module-level binding, and what functions that declare it `global`
        bind it to (`client = None` at the top, `global client; client = SportClient()` in `main`)."""
        values = [module.globals.get(name), *module.rebound_globals.get(name, ())]
        return set().union(*(self.call_result_types(v, module) for v in values if isinstance(v, ast.Call)))


def _super_init_passes(project, cls: ClassInfo, init: FunctionInfo):
    """(subclass `__init__`, its `super().__init__(...)` call) for the direct subclasses that hand their
    own arguments on to `init`."""
    for sub in subclasses(project, cls):
        own = sub.methods.get("__init__")
        if own is None or project.find_method(cls, "__init__") is not init \
                or not any(isinstance(b, ClassInfo) and b.id == cls.id for b in project.bases(sub)):
            continue
        for node in own.nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__" \
                    and isinstance(node.func.value, ast.Call) and isinstance(node.func.value.func, ast.Name) \
                    and node.func.value.func.id == "super":
                yield own, node


def _item_annotation(annotation: ast.expr | None) -> ast.expr | None:
    """The item type a container annotation declares: `V` of `dict[K, V]`/`Mapping[K, V]`, `T` of `list[T]`,
    `Sequence[T]`, `tuple[T, ...]`; None for anything else."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if not isinstance(annotation, ast.Subscript):
        return None
    head = annotation.value.attr if isinstance(annotation.value, ast.Attribute) else getattr(annotation.value, "id", "")
    inner = annotation.slice
    items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
    if head.lower() in ("dict", "mapping", "mutablemapping", "ordereddict", "defaultdict") and len(items) == 2:
        return items[1]
    if head.lower() in ("list", "sequence", "mutablesequence", "tuple", "deque", "iterable") and items:
        return items[0]
    return None


def _literal_items(value: ast.expr) -> list[ast.expr] | None:
    """The items a list/tuple/set/dict literal or comprehension builds (dict values), else None."""
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return [v.value if isinstance(v, ast.Starred) else v for v in value.elts]
    if isinstance(value, ast.Dict):
        return [v for v in value.values if v is not None]
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return [value.elt]
    if isinstance(value, ast.DictComp):
        return [value.value]
    return None


def _branches(values):
    """(method, value) pairs with `a if c else b` split into its two values."""
    for method, value in values:
        while isinstance(value, ast.IfExp):
            yield method, value.body
            value = value.orelse
        yield method, value


def _image_returns(fn: FunctionInfo, module: ModuleIndex) -> tuple[ast.expr, ...]:
    """The returned values that may be PIL images: an image method's result anywhere, any value in a module that
    imports PIL (indexed once per function)."""
    found = fn.walks.get("image_returns")
    if found is None:
        pil = any(t == "PIL" or t.startswith("PIL.") for t in module.imports.values())
        found = fn.walks["image_returns"] = tuple(
            r.value for r in fn.nodes if isinstance(r, ast.Return) and r.value is not None and (
                pil or isinstance(r.value, ast.Call) and isinstance(r.value.func, ast.Attribute)
                and r.value.func.attr in PIL_IMAGE_RESULTS))
    return found


def _image_in(value: ast.expr | None, fn: FunctionInfo, ctx, depth: int) -> bool:
    """Does `fn` return a PIL image here: an image method (`box.resize(...)`) of a local made by one, of a PIL
    call or of a parameter callers hand an image (`return frame.crop(...).resize(...)`)?"""
    if value is None or depth > 6:
        return False
    if isinstance(value, ast.Name):
        if value.id in fn.params:
            return any(t.startswith("PIL.") for t in ctx.param_value_types(fn, value.id))
        return any(_image_in(v, fn, ctx, depth + 1) for v in fn.assigned(value.id))
    if not isinstance(value, ast.Call):
        return False
    name = ctx.project.qualify(value.func, ctx.project.modules[fn.module])
    if name and ctx.project.external_name(name).startswith("PIL."):
        return True
    return isinstance(value.func, ast.Attribute) and value.func.attr in PIL_IMAGE_RESULTS \
        and _image_in(value.func.value, fn, ctx, depth + 1)
