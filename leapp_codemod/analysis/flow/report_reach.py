"""Functions the step calls only for a report: their findings are not the export's.

A project helper whose calls are values (`PurityQuestions.value_only`) and whose every call site is in a
statement that reaches none of its caller's outputs (the argument of a log line, a result thrown away), or in a
function itself called only so, computes nothing the exported model keeps: a conversion, a NumPy call or a branch
inside it is no hazard of the export. Its I/O stays reported (a print the export drops is still one).
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.world_steps import WRAPPED_STEPS_KEY


def reached_for_reports(analysis, fn: FunctionInfo) -> bool:
    """Is `fn` reached only through calls whose value reaches no output of the step (see the module doc)?"""
    memo = analysis.project.memo
    key = ("reached_for_reports", fn.id)
    known = memo.get(key)
    if known is not None:
        return known
    memo[key] = False   # a cycle of helpers calling each other is not proven by itself
    memo[key] = verdict = _reached_for_reports(analysis, fn)
    return verdict


def _reached_for_reports(analysis, fn: FunctionInfo) -> bool:
    project = analysis.project
    callers = analysis.facts.callers.get(fn.id)
    if not callers or project.is_library(fn.module) or fn.id in analysis.roots:
        return False
    if not analysis.context(fn).value_only():
        return False
    for caller_id in callers:
        caller = analysis.reachable.get(caller_id)
        if caller is None or project.is_library(caller.module):
            return False
        if reached_for_reports(analysis, caller):
            continue
        ctx = analysis.context_with_env(caller)
        sites = [n for n in caller.nodes if isinstance(n, ast.Call) and any(c.id == fn.id for c in ctx.resolve_call(n))]
        if not sites or any(ctx.reaches_output(site) for site in sites):
            return False   # a call the scan cannot place (a thread target, `map`), or one whose value is kept
    return True


def world_bookkeeping(analysis, fn: FunctionInfo) -> bool:
    """Is `fn` run by a kept world step (`analysis/infer/world_bookkeeping.py`) only for the host's bookkeeping:
    every call site is in such a step (or in a function itself run only so) and reaches none of its outputs
    (`self.recover_after_crash()` under a collision count)? Its code, effects included, is the world's."""
    memo = analysis.project.memo
    key = ("world_bookkeeping", fn.id)
    if key not in memo:
        memo[key] = False   # a cycle of helpers calling each other is not proven by itself
        memo[key] = _world_bookkeeping(analysis, fn)
    return memo[key]


def _world_bookkeeping(analysis, fn: FunctionInfo) -> bool:
    kept_steps = analysis.project.memo.get(WRAPPED_STEPS_KEY, {})
    callers = analysis.facts.callers.get(fn.id)
    if not kept_steps or not callers or fn.id in analysis.roots or fn.id in kept_steps:
        return False
    for caller_id in callers:
        caller = analysis.reachable.get(caller_id)
        if caller is None:
            return False
        if caller_id not in kept_steps:
            if world_bookkeeping(analysis, caller):
                continue   # all a bookkeeping helper runs is bookkeeping
            return False
        ctx = analysis.context_with_env(caller)
        sites = [n for n in caller.nodes if isinstance(n, ast.Call) and any(c.id == fn.id for c in ctx.resolve_call(n))]
        if not sites or any(ctx.reaches_output(site) for site in sites):
            return False
    return True
