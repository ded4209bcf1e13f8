"""What a candidate's caller does with it, and what a candidate does itself, that says it is no policy step.

- Its result is only logged: `video = agent._wm.video_pred(batch)` then `logger.video("openl", video)`.
  The policy step returns what is sent out as an action; a routine whose output only reaches a logger
  draws, records or reports.
- It runs a rollout: one of its own loops both runs the model and steps something else
  (`action = agent(obs)` ... `env.step(a)`): it drives the policy step, it is not one.
- It is run only by rollouts (`actions = policy(obs)` then `env.step(actions)`: the environment builds the
  observation). When the project also writes a pipeline inline that builds the observation itself (a
  sim2sim or deploy loop with many statements around the model call), that range is what runs on the robot:
  the rollout-driven function ranks below it.
"""
from __future__ import annotations

import ast

from dataclasses import replace

from leapp_codemod.analysis.entry.drivers import name_words
from leapp_codemod.analysis.entry.loops import steps_or_resets
from leapp_codemod.analysis.entry.ordering import copied_folder, retired_folder
from leapp_codemod.analysis.entry.signs import simulator_step
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.model import Entrypoint

ROLLOUT_DRIVEN = "run only by simulation rollouts"
# Receivers whose calls log or report (`logger.video(...)`, `writer.add_scalar(...)`, `wandb.log(...)`).
LOGGER_WORDS = frozenset({"logger", "log", "writer", "wandb", "tb", "tensorboard", "summary", "recorder", "viz"})
# First words of functions that log, draw or save.
LOG_VERBS = frozenset({"log", "plot", "print", "save", "render", "draw", "write", "record", "display", "show",
                       "visualize", "dump", "video", "add"})


def _logging_call(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name.lstrip("_").split("_")[0].lower() in LOG_VERBS and isinstance(func, ast.Name):
        return True
    receiver = func.value if isinstance(func, ast.Attribute) else None
    while isinstance(receiver, ast.Attribute):
        receiver = receiver.value if not (name_words(receiver.attr) & LOGGER_WORDS) else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and \
            name_words(func.value.attr) & LOGGER_WORDS:
        return True
    return isinstance(receiver, ast.Name) and bool(name_words(receiver.id) & LOGGER_WORDS)


def only_logged(caller: FunctionInfo, line: int, callee_name: str) -> bool:
    """Is the result of the call of `callee_name` on `line` of `caller` used only as arguments of logging
    calls (and used at all)?"""
    target = None
    for node in caller.nodes:
        if (isinstance(node, ast.Assign) and node.lineno == line and isinstance(node.value, ast.Call)
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            func = node.value.func
            if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) == callee_name:
                target = node.targets[0].id
    if target is None:
        return False
    logged = {id(n) for call in caller.nodes if isinstance(call, ast.Call) and _logging_call(call)
              for n in ast.walk(call) if isinstance(n, ast.Name)}
    uses = [n for n in caller.nodes if isinstance(n, ast.Name) and n.id == target and isinstance(n.ctx, ast.Load)]
    return bool(uses) and all(id(n) in logged for n in uses)


def runs_rollout(fn: FunctionInfo, model_lines: set[int]) -> int | None:
    """The line of a loop of `fn` that runs the model (a call on one of `model_lines`) and steps something
    else in the same iteration, or None."""
    if not model_lines:
        return None
    for loop in (n for n in fn.nodes if isinstance(n, (ast.For, ast.While, ast.AsyncFor))):
        inner = [n for stmt in loop.body for n in ast.walk(stmt)]
        if any(getattr(n, "lineno", 0) in model_lines for n in inner if isinstance(n, ast.Call)) and any(
                steps_or_resets(stmt) for stmt in loop.body):
            return loop.lineno
    return None


def below_built_pipelines(ranked: list[Entrypoint], statements: dict[str, int], least: int) -> list[Entrypoint]:
    """`statements`: inline range id -> statements of pipeline code. Functions run only by rollouts are put one
    point below the best range of at least `least` statements scored at or below them, with the reason."""
    scores = {c.id: c.score for c in ranked if c.kind == "inline" and statements.get(c.id, 0) >= least
              and copied_folder(c.path) is None and retired_folder(c.path) is None}   # a kept copy runs nothing
    if not scores:
        return list(ranked)
    best_id = max(scores, key=lambda k: (scores[k], statements[k]))
    out = []
    for c in ranked:
        if c.kind == "function" and c.score >= scores[best_id] and any(r.startswith(ROLLOUT_DRIVEN)
                                                                        for r in c.reasons):
            c = replace(c, score=scores[best_id] - 1, reasons=(
                *c.reasons, f"ranked below the range {best_id}, which builds the observation itself "
                            f"({statements[best_id]} statements)"))
        out.append(c)
    return out


def simulated_ranges(inline) -> set[str]:
    """Ids of the inline ranges (`(fn, pipeline, _)` triples) whose loop steps or resets something else in the
    same iteration (`obs, r, done, _ = env.step(action)`): the observation comes from a simulator. The ids of
    the functions holding such a loop (the rollout itself) are in the set too."""
    out = set()
    for fn, pipeline, _ in inline:
        loop = next((n for n in fn.nodes if isinstance(n, (ast.For, ast.While, ast.AsyncFor))
                     and n.lineno == pipeline.loop_line), None)
        if loop is not None and any(steps_or_resets(stmt) for stmt in loop.body):
            out |= {f"{fn.path}:{pipeline.start}-{pipeline.end}", fn.id}
    return out


def simulator_loops(inline, project) -> dict[str, str]:
    """Ids of the inline ranges (`(fn, pipeline, _)` triples) whose loop advances a physics simulator
    (`mujoco.mj_step(model, data)` in the same iteration), and of the functions holding such a loop ->
    `mujoco.mj_step (file:line)`. Unlike `simulated_ranges`, an `env.step(a)` is not enough: a robot's
    environment wrapper steps too."""
    out: dict[str, str] = {}
    for fn, pipeline, _ in inline:
        loop = next((n for n in fn.nodes if isinstance(n, (ast.For, ast.While, ast.AsyncFor))
                     and n.lineno == pipeline.loop_line), None)
        module = project.modules.get(fn.module)
        if loop is None or module is None:
            continue
        for call in (n for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, ast.Call)):
            name = simulator_step(call, module, project)
            if name is not None:
                where = f"{name} ({fn.path}:{call.lineno})"
                out.setdefault(f"{fn.path}:{pipeline.start}-{pipeline.end}", where)
                out.setdefault(fn.id, where)
                break
    return out


def below_driven_callbacks(ranked: list[Entrypoint], callbacks: set[str], simulated: set[str]) -> list[Entrypoint]:
    """`callbacks`: ids of functions a framework calls repeatedly (a timer, a subscriber, a thread) that run a
    model; `simulated`: ids of inline ranges that step a simulator. Such a callback is the deployed step (it
    runs on the robot's clock or data); a simulation rollout scored at or above it goes one point below it."""
    scores = [c.score for c in ranked if c.kind == "function" and c.id in callbacks]
    if not scores:
        return list(ranked)
    best = max(scores)
    leader = next(c for c in ranked if c.kind == "function" and c.id in callbacks and c.score == best)
    out = []
    for c in ranked:
        if c.id in simulated and c.id not in callbacks and c.score >= best:
            c = replace(c, score=best - 1, reasons=(
                *c.reasons, f"a simulation rollout (its loop steps or resets an environment): ranked below "
                            f"{leader.qualname}, which a framework calls repeatedly and which runs the model"))
        out.append(c)
    return out


# Calls whose result is a random draw or a constant-filled tensor or array, whatever sizes they are given.
NOISE_SOURCES = frozenset({"randn", "rand", "randint", "normal", "uniform", "random", "random_sample", "zeros",
                           "ones", "full", "empty", "randn_like", "rand_like", "arange", "linspace"})
# ... and conversions that are constants only when their arguments are (`torch.tensor([0.0, 1.0])`).
_CONVERSIONS = frozenset({"tensor", "array", "Tensor", "FloatTensor", "as_tensor", "asarray"})
# Moves and casts that keep a draw a draw (`torch.randn(3).to(device)`).
_MOVES = frozenset({"to", "cuda", "cpu", "float", "double", "half", "unsqueeze", "detach"})


def fed_only_noise(caller: FunctionInfo, line: int, callee_name: str) -> bool:
    """Does the call of `callee_name` on `line` of `caller` (any call there with arguments, for a network's
    `forward`/`__call__`) take only random draws and constants (`probe(torch.randn(1, 48))`,
    `net.get_action(state)` with `state = torch.rand(3, 4)` drawn before)? It feeds no observation: a probe
    or a shape check, not a pipeline. Constants alone (`step(1, 2)`) are no draw."""
    calls = [n for n in caller.nodes if isinstance(n, ast.Call) and n.lineno == line and (n.args or n.keywords)]
    named = [c for c in calls if _called(c) == callee_name] or (
        [c for c in calls if _called(c) not in NOISE_SOURCES | _CONVERSIONS | _MOVES | {"print"}]
        if callee_name in ("forward", "__call__") else [])
    args = [arg for c in named for arg in (*c.args, *(k.value for k in c.keywords))]
    return bool(args) and all(_noise(arg, caller, 0) for arg in args) and any(   # `step(1, 2)` draws nothing
        isinstance(n, ast.Call) and _called(n) in NOISE_SOURCES for a in args for n in ast.walk(_drawn(a, caller)))


def _drawn(arg: ast.expr, caller: FunctionInfo) -> ast.AST:
    """The argument, or for a local name the statements that bind it (where its draw is)."""
    if not isinstance(arg, ast.Name):
        return arg
    return ast.Module(body=[n for n in caller.nodes if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == arg.id for t in n.targets)], type_ignores=[])


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _noise(expr: ast.expr, caller: FunctionInfo, depth: int) -> bool:
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, (ast.Tuple, ast.List)):
        return all(_noise(e, caller, depth) for e in expr.elts)
    if isinstance(expr, ast.Call):
        name = _called(expr)
        if name in _MOVES and isinstance(expr.func, ast.Attribute):
            return _noise(expr.func.value, caller, depth)
        if name in _CONVERSIONS:
            return all(_noise(a, caller, depth) for a in expr.args)
        return name in NOISE_SOURCES
    if isinstance(expr, ast.Name) and depth == 0:    # `state = torch.rand(b, n)` before the call
        values = [n.value for n in caller.nodes if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == expr.id for t in n.targets)]
        return bool(values) and all(_noise(v, caller, 1) for v in values) and not _filled(expr.id, caller)
    return False


def _filled(name: str, caller: FunctionInfo) -> bool:
    """Is `name` written into after it is built (`obs[:3] = omega`, `obs += bias`, `obs.copy_(x)`, or handed to
    another call that may fill it)? A zeros buffer filled with sensor values is an observation."""
    for node in caller.nodes:
        target = node.value if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) else \
            node.target if isinstance(node, ast.AugAssign) else \
            node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else None
        if isinstance(target, ast.Name) and target.id == name:
            return True
    return False
