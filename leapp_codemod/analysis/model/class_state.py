"""What a class's own code says about its attributes, before any dataflow runs.

* Callback inputs: attributes a callback method (a subscriber handler, a thread target) writes.
  The step reads them as values that change between calls, so they are pipeline inputs.
* Constant tensors: tensor attributes set at construction and never written again (a gain, a
  normalization mean). Their values are the same on every call, so Python logic on them
  (`.item()`, a branch) is not a hazard.
"""
from __future__ import annotations

import ast
import re
from dataclasses import replace

from leapp_codemod.analysis.model.attr_sources import ClassFacts, class_sources
from leapp_codemod.analysis.model.index import ClassInfo, called_name
from leapp_codemod.analysis.model.provenance import Provenance, Sources
from leapp_codemod.analysis.model.read_only import reads_only
from leapp_codemod.knowledge.io import CLOCK_FACTORIES, CLOCK_FUNCTIONS, LIVE_STATE_CONSTRUCTORS
from leapp_codemod.knowledge.vocab import (
    CONTAINER_MUTATORS, FIELD_CLASS_BASES, INPLACE_EXCEPTIONS, PURE_METHODS, SIZE_TAKING_METHODS,
    TENSOR_LIBRARY_NAMES,
)

CONSTRUCTION_METHODS = frozenset({"__init__", "__post_init__", "__setstate__"})
_CALLBACK_NAME = re.compile(r"^(on_|handle_|_on_|_handle_)|(callback|_cb|handler)$", re.IGNORECASE)
# ... unless it installs, fetches or makes one: `set_handler(h)`, `register_callback(cb)`, `get_handler()`
_ACCESSOR_NAME = re.compile(r"^_?(set|get|register|unregister|add|remove|attach|detach|bind|install|make|create|"
                            r"build)_", re.IGNORECASE)


def _self_name(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    args = fn.args.posonlyargs + fn.args.args
    return args[0].arg if args else None


def _self_attr(expr: ast.expr, self_name: str | None) -> str | None:
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == self_name:
        return expr.attr
    return None


def _root_attr(expr: ast.expr, self_name: str | None) -> str | None:
    """`self.a` under any subscripts and chained in-place calls: `self.a[0]`, `self.a.mul_(2)`."""
    while True:
        if isinstance(expr, ast.Subscript):
            expr = expr.value
        elif (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
              and expr.func.attr.endswith("_") and not expr.func.attr.endswith("__")):
            expr = expr.func.value
        else:
            return _self_attr(expr, self_name)


def callback_methods(cls: ClassInfo) -> set[str]:
    """Methods handed to someone else to call (`subscribe(topic, self.on_msg)`, `Thread(target=self.loop)`)
    or named like a handler (`on_state`, `lowstate_callback`)."""
    names = set(cls.methods)
    out = {n for n in names if n not in CONSTRUCTION_METHODS and _CALLBACK_NAME.search(n)
           and not _ACCESSOR_NAME.match(n)}
    for info in cls.methods.values():
        self_name = _self_name(info.node)
        for node in info.nodes:
            if isinstance(node, ast.Call):
                for arg in (*node.args, *(k.value for k in node.keywords)):
                    attr = _self_attr(arg, self_name)
                    if attr in names:
                        out.add(attr)
    return out


def live_state_attrs(cls: ClassInfo, qualify) -> set[str]:
    """Attributes holding an object a simulator or driver refreshes between calls (`self.data =
    mujoco.MjData(model)`): the step reads its fields as inputs although no code of the class writes them.
    `qualify` maps a call's function expression to its dotted external name."""
    return {attr for attr, values in cls.attr_values.items()
            if any(isinstance(value, ast.Call) and qualify(value.func) in LIVE_STATE_CONSTRUCTORS for _, value in values)}


def live_state_globals(module, qualify) -> set[str]:
    """Module globals bound to such an object, at module level or by a function that declares them `global`
    (`global data; data = mujoco.MjData(model)`): a step reads their fields as inputs, as for attributes."""
    live = lambda value: isinstance(value, ast.Call) and qualify(value.func) in LIVE_STATE_CONSTRUCTORS  # noqa: E731
    out = {name for name, value in module.globals.items() if live(value)}
    if not any(isinstance(n, ast.Global) for n in module.nodes):
        return out   # no function declares a global: walking each function (twice) finds nothing
    for fn in (n for n in module.nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        declared = {name for g in ast.walk(fn) if isinstance(g, ast.Global) for name in g.names}
        out |= {t.id for a in ast.walk(fn) if isinstance(a, ast.Assign) and live(a.value)
                for t in a.targets if isinstance(t, ast.Name) and t.id in declared}
    return out


def _container_root(target: ast.expr) -> ast.expr:
    """`self.cmd[0]` and `self.cmd["vx"][1]` write into `self.cmd`."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return target


def message_params(cls: ClassInfo, method: str) -> set[str]:
    """The message parameter of a subscription callback (`def on_scan(self, msg)`: a callback method with one
    parameter besides self); empty for any other method."""
    info = cls.methods.get(method)
    if info is None or method not in callback_methods(cls):
        return set()
    params = [a.arg for a in (*info.node.args.posonlyargs, *info.node.args.args)[1:]]
    return set(params) if len(params) == 1 else set()


def message_attrs(cls: ClassInfo) -> set[str]:
    """Attributes a subscription callback stores its message, or a part of it, in (`self.scan = msg`,
    `self.imu = msg.imu_state`)."""
    out: set[str] = set()
    for name in callback_methods(cls):
        message = message_params(cls, name)
        if not message:
            continue
        self_name = _self_name(cls.methods[name].node)
        for node in cls.methods[name].nodes:
            if isinstance(node, ast.Assign) and _rooted_at(node.value, message):
                out |= {a for a in (_self_attr(t, self_name) for t in node.targets) if a}
    return out


def _rooted_at(value: ast.expr, names: set[str]) -> bool:
    while isinstance(value, (ast.Attribute, ast.Subscript)):
        value = value.value
    return isinstance(value, ast.Name) and value.id in names


def callback_inputs(cls: ClassInfo, entries: frozenset[str] = frozenset(), own_code: bool = True,
                    facts: ClassFacts | None = None, project=None) -> set[str]:
    """Attributes callback code fills with data (`self.cmd = msg.v`, `self.q = self.arm.read()`, `self.cmd[0] +=
    0.1` under `if msg.up:`, `arm.joints.q[i] = q` with `self.arm` passed as `arm`), and objects on self it hands
    data to (`self.remote.set(msg.wireless_remote)`: their state comes from the message). What data is, is the
    provenance of `analysis/model/provenance.py`: writes of constants, settings, clocks or an attribute's own
    arithmetic (a tick counter) fill nothing. Callback code is a callback method and the methods it calls on
    self, except `entries` (a thread loop that calls the step: the step's own writes are not inputs). In an installed library's class (`own_code` false) only the callback methods
    themselves and their direct writes count: its handlers and helpers are the library's bookkeeping, not the
    application's inputs."""
    callbacks = callback_methods(cls)
    closure = _callback_closure(cls, entries) if own_code else {name: {} for name in callbacks}
    facts = facts or ClassFacts(_clock_call(cls), _constant_like, clock_attr, lambda klass: set())
    sources = class_sources(project, cls, facts) if project is not None else _no_project_sources(facts)
    root = _written_root if own_code else lambda t, self_name, bound: _self_attr(_container_root(t), self_name)
    return Provenance(cls, closure, callbacks, sources, root).attributes()


def _clock_call(cls: ClassInfo):
    return lambda call: _clock_stamp(call, cls, "self")


def _no_project_sources(facts: ClassFacts) -> Sources:
    """Without the project (a class on its own): every method of an object on self may read an input."""
    return Sources(lambda attr, method: True, lambda attr: False, facts.clock, facts.constant_like)


def _callback_closure(cls: ClassInfo, entries: frozenset[str]) -> dict[str, dict[str, str]]:
    """Callback methods and the methods of self they call (transitively, entries left out), each with its
    parameters bound to attributes of self by the call (`self._fill(self.arm)`: `arm` is `self.arm`)."""
    found: dict[str, dict[str, str]] = {name: {} for name in callback_methods(cls)}
    pending = list(found)
    while pending:
        name = pending.pop()
        info = cls.methods[name]
        self_name = _self_name(info.node)
        for node in info.nodes:
            callee = _self_attr(node.func, self_name) if isinstance(node, ast.Call) else None
            if callee is None or callee not in cls.methods or callee in found or callee in entries \
                    or callee in CONSTRUCTION_METHODS:
                continue
            params = [a.arg for a in (*cls.methods[callee].node.args.posonlyargs, *cls.methods[callee].node.args.args)[1:]]
            bound = {p: attr for p, attr in zip(params, (_self_attr(a, self_name) for a in node.args)) if attr}
            found[callee] = bound
            pending.append(callee)
    return found


def _written_root(target: ast.expr, self_name: str | None, bound: dict[str, str]) -> str | None:
    """The attribute of self a write lands in: `self.a`, `self.a[i]`, `self.a.b.c[j]`, or a parameter bound
    to `self.a` (`arm.joints.q[i]`)."""
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
            return target.attr
        target = target.value
    if isinstance(target, ast.Name) and target.id in bound:
        return bound[target.id]
    return None


def _constant_like(value: ast.expr) -> bool:
    """A constant, a negated one, a named constant (`TRACK`, `Mode.HOLD`) or a toggled flag (`not self.running`):
    a mode a handler selects, not a value that flows into the pipeline."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not) and isinstance(value.operand, ast.Attribute) \
            and isinstance(value.operand.value, ast.Name):
        return True
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Name):
        return value.id.isupper()
    return isinstance(value, ast.Attribute) and value.attr.isupper() and isinstance(value.value, ast.Name)


def _clock_stamp(value: ast.expr, cls: ClassInfo | None = None, self_name: str | None = None) -> bool:
    """`self.last_msg_time = rospy.Time.now()`, `self.stamp = time.monotonic()`, `self.get_clock().now()`,
    `self.clock.now()` of a clock the class keeps (`self.clock = self.get_clock()`): when a message arrived,
    host timing for a watchdog or a rate limit, not a value of the message."""
    if not isinstance(value, ast.Call):
        return False
    func = ast.unparse(value.func)
    if func in CLOCK_FUNCTIONS or func.endswith(".get_clock().now"):
        return True
    holder = _self_attr(value.func.value, self_name) if isinstance(value.func, ast.Attribute) \
        and value.func.attr == "now" and cls is not None else None
    return holder is not None and clock_attr([cls], holder)


def clock_attr(classes: list[ClassInfo], attr: str) -> bool:
    """Is `self.<attr>` a clock object (`self.clock = self.get_clock()`, `ROSClock()`) in every binding the
    classes give it?"""
    values = [value for cls in classes for _, value in cls.attr_values.get(attr, ())]
    return bool(values) and all(isinstance(v, ast.Call) and called_name(v.func) in CLOCK_FACTORIES for v in values)


# Tensor and array methods that never change what they are given (a size, an index, an operand). Generic names
# a project object may define with another meaning (`normalize`, `sample`, `update`) are not among them.
ARGUMENT_KEEPING_METHODS = (PURE_METHODS | SIZE_TAKING_METHODS) - CONTAINER_MUTATORS


def mutated_attrs(cls: ClassInfo, module=None, setup: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """Attributes written outside construction, mutated in place anywhere, or handed to a helper
    that may mutate them (not to a tensor or array method, `values.topk(self.k)`: it changes no argument; not
    to a helper of the class's `module` that only reads it, `_extract(self.table, t)`)."""
    construction = CONSTRUCTION_METHODS | setup   # `setup`: the class's `setup_methods`
    out = {attr for attr, writes in cls.attr_values.items()
           if any(method not in construction for method, _ in writes)}
    for info in cls.methods.values():
        fn = info.node
        self_name = _self_name(fn)
        if fn.name in construction - CONSTRUCTION_METHODS:
            continue     # a setup helper fills what it builds, as the constructor does
        for node in info.nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                method = node.func.attr
                if (method.endswith("_") and not method.endswith("__")) or method in CONTAINER_MUTATORS:
                    attr = _root_attr(node.func.value, self_name)
                    if attr:
                        out.add(attr)
                if fn.name not in CONSTRUCTION_METHODS and not _library_call(node.func) \
                        and method not in ARGUMENT_KEEPING_METHODS:   # `scores.topk(self.k)` changes no `self.k`
                    out |= {a for a in (_self_attr(x, self_name) for x in node.args) if a}
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and fn.name not in CONSTRUCTION_METHODS:
                helper = module.functions.get(node.func.id) if module is not None else None
                out |= {a for i, a in enumerate(_self_attr(x, self_name) for x in node.args)
                        if a and not reads_only(helper, i, module.imports if module is not None else {}, node.func.id)}
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                    for elt in elts:
                        attr = _root_attr(elt, self_name) if isinstance(elt, ast.Subscript) else None
                        if attr:
                            out.add(attr)
    return out


def methods_called_outside(project) -> frozenset[str]:
    """Names of methods the application's code calls on an object other than its own self (`self.ref.reset()`,
    `env.reset()`); once per project."""
    key = ("methods_called_outside",)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = frozenset(
            node.func.attr for name, module in list(project.modules.items()) if not project.is_library(name)
            for node in module.nodes if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("self", "cls")))
    return found


def setup_methods(cls: ClassInfo, called_outside: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """Methods of self the constructor calls (`self._load_policy(path)` in `__init__`, transitively) that no other
    method of the class calls, nothing is handed (not a callback) and no code calls on another object by name
    (`called_outside`: `self.ref.reset()` elsewhere makes `reset` a method the run calls again): their writes
    build the object, as the constructor's own do (a gain table loaded from a checkpoint's config is set once)."""
    def callees(info) -> set[str]:
        self_name = _self_name(info.node)
        return {callee for node in info.nodes if isinstance(node, ast.Call)
                for callee in [_self_attr(node.func, self_name)] if callee in cls.methods}

    if not any(callees(cls.methods[name]) for name in CONSTRUCTION_METHODS & set(cls.methods)):
        return set()    # the constructor calls no method of its own
    calls = {name: callees(info) for name, info in cls.methods.items()}
    found = set()
    pending = [c for name in CONSTRUCTION_METHODS & set(calls) for c in calls[name]]
    while pending:
        name = pending.pop()
        if name not in found and name not in CONSTRUCTION_METHODS:
            found.add(name)
            pending.extend(calls[name])
    handed = callback_methods(cls)
    changed = True
    while changed:   # a helper another (non-setup) method calls too runs later as well
        outside = {c for name, callees in calls.items() if name not in found and name not in CONSTRUCTION_METHODS
                   for c in callees}
        keep = {name for name in found if name not in outside and name not in handed and name not in called_outside}
        changed, found = keep != found, keep
    return found


def _library_call(func: ast.Attribute) -> bool:
    root = func.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and root.id in TENSOR_LIBRARY_NAMES



def tensor_items(cls: ClassInfo, tensor_like) -> set[str]:
    """Dict/list attributes whose items are arrays or tensors (`self.history[key] = np.zeros((1, n, d))`):
    writes into those items change what the next call reads, like writes into a tensor attribute."""
    containers = {attr for attr, values in cls.attr_values.items()
                  if any(isinstance(v, (ast.Dict, ast.List, ast.DictComp, ast.ListComp))
                         or (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("dict", "list"))
                         for _, v in values)}
    if not containers:
        return set()
    out = set()
    for fn in cls.methods.values():
        for node in ast.walk(fn.node):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute) \
                        and target.value.attr in containers and isinstance(target.value.value, ast.Name) \
                        and target.value.value.id == "self" and tensor_like(node.value):
                    out.add(target.value.attr)
    return out


def foreign_writes(module) -> set[str]:
    """Attribute names the module's code writes on another object (`self.state.q = q.copy()`,
    `state.cmd[0] = axis`, `hub.level += x`, `self.est.cov.mul_(a)`): what a driver, a thread or a callback fills in a shared object
    that the step reads (constants left out: a flag set once is a setting)."""
    out: set[str] = set()
    for node in module.nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_") \
                and not node.func.attr.endswith("__") and node.func.attr not in INPLACE_EXCEPTIONS:
            target = node.func.value   # `self.est.cov.mul_(0.9)`: an in-place op on another object's tensor
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Attribute) and not (isinstance(target.value, ast.Name)
                                                          and target.value.id in ("self", "cls")):
                out.add(target.attr)
            continue
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            if isinstance(node.value, ast.Constant):
                continue
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                while isinstance(target, ast.Subscript):
                    target = target.value
                if isinstance(target, ast.Attribute) and not isinstance(target.value, ast.Name):
                    out.add(target.attr)        # `self.state.q`, `robot.state.q`
                elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id not in ("self", "cls"):
                    out.add(target.attr)        # `state.q` on a local or a parameter
    return out


def with_inherited(project, cls: ClassInfo) -> ClassInfo:
    """The class with the methods it inherits from project bases (its own win): a handler a base class
    defines is registered by the subclass (`Listener(on_press=self.on_key)`)."""
    bases = project.mro(cls)[1:]
    if not bases:
        return cls
    methods = {name: fn for klass in reversed(bases) for name, fn in klass.methods.items()}
    return replace(cls, methods={**methods, **cls.methods})


def inputs_from_callbacks(project, cls: ClassInfo, entries: frozenset[str]) -> set[str]:
    """`callback_inputs` of a class: with the handlers it inherits for the application's own classes, the
    direct ones only for an installed library's."""
    key = ("inputs_from_callbacks", cls.id, entries)
    found = project.memo.get(key)
    if found is None:
        project.memo[key] = set()     # a class whose objects read each other is not proven by itself
        own = not project.is_library(cls.module)
        found = project.memo[key] = callback_inputs(with_inherited(project, cls) if own else cls, entries,
                                                    own_code=own, facts=_class_facts(project, cls), project=project)
    return set(found)


def _class_facts(project, cls: ClassInfo) -> ClassFacts:
    return ClassFacts(_clock_call(cls), _constant_like, clock_attr,
                      lambda klass: inputs_from_callbacks(project, klass, frozenset()))


def attribute_sources(project, cls: ClassInfo) -> Sources:
    """Which objects on self `cls` reads inputs from (`attr_sources.class_sources`)."""
    return class_sources(project, cls, _class_facts(project, cls))


def class_constants(family: list[ClassInfo], assigned_outside) -> dict[str, set]:
    """`debug: bool = False` in a class body (of the class, a base or a subclass) that no method assigns and
    nothing else does (`assigned_outside(attr)`: an object, a `setattr`): a class constant like a module-level
    `DEBUG = False`, so `if self.debug:` is decided. The values every class of the family gives it (a subclass may override the literal). In a
    decorated class (`@dataclass`) or a record class (`NamedTuple`, ...) such a line is a constructor field."""
    values: dict[str, set] = {}
    varying: set[str] = set()
    for klass in family:
        fields = bool(klass.node.decorator_list) or any(
            ast.unparse(b).rsplit(".", 1)[-1] in FIELD_CLASS_BASES for b in klass.base_exprs)
        for attr, value in klass.class_attrs.items():
            if not fields and isinstance(value, ast.Constant) and isinstance(value.value, (bool, int)):
                values.setdefault(attr, set()).add(value.value)
            else:
                varying.add(attr)
    return {f"self.{attr}": found for attr, found in values.items()
            if attr not in varying and not any(attr in k.attr_values for k in family)
            and not assigned_outside(attr)}


def stored_items(project, cls: ClassInfo, attr: str) -> list[tuple[str, ast.expr]]:
    """(method, value) of each item the class's own code puts into the container `self.<attr>`:
    `self.encoders[key] = Encoder(...)`, `self.layers.append(nn.Linear(...))` (indexed once per class)."""
    key = ("stored_items", cls.id)
    index = project.memo.get(key)
    if index is None:
        index = {}
        for info in cls.methods.values():
            self_name = _self_name(info.node)
            for node in info.nodes:
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Subscript):
                            name = _self_attr(target.value, self_name)
                            if name is not None:
                                index.setdefault(name, []).append((info.name, node.value))
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr in ("append", "insert") and node.args:
                    name = _self_attr(node.func.value, self_name)
                    if name is not None:
                        index.setdefault(name, []).append((info.name, node.args[-1]))
            for name, items in _filled_locals(info, self_name).items():
                index.setdefault(name, []).extend((info.name, item) for item in items)
        project.memo[key] = index
    return index.get(attr, [])


def _filled_locals(info, self_name: str | None) -> dict[str, list[ast.expr]]:
    """`heads = nn.ModuleDict()`, `heads[name] = enc` in a loop, then `self.heads = heads`: the items the
    method puts into a local container it stores as `self.<attr>` -> attr: those items, a local item read
    back to what the method assigned it (`enc = SonarEncoder(...)`)."""
    stored = {}
    for node in info.nodes:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            for target in node.targets:
                name = _self_attr(target, self_name)
                if name is not None:
                    stored[node.value.id] = name
    if not stored:
        return {}
    out: dict[str, list[ast.expr]] = {}
    for node in info.nodes:
        if isinstance(node, ast.Assign):
            items = [(t.value, node.value) for t in node.targets if isinstance(t, ast.Subscript)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("append", "insert") and node.args:
            items = [(node.func.value, node.args[-1])]
        else:
            continue
        for container, item in items:
            if isinstance(container, ast.Name) and container.id in stored:
                values = info.assigned(item.id) if isinstance(item, ast.Name) else ()
                out.setdefault(stored[container.id], []).extend(values or [item])
    return out
