"""Which parameters of a function are pipeline data, which are flags or settings, and what the project's calls
pass to them (read by the scan pipeline to seed the fixpoint, by lint mode and by entry checks)."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import FunctionInfo, called_name
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.walk import UNKNOWN, self_name_of

CONFIG_PARAM_NAMES = frozenset({"cfg", "config", "conf", "settings", "params", "hparams", "opts", "options", "args"})
SCALAR_ANNOTATIONS = frozenset({"int", "float", "str", "bool", "bytes", "None"})
# Containers: a `dict` of observations is the common input of a policy; only lint mode, which has no
# caller to follow, reads them as settings.
NON_DATA_ANNOTATIONS = SCALAR_ANNOTATIONS | {"dict", "list", "tuple"}


def lint_data_params(fn: FunctionInfo, containers: bool = False) -> set[str]:
    """Lint mode: parameters treated as pipeline data when no entrypoint is known. With `containers` (the
    entry), a parameter annotated `dict`/`list`/`tuple` is data too: the annotation says what holds the
    values, not that they are settings."""
    non_data = SCALAR_ANNOTATIONS if containers else NON_DATA_ANNOTATIONS
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
        if isinstance(ann, ast.Name) and (ann.id in non_data or ann.id.endswith(("Config", "Cfg"))):
            continue
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str) and ann.value in non_data:
            continue
        if arg.arg in flag_params(fn):
            continue
        out.add(arg.arg)
    return out


def flag_params(fn: FunctionInfo) -> set[str]:
    """Parameters whose default is a Python flag or setting (`hard_reset=False`, `mode="eval"`, `k=3`,
    `hidden=None`): not pipeline data by themselves."""
    args = fn.node.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return {a.arg for a, d in pairs
            if isinstance(d, ast.Constant) and (d.value is None or isinstance(d.value, (bool, int, float, str)))}


# A call that leaves a parameter to its default (`caller_arguments`).
DEFAULT = object()


def caller_arguments(project: Project, fn: FunctionInfo) -> dict[str, set]:
    """What calls in the project (a driver) pass to each parameter of `fn`, matched by the function's
    name (or bound by `functools.partial`): the constant values, UNKNOWN for anything else, DEFAULT where a
    call leaves the parameter to its default."""
    out: dict[str, set] = {}
    params = fn.positional_params[1:] if fn.is_method else fn.positional_params
    for module in list(project.modules.values()):
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.Call):
                continue
            func, args = node.func, node.args
            name = called_name(func)
            if name == "partial" and args and called_name(args[0]) == fn.name:
                func, args = args[0], args[1:]   # `functools.partial(agent.act, training=False)` binds them
                name = fn.name
            if name != fn.name:
                continue
            passed = [(params[i], arg) for i, arg in enumerate(args) if i < len(params)]
            passed += [(k.arg, k.value) for k in node.keywords if k.arg]
            for param, arg in passed:
                out.setdefault(param, set()).add(arg.value if isinstance(arg, ast.Constant) else UNKNOWN)
            if not any(isinstance(a, ast.Starred) for a in args) and not any(k.arg is None for k in node.keywords):
                for param in set(params) - {p for p, _ in passed}:
                    out.setdefault(param, set()).add(DEFAULT)
    return out


def passed_by_callers(project: Project, fn: FunctionInfo) -> set[str]:
    """Parameters of `fn` that some call in the project passes a non-constant value to."""
    return {p for p, values in caller_arguments(project, fn).items() if UNKNOWN in values}


def entry_flag_constants(project: Project, fn: FunctionInfo, data: set[str]) -> dict[str, set]:
    """The values the entry's flag parameters (`deterministic=False`, `stochastic_output=False`) take:
    their default, plus what calls in the project pass. Blocks a flag rules out are not the pipeline."""
    args = fn.node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    passed = caller_arguments(project, fn)
    out = {}
    for p in flag_params(fn) - data:
        values = passed.get(p, {DEFAULT})
        out[p] = values - {DEFAULT} | ({defaults[p].value} if DEFAULT in values else set())
    return out


def entry_data_params(fn: FunctionInfo) -> set[str]:
    params = fn.params
    if fn.node.args.vararg:
        params = [*params, fn.node.args.vararg.arg]
    if fn.node.args.kwarg:
        params = [*params, fn.node.args.kwarg.arg]
    self_name = self_name_of(fn)
    return {p for p in params if p != self_name}



def per_call_flags(project: Project, fn: FunctionInfo) -> set[str]:
    """Parameters of `fn` some call in the project passes a test on a number its loop advances (`reset=t == 0`,
    `first=step < 1` with `for t, frame in enumerate(frames)` or `step += 1` around it): a Python bool that
    differs from one call to the next, unlike a setting the caller fixes."""
    params = fn.positional_params[1:] if fn.is_method else fn.positional_params
    found: set[str] = set()
    for module in list(project.modules.values()):
        counters = None
        for node in ast.walk(module.tree):
            if not (isinstance(node, ast.Call) and called_name(node.func) == fn.name):
                continue
            if counters is None:
                counters = _loop_counters(module.tree)
            passed = [(params[i], arg) for i, arg in enumerate(node.args) if i < len(params)]
            passed += [(k.arg, k.value) for k in node.keywords if k.arg]
            found |= {param for param, arg in passed if _counter_test(arg, counters)}
    return found


def _loop_counters(tree: ast.AST) -> set[str]:
    """Names a module's loops count with: `for` targets (`for t, frame in enumerate(...)`) and `+=`/`-=`
    targets."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            names |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                and isinstance(node.op, (ast.Add, ast.Sub)):
            names.add(node.target.id)
    return names


def _counter_test(arg: ast.expr, counters: set[str]) -> bool:
    """`t == 0`, `step < warmup`, `not (i % 10)`, `a and t == 0`: a comparison that reads a loop counter."""
    tests = [n for n in ast.walk(arg) if isinstance(n, ast.Compare)]
    if not tests or not isinstance(arg, (ast.Compare, ast.BoolOp, ast.UnaryOp)):
        return False
    return any(isinstance(n, ast.Name) and n.id in counters for t in tests for n in ast.walk(t))
