"""Calls inside the pipeline whose callee the scan could not resolve: the code it did not analyze.

A call is listed when it hands pipeline data to something the scan could not name: a method of a
receiver whose class is decided at run time (`self.adapter.preprocess(obs)` with `self.adapter` from
`hydra.utils.instantiate(cfg.adapter)`), a callable passed in as a parameter (`policy(obs)`), a value
built by a factory the scan cannot see into. Library functions (NumPy, torch, a followed package),
methods of pipeline data (`x.view(...)`), builtins and objects of a known library type are not listed:
their behaviour is known (the rules' tables) or analyzed (followed libraries).

Each entry says why the receiver stayed unknown, so the user can bind it (`--bind self.adapter=pkg.mod:Class`,
`[tool.leapp-codemod.bind]`) or let `scan --driver` observe it running.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.flow.handed_reason import handed_reason
from leapp_codemod.analysis.infer.loaded import binding_before, is_range
from leapp_codemod.analysis.flow.library_callbacks import library_callbacks
from leapp_codemod.analysis.flow.foreign_objects import foreign_call, foreign_reads, imported_roots
from leapp_codemod.analysis.flow.stub_calls import stub_call
from leapp_codemod.analysis.flow.untyped_receivers import untyped_parameter_method
from leapp_codemod.analysis.flow.unbound_names import unbound_name_reason
from leapp_codemod.analysis.flow.world_left_out import world_step_left_out
from leapp_codemod.analysis.flow.silent_calls import dynamic_getattr, runs_unseen_code
from leapp_codemod.analysis.flow.known_receivers import (
    RUNTIME_FACTORIES, default_only, known_library_object, library_behaviour, library_container, library_type,
    library_value, local_types, root_of,
)
from leapp_codemod.analysis.infer.context import (
    FunctionContext,
    is_self_attr,
    iter_nodes,
)
from leapp_codemod.analysis.model.config_picked import picked_reason
from leapp_codemod.analysis.model.import_shapes import import_gap, module_global_gap
from leapp_codemod.analysis.flow.library_reason import library_object_reason
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.libraries import in_project as _in_project
from leapp_codemod.analysis.model.libraries import library_available
from leapp_codemod.analysis.model.walk import is_property, self_returned
from leapp_codemod.analysis.model.world_steps import world_step_calls
from leapp_codemod.knowledge.vocab import PLAIN_METHODS
from leapp_codemod.model import NotFollowed

MAX_TEXT = 60


def not_followed(analysis, entry: FunctionInfo | None) -> tuple[NotFollowed, ...]:
    """The unresolved calls of every reachable project function (live code only), in source order."""
    if entry is None:
        return ()
    project = analysis.project
    out: dict[tuple[str, int, str], NotFollowed] = {}
    for fn in list(analysis.reachable.values()):
        try:
            ctx = analysis.context_with_env(fn)
            nodes = list(iter_nodes(fn, analysis.facts.param_constants.get(fn.id)))
            if project.is_library(fn.module):   # only the calls back into what the project handed it
                out.update({(f.path, f.line, f.text): f for f in library_callbacks(ctx, nodes)})
                continue
            for node in nodes:
                if isinstance(node, ast.Call):
                    found = unresolved(ctx, node)
                    if found is not None:
                        out.setdefault((found.path, found.line, found.text), found)
            for found in foreign_reads(ctx, nodes):
                out.setdefault((found.path, found.line, found.text), found)
        except RecursionError:
            continue
    return tuple(sorted(out.values()))


def unresolved(ctx: FunctionContext, call: ast.Call) -> NotFollowed | None:
    """The call as a `NotFollowed` when it hands pipeline data to code the scan could not name."""
    func = call.func
    if is_range(ctx.fn) and id(call) in world_step_calls(ctx.fn.node, ctx.fn.walks):
        reason = world_step_left_out(ctx, call)   # where the action leaves the pipeline, cut on purpose
        return NotFollowed(ctx.fn.path, call.lineno, _text(call.func), reason, "", ctx.fn.id) if reason else None
    if ctx.builtin(call) == "getattr":
        return dynamic_getattr(ctx, call)
    if ctx.builtin(call) is None and ctx.io_kind(call) is None and not ctx.paces(call):
        foreign = foreign_call(ctx, call)   # `ring.append(x)` on a class the scan cannot read: its own `append`
        if foreign is not None:
            return foreign
    untyped = untyped_parameter_method(ctx, call)
    if not (ctx.args_data(call) or untyped or runs_unseen_code(ctx, call)) or ctx.builtin(call) is not None:
        return None
    if ctx.io_kind(call) is not None:
        return None   # I/O (a publish, a store's read): reported as such (LCM901), known to leave the graph
    if isinstance(func, ast.Attribute):
        if func.attr in PLAIN_METHODS or func.attr.startswith("__") or _inplace_tensor_method(ctx, func.attr):
            return None
        receiver = func.value
        stub = stub_call(ctx, call, _text(func))   # resolved to a declaration only: its code runs nothing
        if stub is not None:
            return stub
        if (ctx.is_data(receiver) and not untyped) or ctx.is_numpy(receiver) or _names_library(ctx, func):
            return None
        getter = _property_getter(ctx, func)
        if getter is not None:
            return None if ctx.resolve_call(call) else _property_entry(ctx, call, getter)
        if is_self_attr(func, ctx.self_name) and ctx.cls is not None \
                and ctx.project.find_method(ctx.cls, func.attr) is None:
            receiver = func            # `self.policy(obs)`: the attribute holds the callable
    elif isinstance(func, ast.Name):
        receiver = func
        if _names_library(ctx, func):
            return None
    elif isinstance(func, ast.Subscript) and not ctx.is_data(func) and not ctx.is_numpy(func.value):
        receiver = func            # `nets["policy"](obs)`: a callable looked up in a container
        if _names_library(ctx, func.value):
            return None
    elif isinstance(func, ast.Call) and ctx.builtin(func) is None and not ctx.is_data(func) \
            and not (_imported_target(ctx, func.func) and _names_library(ctx, func.func)):
        return _selected(ctx, call)    # `to_mat(kind)(x)`: the callable another call returns
    elif isinstance(func, (ast.IfExp, ast.BoolOp)) and not ctx.resolve_call(call):
        return NotFollowed(ctx.fn.path, call.lineno, f"({_text(func)[:-5]})(...)", "the callable is chosen by the expression "
                           "itself, which the scan does not resolve", ast.unparse(func), ctx.fn.id)
    else:
        return None
    if known_library_object(ctx, receiver) or ctx.resolve_call(call):
        return None
    gap = import_gap(ctx, func) or picked_reason(ctx, receiver, getattr(func, "attr", ""))   # never dropped
    if gap is not None:
        return NotFollowed(ctx.fn.path, call.lineno, _text(func), gap, ast.unparse(func), ctx.fn.id)
    reason = receiver_reason(ctx, receiver)
    if reason is None and untyped:   # an object's method runs here: never dropped unsaid
        reason = f"the class of `{_short(receiver)}` is unknown"
    if reason is None and isinstance(func, ast.Name):
        reason = unbound_name_reason(ctx, func.id)
    if reason is None:
        return None
    reason += _duck_note(ctx, call)
    return NotFollowed(ctx.fn.path, call.lineno, _text(func), reason, _bind_target(ctx, receiver), ctx.fn.id,
                       _missing_package(ctx, receiver))


def _inplace_tensor_method(ctx: FunctionContext, name: str) -> bool:
    """`targets.scatter_reduce_(...)`, `buf.index_add_(...)`: torch's in-place spelling (a trailing `_`), on a
    receiver whose class is unknown, when no project class defines a method of that name."""
    from leapp_codemod.analysis.model.runtime_bind import duck_candidates
    return name.endswith("_") and not name.startswith("_") and not duck_candidates(ctx.project, name)


def _selected(ctx: FunctionContext, call: ast.Call) -> NotFollowed | None:
    """A call of what another call returns (a selector, a factory) when the scan cannot name the callable."""
    if ctx.resolve_call(call):
        return None
    makers = ctx.resolve_call(call.func)
    named = ", ".join(f"`{m.qualname}`" for m in makers[:3])
    reason = library_object_reason(ctx, call.func) or (
        f"`{_short(call.func)}` returns the callable; what {named} returns{' is' if len(makers) == 1 else ' are'} "
        "no project function the scan can name" if makers else
        f"`{_short(call.func)}` returns the callable, from code the scan does not follow")
    return NotFollowed(ctx.fn.path, call.lineno, _text(call.func), reason, ast.unparse(call.func), ctx.fn.id)


def _bind_target(ctx: FunctionContext, receiver: ast.expr) -> str:
    """The expression a `--bind` names: the receiver, or for a parameter every caller passes the bound method
    of one receiver (`self._run(self.policy.act, obs)`), that receiver (`self.policy`)."""
    if isinstance(receiver, ast.Name) and receiver.id in ctx.fn.params:
        passed = _passed_arguments(ctx, receiver.id)
        owners = {ast.unparse(a.value) for a in passed if isinstance(a, ast.Attribute)}
        if passed and len(owners) == 1 and all(_looked_up(ctx, a) for a in passed):
            return owners.pop()
    return ast.unparse(receiver)


def _looked_up(ctx: FunctionContext, arg: ast.expr) -> bool:
    """`self.policy.act`, `agent.step`: a callable looked up on another object (a bound method, a field),
    whose receiver is what to name; not `self.scheduler` (an attribute of the caller's own object) nor a
    library function (`np.tanh`)."""
    return isinstance(arg, ast.Attribute) and not _names_library(ctx, arg) and not (
        isinstance(arg.value, ast.Name) and arg.value.id in (ctx.self_name, "self"))


def _property_getter(ctx: FunctionContext, func: ast.Attribute) -> FunctionInfo | None:
    """The `@property` getter `obj.attr` reads, when the receiver's class is known."""
    if is_self_attr(func, ctx.self_name):
        classes = ctx.receiver_classes()
    else:
        classes = [c for c in (ctx.class_for_type(t) for t in ctx.types_of(func.value)) if c is not None]
    for cls in classes:
        getter = ctx.project.find_method(cls, func.attr)
        if getter is not None and is_property(getter):
            return getter
    return None


def _property_entry(ctx: FunctionContext, call: ast.Call, getter: FunctionInfo) -> NotFollowed:
    returned = [n.value for n in getter.nodes if isinstance(n, ast.Return) and n.value is not None]
    shown = ", ".join(f"`{_short(v)}`" for v in returned[:2]) or "nothing"
    reason = (f"`{call.func.attr}` is a property ({getter.path}:{getter.node.lineno}) returning {shown}; "
              "the callable it returns is neither a project function nor a wrapper of one the scan follows")
    return NotFollowed(ctx.fn.path, call.lineno, _text(call.func), reason, ast.unparse(call.func), ctx.fn.id)


def _text(func: ast.expr) -> str:
    text = ast.unparse(func)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT - 3] + "..."
    return f"{text}(...)"


def _names_library(ctx: FunctionContext, func: ast.expr) -> bool:
    """`np.linalg.norm`, `torch.cat`, `cv2.resize`, a name imported from an available package: a library
    callable (its behaviour is known or its package is followed). A name imported from a module that is
    neither scanned nor installed is not: nothing about it is known."""
    target = _imported_target(ctx, func)
    if target is None:
        root = root_of(func)
        return isinstance(root, ast.Name) and (root.id in ctx.module.functions or root.id in ctx.module.classes)
    return not _in_project(ctx.project, target) and library_available(ctx.project, target)


def _imported_target(ctx: FunctionContext, func: ast.expr) -> str | None:
    root = root_of(func)
    if not isinstance(root, ast.Name) or root.id in ctx.fn.params or root.id in ctx.env.types:
        return None
    if root.id in ctx.module.imports:
        return ctx.module.imports[root.id]
    if root.id in ctx.module.functions or root.id in ctx.module.classes or root.id in ctx.module.globals:
        return None
    starred = ctx.qualify(root)   # `np` bound by `from .utils import *`, where `utils` imports numpy as np
    return starred if starred and starred != root.id and not _in_project(ctx.project, starred) else None


def _missing_module(ctx: FunctionContext, receiver: ast.expr) -> str | None:
    local = {ctx.self_name, *ctx.fn.params, *ctx.env.types} - {None}
    for t in sorted(ctx.types_of(receiver)):
        if t.partition(".")[0] in local or t.partition(".")[0] not in _imported_roots(ctx):
            continue   # `self.cfg.preprocessor`: a value, not a module
        if ":" not in t and t not in RUNTIME_FACTORIES and not library_available(ctx.project, t) \
                and not _in_project(ctx.project, t):
            return (f"`{_short(receiver)}` is a `{t}`, from a module neither in the scanned code nor "
                    "installed in this environment")
    return None


def _missing_package(ctx: FunctionContext, receiver: ast.expr) -> str:
    """The top-level package a receiver comes from when it is neither scanned nor installed (`rlpyt` for
    `buffer_to` imported from `rlpyt.utils.buffer`), else ""."""
    local = {ctx.self_name, *ctx.fn.params, *ctx.env.types} - {None}
    names = [t for t in sorted(ctx.types_of(receiver)) if ":" not in t and t not in RUNTIME_FACTORIES
             and t.partition(".")[0] not in local and t.partition(".")[0] in _imported_roots(ctx)]
    target = _imported_target(ctx, receiver)
    names += [target] if target is not None else []
    for name in names:
        if not _in_project(ctx.project, name) and not library_available(ctx.project, name):
            return name.partition(".")[0]
    return ""


def receiver_reason(ctx: FunctionContext, receiver: ast.expr, depth: int = 0) -> str | None:
    """Why the receiver's class is unknown, in the words of the code that set it."""
    project = ctx.project
    missing = _missing_module(ctx, receiver)
    if missing:
        return missing
    target = _imported_target(ctx, receiver)
    if target is not None and not _in_project(project, target):
        return (f"`{_short(receiver)}` comes from `{target}`, a module neither in the scanned code nor installed "
                "in this environment")
    if is_self_attr(receiver, ctx.self_name) and ctx.cls is not None:
        attr = receiver.attr
        owners = ctx.receiver_classes() or [ctx.cls]
        values = [(klass, method, value) for cls in owners for klass in project.mro(cls)
                  for method, value in klass.attr_values.get(attr, ()) if not isinstance(value, ast.Constant)]
        if not values:
            if any(isinstance(base, str) for cls in owners for klass in project.mro(cls) for base in project.bases(klass)):
                return f"`self.{attr}` is not assigned in the scanned code (a library base class may set it)"
            return f"`self.{attr}` is never assigned in the scanned code"
        if all(library_value(ctx, v, k.methods.get(m)) for k, m, v in values):
            return None
        klass, method, value = next(((k, m, v) for k, m, v in values if not library_value(ctx, v, k.methods.get(m))))
        return _value_reason(ctx, value, klass.methods.get(method), f"`self.{attr}`", depth)
    if isinstance(receiver, ast.Name):
        outer = ctx.fn.outer_values.get(receiver.id)
        if outer is not None and receiver.id in ctx.fn.params:
            return _outer_reason(ctx, receiver.id, outer)
        if receiver.id in ctx.fn.params:
            passed = _passed_arguments(ctx, receiver.id)
            if passed and all(isinstance(a, ast.Lambda) for a in passed):
                return None   # a lambda: its body is analyzed where it is written
            if passed and depth < 2:
                return _passed_reason(ctx, receiver.id, passed, depth)
            if not ctx.facts.callers.get(ctx.fn.id):   # the entry, a range: what the code around hands it
                handed = handed_reason(ctx, receiver.id)
                if handed:
                    return handed
            return (f"`{receiver.id}` is a parameter of {ctx.fn.qualname}; no caller in the scanned code "
                    "passes a project class or function")
        for node in ctx.fn.nodes:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == receiver.id
                                                    for t in node.targets):
                return _value_reason(ctx, node.value, ctx.fn, f"`{receiver.id}`", depth)
        for node in ctx.fn.nodes:   # `policy, mean, std = bundle`
            if isinstance(node, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) and any(
                    isinstance(e, ast.Name) and e.id == receiver.id for e in t.elts) for t in node.targets):
                inner = receiver_reason(ctx, node.value, depth + 1) if depth < 2 else None
                return f"`{receiver.id}` is unpacked from `{_short(node.value)}`" + (
                    f": {inner}" if inner else ", whose items' classes are unknown")
        iterable = _loop_iterable(ctx.fn.node, receiver.id)
        if iterable is not None:   # `for term in self.terms: term(obs)`, `[f(x) for f in fns]`
            inner = receiver_reason(ctx, iterable, depth + 1) if depth < 2 else None
            return f"`{receiver.id}` is an item of `{_short(iterable)}`" + (
                f": {inner}" if inner else ", whose items' class is unknown")
        enclosing = _enclosing_function(ctx)
        if enclosing is not None and depth < 2 and (
                receiver.id in enclosing.params or receiver.id in {t.id for n in enclosing.nodes
                                                                   if isinstance(n, ast.Assign) for t in n.targets
                                                                   if isinstance(t, ast.Name)}):
            outer_ctx = ctx.for_function(enclosing)
            types = local_types(outer_ctx, receiver)
            if types and all(library_behaviour(ctx, t) if ":" in t else library_type(ctx, t) for t in types):
                return None   # `body = model.actor_body` (an nn.Sequential) before `def policy(obs)`
            inner = receiver_reason(outer_ctx, receiver, depth + 1)
            if inner:   # `net(obs)` in a closure `make_actor` returns: `net` is make_actor's
                return f"`{receiver.id}` comes from the enclosing {enclosing.qualname}: {inner}"
        if receiver.id in ctx.module.globals:   # `SMOOTH = build()` at the module's top
            return module_global_gap(ctx.project, ctx.module, receiver.id, [])
        bound = binding_before(ctx, receiver.id)   # `agent = joblib.load(f)` in the script, before the range
        return _outer_reason(ctx, receiver.id, bound[0], bound[1]) if bound is not None else None
    if isinstance(receiver, ast.Attribute):
        return f"the type of `{_short(receiver)}` is unknown"
    if isinstance(receiver, ast.Subscript):
        if library_container(ctx, receiver.value):
            return None
        return f"what `{_short(receiver.value)}` holds is unknown"
    return None


def _enclosing_function(ctx: FunctionContext) -> FunctionInfo | None:
    """The function a closure is defined in (`make_actor` for `make_actor.<locals>.act`)."""
    outer, sep, _ = ctx.fn.qualname.rpartition(".<locals>.")
    return ctx.module.functions.get(outer) if sep else None


def _loop_iterable(fn_node: ast.AST, name: str) -> ast.expr | None:
    """What a `for` loop or a comprehension binds `name` from (`self.terms` in `for term in self.terms`)."""
    for node in ast.walk(fn_node):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            target = node.target
            if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(node.iter, ast.Call) \
                    and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "enumerate":
                target = target.elts[1]
            if isinstance(target, ast.Name) and target.id == name:
                return node.iter
    return None


def _outer_reason(ctx: FunctionContext, name: str, value: ast.expr, scope: FunctionInfo | None = None) -> str | None:
    """An inline range's input bound before the range (`scheduler = DDPMScheduler(...)`), or a closure's bound in
    its enclosing function (`scope`): why its class is unknown, in the words of that binding."""
    where = f"`{name}` (line {value.lineno}, before the range)"
    func = value.func if isinstance(value, ast.Call) else None
    target = ctx.qualify(func) if func is not None else None
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    imported = isinstance(root, ast.Name) and root.id in ctx.module.imports   # not a local's method
    if target and imported and not _in_project(ctx.project, target) and not library_available(ctx.project, target):
        return f"{where} is a `{target}`, from a module neither in the scanned code nor installed in this environment"
    if library_value(ctx, value, scope):
        return None
    return _value_reason(ctx, value, None, where)


def _passed_reason(ctx: FunctionContext, param: str, passed: list, depth: int) -> str | None:
    """Why what the callers pass for `param` is unknown, in the callers' words: a library object built in
    a constructor is said to be one, not "a parameter"."""
    callers = _passing_contexts(ctx, param)
    reasons = []
    for caller_ctx, arg in ((c, a) for c, passed_arg in callers for a in _alternatives(passed_arg)):
        if library_value(caller_ctx, arg, caller_ctx.fn) or known_library_object(caller_ctx, arg):
            continue
        if _looked_up(caller_ctx, arg):
            inner = receiver_reason(caller_ctx, arg.value, depth + 1)   # `self.policy.act`: a bound method
            if inner is None:
                continue
            reasons.append(f"`{param}` is a parameter of {ctx.fn.qualname}, passed `{_short(arg)}` (looked up on "
                           f"`{_short(arg.value)}`) by {caller_ctx.fn.qualname}: {inner}")
            continue
        inner = receiver_reason(caller_ctx, arg, depth + 1)
        if inner is None:
            continue
        reasons.append(f"`{param}` is a parameter of {ctx.fn.qualname}, passed `{_short(arg)}` by "
                       f"{caller_ctx.fn.qualname}: {inner}")
    if not callers or reasons:
        return reasons[0] if reasons else (f"`{param}` is a parameter of {ctx.fn.qualname}; no caller in the "
                                           "scanned code passes a project class or function")
    return None


def _alternatives(arg: ast.expr) -> list[ast.expr]:
    """The values an argument may be: both sides of `a if c else b`, `None` left out."""
    if isinstance(arg, ast.IfExp):
        return _alternatives(arg.body) + _alternatives(arg.orelse)
    return [] if isinstance(arg, ast.Constant) and arg.value is None else [arg]


def _passing_contexts(ctx: FunctionContext, param: str) -> list:
    """(caller context, argument) for each reachable call passing `param` of this function."""
    from leapp_codemod.analysis.model.resolve_sites import argument_for
    out = []
    for caller_id in sorted(ctx.facts.callers.get(ctx.fn.id, ())):   # a set: the message names the same caller every run
        module_name, _, qualname = caller_id.partition(":")
        caller = ctx.project.modules.get(module_name)
        caller_fn = caller.functions.get(qualname) if caller is not None else None
        if caller_fn is None or caller_fn is ctx.fn:
            continue
        caller_ctx = ctx.for_function(caller_fn)
        for node in ast.walk(caller_fn.node):
            if isinstance(node, ast.Call) and ctx.fn in caller_ctx.resolve_call(node):
                arg = argument_for(ctx.fn, node, param) if ctx.fn.is_method else _plain_argument(ctx.fn, node, param)
                if arg is not None:
                    out.append((caller_ctx, arg))
    return out


def _passed_arguments(ctx: FunctionContext, param: str) -> list[ast.expr]:
    """What the reachable callers pass for `param` of this function."""
    from leapp_codemod.analysis.model.resolve_sites import argument_for
    out = []
    for caller_id in sorted(ctx.facts.callers.get(ctx.fn.id, ())):   # a set: the message names the same caller every run
        module_name, _, qualname = caller_id.partition(":")
        caller = ctx.project.modules.get(module_name)
        caller_fn = caller.functions.get(qualname) if caller is not None else None
        if caller_fn is None:
            return []
        caller_ctx = ctx.for_function(caller_fn)
        for node in ast.walk(caller_fn.node):
            if isinstance(node, ast.Call) and ctx.fn in caller_ctx.resolve_call(node):
                arg = argument_for(ctx.fn, node, param) if ctx.fn.is_method else _plain_argument(ctx.fn, node, param)
                if arg is None:
                    return []
                if caller_fn is ctx.fn and isinstance(arg, ast.Name) and arg.id == param:
                    continue   # a recursive call passing it on
                out.append(arg)
    return out


def _plain_argument(fn: FunctionInfo, call: ast.Call, param: str) -> ast.expr | None:
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if i < len(fn.positional_params) and fn.positional_params[i] == param:
            return arg
    return next((k.value for k in call.keywords if k.arg == param), None)


def _value_reason(ctx: FunctionContext, value: ast.expr, where: FunctionInfo | None, what: str,
                  depth: int = 0) -> str | None:
    if library_value(ctx, value, where):
        return None
    moved = self_returned(value)   # `agent.eval().cuda()`: the reason is where `agent` came from
    if moved is not value:
        if isinstance(moved, ast.Name) and where is not None and depth < 2:
            assigned = where.assigned(moved.id)
            if assigned:
                return _value_reason(ctx, assigned[-1], where, what, depth + 1)
        if isinstance(moved, ast.Call):
            return _value_reason(ctx, moved, where, what, depth + 1)
    if is_self_attr(value, ctx.self_name) and depth < 2 and ctx.cls is not None:
        inner = receiver_reason(ctx, value, depth + 1)
        return f"{what} is `{_short(value)}`: {inner}" if inner else None
    if isinstance(value, ast.Call):
        name = ctx.qualify(value.func) or ast.unparse(value.func)
        if name in ("hydra.utils.instantiate", "hydra.utils.call"):
            arg = ast.unparse(value.args[0]) if value.args else "a config"
            return f"receiver from hydra.utils.instantiate({_short_text(arg)}); no _target_ found"
        if name == "importlib.import_module" and value.args:
            return (f"{what} is the module `importlib.import_module({_short(value.args[0])})` loads, named when the "
                    "program runs")
        spelled = ctx.project.qualify(value.func, ctx.module)   # `joblib.load`, re-exported from a submodule
        if {name, spelled} & RUNTIME_FACTORIES:
            return f"receiver from {spelled if spelled in RUNTIME_FACTORIES else name}(...): its class is chosen at run time"
        return f"{what} is built by `{_short(value.func)}(...)`, whose result's class is unknown"
    if isinstance(value, ast.Name) and where is not None and value.id in where.params \
            and default_only(ctx, where, value.id):
        return None   # `self._dist = distribution`, `distribution=td.Normal` and no caller passes another
    if isinstance(value, ast.Name) and where is not None and value.id in where.params:
        configured = _configured(ctx, where, value.id)
        if configured:
            return (f"{what} is the `{value.id}` argument of {where.qualname}, which the configs set to "
                    f"`{configured}` (neither in the scanned code nor installed)")
        return (f"{what} is the `{value.id}` argument of {where.qualname}; no caller in the scanned code "
                "passes a project class or function")
    held = _held_attribute_reason(ctx, value, where, depth) if where is not None else None
    if held:
        return f"{what} is set from `{_short(value)}`: {held}"
    return f"{what} is set from `{_short(value)}`, whose class is unknown"


def _held_attribute_reason(ctx: FunctionContext, value: ast.expr, where: FunctionInfo, depth: int) -> str | None:
    """`tail = net.tail` with `net` a local of a project class: why that class's `tail` is unknown."""
    if depth >= 2 or not isinstance(value, ast.Attribute) or not isinstance(value.value, ast.Name):
        return None
    local = ctx.for_function(where)
    for holder in sorted(local_types(local, value.value)):
        cls = ctx.class_for_type(holder)
        for klass in ctx.project.mro(cls) if cls is not None else ():
            for method, assigned in klass.attr_values.get(value.attr, ()):
                fn = klass.methods.get(method)
                if fn is not None and not library_value(ctx, assigned, fn):
                    return _value_reason(ctx.for_function(fn), assigned, fn, f"`{cls.name}.{value.attr}`", depth + 1)
    return None


def _configured(ctx: FunctionContext, init: FunctionInfo, param: str) -> str | None:
    """The `_target_` a Hydra config gives `param` of the class whose `__init__` this is, if not followable."""
    from leapp_codemod.analysis.model.runtime_bind import hydra_targets
    if init.name != "__init__" or init.class_name is None:
        return None
    cls_name = f"{init.module}.{init.class_name}"
    for target in hydra_targets(ctx.project):
        if target.target == cls_name:
            for key, nested in target.arguments:
                if key == param and not library_available(ctx.project, nested):
                    return nested
    return None


def _imported_roots(ctx: FunctionContext) -> set[str]:
    return imported_roots(ctx.project)


def _duck_note(ctx: FunctionContext, call: ast.Call) -> str:
    """Why duck typing did not pick the method's class: how many project classes define it."""
    from leapp_codemod.analysis.model.runtime_bind import MAX_DUCK, duck_candidates
    if not isinstance(call.func, ast.Attribute):
        return ""
    found = duck_candidates(ctx.project, call.func.attr)
    if len(found) > MAX_DUCK:
        names = ", ".join(c.name for c in found[:4])
        return f"; {len(found)} project classes define `{call.func.attr}` ({names}, ...), too many to guess"
    return ""


def _short(expr: ast.expr) -> str:
    return _short_text(ast.unparse(expr))


def _short_text(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 3] + "..."
