"""Rank candidate pipeline entrypoints, each with the reasons that put it there."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.context import Facts, FunctionContext
from leapp_codemod.analysis.dataflow import compute_env
from leapp_codemod.analysis.index import FunctionInfo
from leapp_codemod.analysis.leapp_support import LeappSupport
from leapp_codemod.analysis.project import Project
from leapp_codemod.model import Entrypoint

ENTRY_NAMES = frozenset({"act", "predict", "policy", "get_action", "get_actions", "infer", "inference", "forward",
                         "__call__", "step", "compute_action", "compute_actions", "select_action", "control",
                         "run_policy", "act_inference", "evaluate", "control_step"})
NO_GRAD = ("torch.no_grad", "torch.inference_mode", "torch.autograd.grad_mode.no_grad")


@dataclass
class CallSites:
    in_loops: dict[str, list[tuple[FunctionInfo, int]]] = field(default_factory=dict)   # fid -> callers in loops
    by_name_in_loops: dict[str, list[tuple[FunctionInfo, int]]] = field(default_factory=dict)
    callers: dict[str, set[str]] = field(default_factory=dict)
    calls_module: set[str] = field(default_factory=set)


def _loop_call_nodes(fn: FunctionInfo):
    for node in ast.walk(fn.node):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            for stmt in node.body:
                for sub in ast.walk(stmt):
                    if isinstance(sub, ast.Call):
                        yield sub


def _collect_call_sites(project: Project, support: LeappSupport) -> CallSites:
    sites = CallSites()
    facts = Facts()
    for fn in project.functions():
        ctx = FunctionContext(fn, project.modules[fn.module], project, facts, support)
        compute_env(ctx)
        loop_calls = {id(c) for c in _loop_call_nodes(fn)}
        for node in ast.walk(fn.node):
            if not isinstance(node, ast.Call):
                continue
            targets = ctx.resolve_call(node)
            for target in targets:
                sites.callers.setdefault(target.id, set()).add(fn.id)
                if id(node) in loop_calls:
                    sites.in_loops.setdefault(target.id, []).append((fn, node.lineno))
            if _calls_nn_module(ctx, node):
                sites.calls_module.add(fn.id)
            if id(node) in loop_calls and not targets and isinstance(node.func, ast.Attribute):
                sites.by_name_in_loops.setdefault(node.func.attr, []).append((fn, node.lineno))
    return sites


def _calls_nn_module(ctx: FunctionContext, call: ast.Call) -> bool:
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == ctx.self_name):
        return False
    if ctx.cls is None:
        return False
    for type_name in ctx.attr_types(ctx.cls, func.attr):
        if type_name.startswith("torch.nn.") or type_name.startswith("nn."):
            return True
        cls = ctx._class_for_type(type_name)
        if cls is not None and ctx.project.is_nn_module(cls):
            return True
    return False


def _decorated_no_grad(fn: FunctionInfo, project: Project) -> bool:
    module = project.modules[fn.module]
    for deco in fn.node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = project.qualify(target, module)
        if name and project.external_name(name) in NO_GRAD:
            return True
    for node in ast.walk(fn.node):
        if isinstance(node, ast.With):
            for item in node.items:
                expr = item.context_expr
                name = project.qualify(expr.func if isinstance(expr, ast.Call) else expr, module)
                if name and project.external_name(name) in NO_GRAD:
                    return True
    return False


def _returns_value(fn: FunctionInfo) -> bool:
    return any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(fn.node))


def _score(fn: FunctionInfo, project: Project, sites: CallSites) -> tuple[int, list[str]]:
    score, reasons = 0, []
    loops = [(caller, line) for caller, line in sites.in_loops.get(fn.id, []) if caller.id != fn.id]
    if loops:
        caller, line = loops[0]
        same_module = caller.module == fn.module
        score += 3 if same_module else 6
        reasons.append(f"called in a loop by {caller.qualname} ({caller.path}:{line})")
    elif fn.name in sites.by_name_in_loops:
        caller, line = sites.by_name_in_loops[fn.name][0]
        if caller.module != fn.module:
            score += 2
            reasons.append(f"`.{fn.name}(...)` called in a loop by {caller.qualname} ({caller.path}:{line})")
    if fn.name in ENTRY_NAMES:
        score += 3
        reasons.append(f"named `{fn.name}`")
    if _decorated_no_grad(fn, project):
        score += 2
        reasons.append("runs under torch.no_grad / inference_mode")
    if fn.id in sites.calls_module:
        score += 2
        reasons.append("calls an nn.Module")
    n_inputs = len(fn.params) - (1 if fn.is_method else 0)
    if n_inputs >= 1 and _returns_value(fn):
        score += 1
        reasons.append(f"takes {n_inputs} input(s) and returns a value")
    callers = sites.callers.get(fn.id, set()) - {fn.id}
    if callers and not loops:
        score -= 2
        reasons.append("called by other project code (a callee, not the top of the pipeline)")
    if project.modules[fn.module].has_main_guard and not loops and fn.class_name is not None:
        score -= 1
    return score, reasons


def rank_entrypoints(project: Project, support: LeappSupport, limit: int = 10) -> list[Entrypoint]:
    sites = _collect_call_sites(project, support)
    ranked: list[Entrypoint] = []
    for fn in project.functions():
        if fn.name.startswith("test_") or (fn.name.startswith("_") and fn.name != "__call__"):
            continue
        score, reasons = _score(fn, project, sites)
        if score >= 4:
            ranked.append(Entrypoint(fn.module, fn.qualname, fn.path, fn.node.lineno, score, tuple(reasons)))
    ranked.sort(key=lambda e: (-e.score, e.path, e.line))
    return ranked[:limit]
