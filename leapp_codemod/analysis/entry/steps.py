"""The policy step ranks above what only drives it and above what it only calls.

- **A rollout below the policy it drives.** A function whose own loop runs the model and steps an
  environment (`a = policy.act(obs, t)` then `env.step(a)`, with the timing and the recording around
  them) drives the policy step; it is not one. When the step it calls is a candidate (the project
  function the call resolves to, or the one non-abstract project method of that name), the rollout is
  put one point below it.
- **A part below the step that calls it.** A function named like a policy step that returns a value
  (`get_action(data)`: builds the input, runs the networks, returns the action) is the step; the
  project functions it calls, directly or through their callees (an image-embedding helper, the
  encoder behind it), are parts of it, whatever loops call them elsewhere (dataset preprocessing). Each
  part scored at or above the step is put one point below it. Callees that are policy steps themselves
  (`self.policy.act(obs)` inside an agent's `act`) are not parts: the walk stops at them.
"""
from __future__ import annotations

import ast
from dataclasses import replace

from leapp_codemod.analysis.entry.lookup import has_model_sign, is_training_candidate
from leapp_codemod.analysis.entry.uses import runs_rollout
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.model import Entrypoint

# How many calls deep a step's parts are looked for (step -> helper -> encoder -> its model).
PART_DEPTH = 3


def driven_steps(fn: FunctionInfo, model_lines: set[int], project_calls: list[tuple[ast.Call, list[str]]],
                 definers: dict[str, list[str]]) -> set[str]:
    """The policy steps a rollout's loop runs: the project functions its model calls (on `model_lines`) in that
    loop resolve to (`project_calls`: its calls and their targets), or, for a call on an object of unknown class
    (`policy.act(obs, t)`), the project methods of that name that are not abstract (`definers`: method name
    -> such methods; the rollout goes below the best of them). Empty when `fn` runs no rollout."""
    at = runs_rollout(fn, model_lines)
    loop = next((n for n in fn.nodes if isinstance(n, (ast.For, ast.While, ast.AsyncFor)) and n.lineno == at), None)
    if loop is None:
        return set()
    resolved = {id(node): tids for node, tids in project_calls}
    out: set[str] = set()
    for call in (n for n in ast.walk(loop) if isinstance(n, ast.Call) and n.lineno in model_lines):
        if id(call) in resolved:
            out.update(resolved[id(call)])
        elif isinstance(call.func, ast.Attribute):
            out.update(definers.get(call.func.attr, ()))
    return out


def below_driven_steps(ranked: list[Entrypoint], drives: dict[str, set[str]]) -> list[Entrypoint]:
    """`drives`: id of a rollout function -> ids of the policy steps its loop calls. Each rollout scored at or
    above the best of its steps that is a candidate goes one point below it, with the reason."""
    functions = {c.id: c for c in ranked if c.kind == "function"}
    out = []
    for c in ranked:
        steps = [functions[s] for s in sorted(drives.get(c.id, ())) if s in functions and s != c.id]
        best = max(steps, key=lambda s: s.score, default=None)
        if c.kind == "function" and best is not None and c.score >= best.score:
            c = replace(c, score=best.score - 1, reasons=(
                *c.reasons, f"ranked below {best.qualname}, the policy step its loop drives (it steps the "
                            f"environment around that call)"))
        out.append(c)
    return out


def parts_of(step: str, callees: dict[str, set[str]], is_step) -> set[str]:
    """Project functions `step` reaches through its calls, PART_DEPTH deep, not through other steps."""
    seen: set[str] = set()
    frontier = {step}
    for _ in range(PART_DEPTH):
        frontier = {callee for fid in frontier for callee in callees.get(fid, ())
                    if callee != step and callee not in seen and not is_step(callee)}
        seen |= frontier
    return seen


def below_their_steps(ranked: list[Entrypoint], steps: set[str], callees: dict[str, set[str]],
                      is_step) -> list[Entrypoint]:
    """`steps`: ids of the candidates that are policy steps returning a value; `callees`: fid -> the project
    functions it calls; `is_step(fid)`: is that function named like a policy step. Every function candidate
    one of those steps reaches (see `parts_of`) and scored at or above it goes one point below it."""
    leaders = [c for c in ranked if c.kind == "function" and c.id in steps and has_model_sign(c)
               and not is_training_candidate(c)]
    owner: dict[str, Entrypoint] = {}
    for step in sorted(leaders, key=lambda c: -c.score):
        for part in parts_of(step.id, callees, is_step):
            if step.id not in parts_of(part, callees, is_step):   # no cycle: one of them calls the other
                owner.setdefault(part, step)
    out = []
    for c in ranked:
        step = owner.get(c.id) if c.kind == "function" else None
        if step is not None and c.score >= step.score:
            c = replace(c, score=step.score - 1, reasons=(
                *c.reasons, f"a part of {step.qualname} ({step.path}:{step.line}), the policy step that calls it "
                            f"and returns the action: ranked below it"))
        out.append(c)
    return out


def below_their_planners(ranked: list[Entrypoint], in_loops: dict[str, list], driven: set[str]) -> list[Entrypoint]:
    """`in_loops`: function id -> (caller, line) of the loops that call it; `driven`: ids of the candidates a
    driver calls in a loop. A function called only in the loops of one such candidate, loops that step or reset
    nothing (a planner's search over its horizon, `x = sample_n(model, x, ...)` per expansion), is a part of
    that candidate's step: scored at or above it, it goes one point below it."""
    functions = {c.id: c for c in ranked if c.kind == "function"}
    out = []
    for c in ranked:
        sites = [(caller, line) for caller, line in in_loops.get(c.id, []) if caller.id != c.id]
        owners = {caller.id for caller, _ in sites}
        owner = functions.get(next(iter(owners))) if len(owners) == 1 else None
        if (c.kind == "function" and owner is not None and owner.id in driven and c.score >= owner.score
                and all(runs_rollout(caller, {line}) is None for caller, line in sites)):
            c = replace(c, score=owner.score - 1, reasons=(
                *c.reasons, f"a part of {owner.qualname} ({owner.path}:{owner.line}): called only in its own loop, "
                            f"which steps nothing; a driver runs {owner.qualname} per step: ranked below it"))
        out.append(c)
    return out
