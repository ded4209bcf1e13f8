"""Values something else fills between the step's calls: what code registered to run outside the step writes.

A subscription callback stores the latest message (`self.js = msg`), a keyboard listener's handler bumps a
command (`def on_press(key): self.cmd[0] += 0.1` handed to `Listener(on_press=on_press)`), a thread polls a socket
into an attribute (`Thread(target=self._rx)`), a signal handler or a viewer key callback sets a module global
(`global SPEED; SPEED += 0.1`, `signal.signal(SIGUSR1, bump)`). The step reads those values; under a trace they
are no input of the boundary.

Registered code is found by its registration (`knowledge.io.OUTSIDE_REGISTRARS`, `OUTSIDE_KEYWORDS`): a method of
self handed over, a function defined in a method and handed over (a closure over self), a module-level function
handed over anywhere in its module. Methods of the class also count when `class_state.inputs_from_callbacks`
finds callback code filling them with data (its provenance: constants, settings, clocks and counters fill
nothing). Each filled name keeps the first write, for the finding's related location.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.model.class_state import (
    CONSTRUCTION_METHODS,
    callback_methods,
    inputs_from_callbacks,
    with_inherited,
)
from leapp_codemod.analysis.model.index import ClassInfo, ModuleIndex
from leapp_codemod.knowledge.io import (
    CLOCK_FUNCTIONS,
    COROUTINE_SCHEDULERS,
    OPERATOR_KEYWORDS,
    OPERATOR_REGISTRARS,
    OUTSIDE_KEYWORDS,
    OUTSIDE_REGISTRAR_SUFFIXES,
    OUTSIDE_REGISTRARS,
)
from leapp_codemod.knowledge.vocab import WRITING_METHODS

_WRITES = (ast.Assign, ast.AugAssign, ast.AnnAssign)


@dataclass(frozen=True)
class Fill:
    """Where registered code writes a name the step may read."""

    name: str        # the attribute of self, or the module global
    module: str      # the writer's module
    path: str
    line: int
    column: int      # 0-based byte offset
    writer: str      # the function that writes it: a method name, `method.<handler>`, or a module function
    writer_id: str   # its function id ("" for a handler defined inside a method: never the step itself)
    scope: str = ""  # for a local of a function a handler it defines writes (a closure): that function's id


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def handed_functions(call: ast.Call) -> list[ast.expr]:
    """What a call hands over to be run later: every argument of a registering call (`Thread(target=f)`,
    `signal.signal(SIGINT, f)`, `RxServer(addr, f)`), the registering keywords of any call
    (`Listener(on_press=f)`, `launch_passive(m, d, key_callback=f)`)."""
    name = _call_name(call)
    if name in OUTSIDE_REGISTRARS or name.endswith(OUTSIDE_REGISTRAR_SUFFIXES):
        handed = [*call.args, *(k.value for k in call.keywords)]
    else:
        handed = [k.value for k in call.keywords if k.arg in OUTSIDE_KEYWORDS]
    out = []
    for arg in handed:
        if isinstance(arg, ast.Lambda) and isinstance(arg.body, ast.Call):
            arg = arg.body.func          # `lambda k: self.on_key(k)`
        if isinstance(arg, ast.Call) and _call_name(arg) == "partial" and arg.args:
            arg = arg.args[0]            # `functools.partial(on_key, state)`
        elif isinstance(arg, ast.Call) and name in COROUTINE_SCHEDULERS:
            arg = arg.func               # `asyncio.create_task(self._pump())`: the coroutine function runs
        out.append(arg)
    return out


def operator_methods(cls: ClassInfo) -> set[str]:
    """Methods of self handed to a registration an operator's action triggers (`Listener(on_press=self.on_key)`,
    `signal.signal(SIGUSR1, self.faster)`): their writes are an operator's input whatever they store."""
    out = set()
    for info in cls.methods.values():
        me = _self_name(info.node)
        for call in (n for n in info.nodes if isinstance(n, ast.Call)):
            operator = _call_name(call) in OPERATOR_REGISTRARS or any(k.arg in OPERATOR_KEYWORDS for k in call.keywords)
            for arg in handed_functions(call) if operator else ():
                if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == me \
                        and arg.attr in cls.methods:
                    out.add(arg.attr)
    return out


def _self_name(fn: ast.AST) -> str | None:
    args = getattr(fn, "args", None)
    params = (*args.posonlyargs, *args.args) if args is not None else ()
    return params[0].arg if params else None


def _root(target: ast.expr, self_name: str | None) -> str | None:
    """The attribute of self a write lands in: `self.a`, `self.a[i]`, `self.a.b`."""
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
            return target.attr
        target = target.value
    return None


def _into_held_field(target: ast.expr, self_name: str | None) -> bool:
    """`self.a.f = v`, `self.a.f[i] = v`: a write into a field of the object `self.a` holds (`object_fills`'s, per
    field), not of the attribute itself; `self.a[i] = v` writes into the attribute's value."""
    child = None
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
            return isinstance(child, ast.Attribute)
        child, target = target, target.value
    return False


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]


def _own_nodes(fn: ast.AST):
    """The nodes of a function's body, not into the functions it defines (a lambda's body is one expression)."""
    body = getattr(fn, "body", ())
    pending = list(body) if isinstance(body, list) else [body]
    while pending:
        node = pending.pop(0)
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))


def _self_writes(fn: ast.AST, self_name: str | None) -> list[tuple[str, ast.AST]]:
    """(attribute, node) of each write into an attribute of self: an assignment (`self.a = v`, `self.a[i] += v`;
    `self.a.f = v` is a write into the field of the object held, `object_fills`'s)
    or a call that writes into the object (`self.queue.put(q)`, `self.buf.append(v)`, `self.q.copy_(x)`). Any
    other method call on it (`self.env.get_commands(c)`, `self.names.index(n)`) writes nothing of the attribute
    itself: what the called method writes is `object_fills`'s."""
    out = []
    for node in _own_nodes(fn):
        if isinstance(node, _WRITES) and getattr(node, "value", None) is not None:
            out += [(attr, node) for attr in (_root(t, self_name) for t in _targets(node)
                                              if not _into_held_field(t, self_name)) if attr]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (node.args or node.keywords) \
                and (node.func.attr in WRITING_METHODS or node.func.attr.endswith("_")):
            receiver = node.func.value
            if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) \
                    and receiver.value.id == self_name:
                out.append((receiver.attr, node))
    return out


def _self_calls(fn: ast.AST, self_name: str | None) -> set[str]:
    return {n.func.attr for n in _own_nodes(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id == self_name}


def _nested_handlers(cls: ClassInfo) -> list[tuple[str, ast.AST, str | None]]:
    """(label, handler, self name) for the functions a method defines and hands over to be run later
    (`def on_press(key): ...` then `keyboard.Listener(on_press=on_press)`, label `method.on_press`), lambdas
    handed over included, and methods of self handed over as a coroutine (`create_task(self._pump())`, label
    the method's name)."""
    out = []
    for name, info in cls.methods.items():
        self_name = _self_name(info.node)
        local = {n.name: n for n in info.nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n is not info.node}
        for call in (n for n in info.nodes if isinstance(n, ast.Call)):
            for handed in handed_functions(call):
                if isinstance(handed, ast.Name) and handed.id in local:
                    out.append((f"{name}.{handed.id}", local[handed.id], self_name))
                elif isinstance(handed, ast.Lambda):
                    out.append((f"{name}.<lambda>", handed, self_name))
                elif isinstance(handed, ast.Attribute) and isinstance(handed.value, ast.Name) \
                        and handed.value.id == self_name and handed.attr in cls.methods \
                        and _call_name(call) in COROUTINE_SCHEDULERS:
                    method = cls.methods[handed.attr]
                    out.append((handed.attr, method.node, _self_name(method.node)))
    return out


def class_fills(project, cls: ClassInfo) -> dict[str, list[Fill]]:
    """Attributes of self code registered to run outside the step writes: name -> the first write of each writer.
    Writers are the class's callback methods (what `inputs_from_callbacks` calls data), the handlers its methods
    define and hand over, and the methods of self either calls (transitively)."""
    key = ("filled_outside", cls.id)
    found = project.memo.get(key)
    if found is not None:
        return found
    project.memo[key] = {}
    family = with_inherited(project, cls) if not project.is_library(cls.module) else cls
    writers: list[tuple[str, ast.AST, str | None, object, str]] = []     # (writer, node, self name, info, id)
    for name in sorted(callback_methods(family) - CONSTRUCTION_METHODS):
        info = family.methods[name]
        writers.append((name, info.node, _self_name(info.node), info, info.id))
    handlers = _nested_handlers(family)
    for label, handler, self_name in handlers:
        owner = family.methods[label.partition(".")[0]]
        writers.append((label, handler, self_name, owner, "" if "." in label else owner.id))
    fills: dict[str, list[Fill]] = {}
    data = inputs_from_callbacks(project, cls, frozenset()) if writers else set()
    seen = {w[0] for w in writers}
    nested = {label for label, _, _ in handlers} | operator_methods(family)    # handlers handed over (an operator's
    # key press included), and the helpers they call
    while writers:
        label, node, self_name, owner, fid = writers.pop(0)
        written = set()
        for attr, write in _self_writes(node, self_name):
            if attr in written or attr in family.methods or not (
                    attr in data or label in nested and not isinstance(write, ast.Call)):
                continue     # a handler's call on an object of self fills it only when its provenance says so
            written.add(attr)
            fills.setdefault(attr, []).append(Fill(attr, owner.module, owner.path, write.lineno, write.col_offset,
                                                   label, fid))
        for callee in sorted(_self_calls(node, self_name) - seen - CONSTRUCTION_METHODS):
            info = family.methods.get(callee)
            if info is not None:
                seen.add(callee)
                if label in nested:
                    nested.add(callee)     # a helper a handler calls: its writes are the handler's
                writers.append((callee, info.node, _self_name(info.node), info, info.id))
    project.memo[key] = fills
    return fills


def closure_fills(module: ModuleIndex) -> dict[str, list[Fill]]:
    """Locals of a function that a handler it defines and hands over writes (`cmd = np.zeros(3)`, then
    `def on_key(k): cmd[0] += 0.1` handed to `launch_passive(m, d, key_callback=on_key)`, or a `nonlocal`
    rebinding): name -> the first write of each handler, scoped to the function."""
    fills: dict[str, list[Fill]] = {}
    for fn in module.functions.values():
        nested = [n for n in fn.nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                  and n is not fn.node]
        if not nested:
            continue      # no function defined inside: nothing handed over can close over its locals
        local = {n.name: n for n in _own_nodes(fn.node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        handlers = [local[h.id] if isinstance(h, ast.Name) else h
                    for call in _own_nodes(fn.node) if isinstance(call, ast.Call) for h in handed_functions(call)
                    if isinstance(h, ast.Name) and h.id in local or isinstance(h, ast.Lambda)]
        if not handlers:
            continue
        bound = {n.id for n in _own_nodes(fn.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for handler in handlers:
            declared = {g for n in _own_nodes(handler) if isinstance(n, ast.Nonlocal) for g in n.names}
            written = set()
            for node in (n for n in _own_nodes(handler) if isinstance(n, _WRITES) and n.value is not None):
                for target in _targets(node):
                    root = target
                    while isinstance(root, (ast.Subscript, ast.Attribute)):
                        root = root.value
                    if isinstance(root, ast.Name) and root.id not in written and (
                            root.id in declared or root is not target and root.id in bound):
                        written.add(root.id)
                        label = f"{fn.qualname}.{getattr(handler, 'name', '<lambda>')}"
                        fills.setdefault(root.id, []).append(
                            Fill(root.id, module.name, module.path, node.lineno, node.col_offset, label, "", fn.id))
    return fills


def module_fills(project, module: ModuleIndex) -> dict[str, list[Fill]]:
    """Module globals a module-level function handed over to be run later writes (`global SPEED` then
    `SPEED += 0.1`, or an item of a global container: `COMMAND[0] = 0.5`): name -> the first such write."""
    key = ("filled_outside_globals", module.name)
    found = project.memo.get(key)
    if found is not None:
        return found
    handlers = {}
    for call in (n for n in module.nodes if isinstance(n, ast.Call)):
        for handed in handed_functions(call):
            if isinstance(handed, ast.Name) and handed.id in module.functions:
                handlers.setdefault(handed.id, module.functions[handed.id])
    fills: dict[str, list[Fill]] = closure_fills(module)
    for name, info in sorted(handlers.items()):
        written = set()
        declared = {g for n in _own_nodes(info.node) if isinstance(n, ast.Global) for g in n.names}
        for node in _own_nodes(info.node):
            if not isinstance(node, _WRITES) or getattr(node, "value", None) is None:
                continue
            for target in _targets(node):
                root = target
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                if not isinstance(root, ast.Name) or root.id in written:
                    continue
                if root is target and root.id in declared or root is not target and (
                        root.id in declared or root.id in module.globals and root.id not in info.params):
                    written.add(root.id)
                    fills.setdefault(root.id, []).append(
                        Fill(root.id, module.name, module.path, node.lineno, node.col_offset, name, info.id))
    project.memo[key] = fills
    return fills


def split_global(project, qualified: str | None) -> tuple[str, str] | None:
    """(module, global) for the dotted name of a project module's global (`pkg.shared.POSE` -> (`pkg.shared`,
    `POSE`)), None for anything else."""
    owner, _, name = (qualified or "").rpartition(".")
    module = project.module_named(owner) if owner else None
    if module is None or name not in module.globals or name in module.functions or name in module.classes:
        return None
    return module.name, name


def _global_target(project, module: ModuleIndex, target: ast.expr, declared: set[str],
                   local: set[str]) -> tuple[str, str] | None:
    """The module global a write lands in: a global the writer declares (`global G; G = v`), an item or field of a
    global of its module (`G[0] = v`), or a global of another project module through its import
    (`shared.G = v`, `shared.G[i] = v`)."""
    child, root = None, target
    while isinstance(root, (ast.Subscript, ast.Attribute)):
        child, root = root, root.value
    if not isinstance(root, ast.Name):
        return None
    if isinstance(child, ast.Attribute) and root.id in module.imports and root.id not in local:
        return split_global(project, project.qualify(child, module))
    if root.id in declared or root is not target and root.id not in local and root.id in module.globals:
        return module.name, root.id
    return None


def _carries_data(value: ast.expr, params: set[str], project, module: ModuleIndex) -> bool:
    """A callback method's write fills an input when it stores what the callback was handed (a message) or what a
    call read (a device): not a constant, a counter or a clock."""
    for node in ast.walk(value):
        if isinstance(node, ast.Name) and node.id in params:
            return True
        if isinstance(node, ast.Call) and project.external_name(project.qualify(node.func, module) or "") \
                not in CLOCK_FUNCTIONS:
            return True
    return False


def _writers(module: ModuleIndex):
    """(label, function node, function id, owner info, writes must carry data) of the code of `module` registered
    to run outside the step: module-level functions handed over in it, callback methods of its classes, and the
    handlers methods define and hand over."""
    handed = {h.id for call in module.nodes if isinstance(call, ast.Call) for h in handed_functions(call)
              if isinstance(h, ast.Name)}
    for name in sorted(handed & set(module.functions)):
        info = module.functions[name]
        yield name, info.node, info.id, info, False
    for cls in module.classes.values():
        for name in sorted(callback_methods(cls) - CONSTRUCTION_METHODS):
            info = cls.methods[name]
            yield name, info.node, info.id, info, True
        for label, handler, _ in _nested_handlers(cls):
            owner = cls.methods[label.partition(".")[0]]
            yield label, handler, "" if "." in label else owner.id, owner, False


def global_fills(project) -> dict[tuple[str, str], list[Fill]]:
    """Module globals code registered to run outside the step writes, wherever that code lives: (module, global) ->
    the first write of each writer. A ROS 2 node's subscription callback storing a field in a global it declares
    (`global VEL; VEL[0] = msg.linear.x`), a thread's target writing another module's global through its import
    (`shared.pose = read_pose()`), a handler a method hands over. Read by the step as a bare name in the global's
    module, through the module's import (`shared.pose`) or a name imported from it (`from shared import VEL`)."""
    key = ("filled_outside_project_globals",)
    found = project.memo.get(key)
    if found is not None:
        return found
    fills: dict[tuple[str, str], list[Fill]] = {}
    for module in project.modules.values():
        if project.is_library(module.name):
            continue
        for name, found_fills in module_fills(project, module).items():
            fills.setdefault((module.name, name), []).extend(f for f in found_fills if not f.scope)
        for label, node, fid, owner, data_only in _writers(module):
            args = getattr(node, "args", None)
            params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)} if args else set()
            declared = {g for n in _own_nodes(node) if isinstance(n, ast.Global) for g in n.names}
            local = params | {n.id for n in _own_nodes(node) if isinstance(n, ast.Name)
                              and isinstance(n.ctx, ast.Store)} - declared
            data_params = params - {_self_name(node)} if owner.is_method and "." not in label else params
            written = set()
            for stmt in (n for n in _own_nodes(node) if isinstance(n, _WRITES) and getattr(n, "value", None)):
                if data_only and not _carries_data(stmt.value, data_params, project, module):
                    continue
                for target in _targets(stmt):
                    place = _global_target(project, module, target, declared, local)
                    if place is None or place in written:
                        continue
                    written.add(place)
                    known = fills.setdefault(place, [])
                    if not any(f.line == stmt.lineno and f.path == owner.path for f in known):
                        known.append(Fill(place[1], module.name, owner.path, stmt.lineno, stmt.col_offset, label,
                                          fid))
    project.memo[key] = {place: found_fills for place, found_fills in fills.items() if found_fills}
    return project.memo[key]
