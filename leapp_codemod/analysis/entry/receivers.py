"""Receivers of a driver's calls that only the code around the call binds.

A loop that runs `agent.get_action(obs)` or `policy(obs)` names no class. The class is often fixed by
the code that calls the loop's function, or by the function itself:

    evaluate(path, Model=Agent)            # a class passed in:   agent = Model(envs).to(device)
    run(policy=make_policy(cfg))           # an instance passed in (the factory's return type)
    assert isinstance(policy, RolloutPolicy)

Each of these binds the receiver to project classes; the method the call runs is then an edge of the call
graph like any resolved call. Nothing is guessed: a receiver with no such binding stays unknown.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.resolve_types import is_abstract, overrides
from leapp_codemod.knowledge.vocab import SELF_RETURNING_METHODS


@dataclass
class ParamBindings:
    """What callers pass for a function's parameters: instances of classes, or the classes themselves."""
    instances: dict[str, dict[str, set[str]]] = field(default_factory=dict)   # fid -> param -> class ids
    classes: dict[str, dict[str, set[str]]] = field(default_factory=dict)     # fid -> param -> class ids

    def add(self, table: dict[str, dict[str, set[str]]], fid: str, param: str, class_ids: set[str]) -> None:
        if class_ids:
            table.setdefault(fid, {}).setdefault(param, set()).update(class_ids)


def param_pairs(callee: FunctionInfo, call: ast.Call, bound: bool) -> list[tuple[str, ast.expr]]:
    """(parameter, argument) pairs of a call; `bound` when `self` is passed implicitly."""
    params = list(callee.positional_params)
    if bound and params:
        params = params[1:]
    pairs: list[tuple[str, ast.expr]] = []
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if i < len(params):
            pairs.append((params[i], arg))
    names = {a.arg for a in (*callee.node.args.posonlyargs, *callee.node.args.args, *callee.node.args.kwonlyargs)}
    pairs += [(kw.arg, kw.value) for kw in call.keywords if kw.arg in names]
    return pairs


def is_bound(callee: FunctionInfo, call: ast.Call, ctx) -> bool:
    if not callee.is_method:
        return False
    if isinstance(call.func, ast.Attribute):
        return ctx.project.class_of(ctx.project.qualify(call.func.value, ctx.module) or "") is None
    return True


def _class_named(ctx, expr: ast.expr) -> ClassInfo | None:
    if not isinstance(expr, (ast.Name, ast.Attribute)):
        return None
    return ctx.project.class_of(ctx.project.qualify(expr, ctx.module) or "")


def collect_bindings(contexts, wanted) -> ParamBindings:
    """Bindings of parameters from every resolved call: `contexts` is [(ctx, [(call, targets), ...])];
    only callees for which `wanted(callee)` holds (those with a loop: their calls are what is ranked) or
    that pass a parameter on. A parameter passed on as it is (`eval_performance(env, agent)` ->
    `_run_episodes(env, agent)`) carries what its own callers bind to the function that receives it."""
    out = ParamBindings()
    forwarded: list[tuple[str, str, str, str]] = []    # (caller id, its parameter, callee id, callee parameter)
    for ctx, calls in contexts:
        own = {a.arg for a in (*ctx.fn.node.args.posonlyargs, *ctx.fn.node.args.args, *ctx.fn.node.args.kwonlyargs)}
        for call, targets in calls:
            for callee in targets:
                if callee.name == "__init__":
                    continue
                passes = passes_on(callee)
                if not (passes or wanted(callee)):
                    continue
                for param, arg in param_pairs(callee, call, is_bound(callee, call, ctx)):
                    if isinstance(arg, ast.Name) and arg.id in own:
                        forwarded.append((ctx.fn.id, arg.id, callee.id, param))
                    cls = _class_named(ctx, arg)
                    if cls is not None:
                        out.add(out.classes, callee.id, param, {cls.id})
                    else:
                        out.add(out.instances, callee.id, param, {t for t in ctx.types_of(arg) if ":" in t})
    _propagate(out, forwarded)
    return out


def passes_on(fn: FunctionInfo) -> bool:
    """Does `fn` pass one of its parameters as it is to a call (`_run_episodes(env, agent, ...)`)?"""
    own = {a.arg for a in (*fn.node.args.posonlyargs, *fn.node.args.args, *fn.node.args.kwonlyargs)}
    return any(isinstance(arg, ast.Name) and arg.id in own
               for node in fn.nodes if isinstance(node, ast.Call)
               for arg in (*node.args, *(kw.value for kw in node.keywords)))


def _propagate(out: ParamBindings, forwarded: list[tuple[str, str, str, str]]) -> None:
    """Copy what callers bind along parameters passed on, until nothing changes."""
    changed = True
    while changed:
        changed = False
        for caller, name, callee, param in forwarded:
            for table in (out.instances, out.classes):
                found = table.get(caller, {}).get(name, set())
                have = table.get(callee, {}).get(param, set())
                if found - have:
                    out.add(table, callee, param, found)
                    changed = True


def _root_call_name(expr: ast.expr) -> str | None:
    """`Model(envs).to(device).eval()` -> "Model"."""
    while (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
           and expr.func.attr in SELF_RETURNING_METHODS):
        expr = expr.func.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        return expr.func.id
    return None


def _asserted(fn: FunctionInfo, ctx) -> dict[str, set[str]]:
    """`assert isinstance(x, C)` (or `(C, D)`) in the function: x -> class ids."""
    out: dict[str, set[str]] = {}
    for node in fn.nodes:
        if not isinstance(node, ast.Assert):
            continue
        test = node.test
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0], ast.Name)):
            continue
        kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        found = {cls.id for cls in (_class_named(ctx, k) for k in kinds) if cls is not None}
        if found:
            out.setdefault(test.args[0].id, set()).update(found)
    return out


def local_receiver_types(ctx, bindings: ParamBindings) -> dict[str, set[str]]:
    """Local names of `ctx.fn` bound to project classes by callers or assertions: name -> class ids."""
    fn = ctx.fn
    types = {p: set(c) for p, c in bindings.instances.get(fn.id, {}).items()}
    held = bindings.classes.get(fn.id, {})
    if held:
        for node in fn.nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                root = _root_call_name(node.value)
                if root in held:
                    types.setdefault(node.targets[0].id, set()).update(held[root])
    for name, found in _asserted(fn, ctx).items():
        types[name] = found     # an assertion narrows what callers pass
    return types


def bound_targets(project: Project, call: ast.Call, types: dict[str, set[str]]) -> list[FunctionInfo]:
    """What `x.meth(...)` or `x(...)` runs when `x` is a local bound in `types`."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        name, method = func.value.id, func.attr
    elif isinstance(func, ast.Name):
        name, method = func.id, None
    else:
        return []
    out: list[FunctionInfo] = []
    for class_id in sorted(types.get(name, ())):
        module, _, qualname = class_id.partition(":")
        cls = project.modules[module].classes.get(qualname) if module in project.modules else None
        if cls is None:
            continue
        target = project.find_method(cls, method) if method else project.call_target(cls)
        if target is None:
            continue
        if is_abstract(target):
            owner = project.modules[target.module].classes.get(target.class_name or "")
            out += [m for m in overrides(project, owner, target.name) if not is_abstract(m)] if owner else []
        else:
            out.append(target)
    return out


def on_library_module(func: ast.expr, module, project: Project) -> bool:
    """Is `func` a name reached through an import of something outside the project (`subprocess.run`,
    `np.random.rand`, `os.path.join`)? Such a call is the library's function: it never runs a project
    method that happens to have the same name."""
    node = func.value if isinstance(func, ast.Attribute) else None
    while isinstance(node, ast.Attribute):
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in module.imports:
        return False
    top = module.imports[node.id].split(".")[0]
    return not any((name == top or name.startswith(top + ".")) and not project.is_library(name)
                   for name in project.modules)
