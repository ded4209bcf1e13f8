"""Which statements step the world (`obs, r, done, info = env.step(action)`, `mujoco.mj_step(m, d)`): where an
action leaves a loop's pipeline. Read by inline ranges (a range's end, `analysis.inline.world_step`) and by call
resolution (a step inside a range is not followed into the simulator)."""
from __future__ import annotations

import ast

from leapp_codemod.knowledge.actuation import ENGINE_STEP_CALLS, NOT_STEPPED, WORLD_STEP_CALLS

# Project memo key: (path, line, column) of a range's step call -> the project wrapper method the range keeps
# (`analysis/inline/wrapped_world.py`): the call resolves to it whatever library wrapper (`Monitor(env)`) the
# receiver holds around the environment.
WRAPPED_CALLS_KEY = ("wrapped-world-calls",)
# Project memo key: fid -> the wrapper steps a scanned range keeps (their link reads hand it the next observation;
# their slice keeps only the pipeline's part, `analysis/infer/world_bookkeeping.py`).
WRAPPED_STEPS_KEY = ("wrapped-world-steps",)


def receiver_words(func: ast.Attribute) -> set[str]:
    receiver = func.value
    if isinstance(receiver, ast.Subscript):      # `envs[i].step(a)`
        receiver = receiver.value
    name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    return set(name.lower().split("_")) if name else set()


def world_step(stmt: ast.stmt) -> bool:
    """Is the statement a call that advances the world (its result assigned or unused)?"""
    value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
    return isinstance(value, ast.Call) and world_step_call(value)


def world_step_call(value: ast.Call) -> bool:
    """Is the call one that advances the world (`env.step(a)`, `mujoco.mj_step(m, d)`)?"""
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in WORLD_STEP_CALLS:
        return False
    if isinstance(func, ast.Attribute) and name in ("step", "step_async"):
        words = receiver_words(func)
        return bool(words) and not words & NOT_STEPPED
    return True


def advances_world(call: ast.Call) -> bool:
    """A world step or a simulator engine's step (`mujoco.mj_step(m, d)`, `p.stepSimulation()`): the world
    moving on, wherever it sits (a project wrapper's `step` the scan follows), never a computation to trace."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in ENGINE_STEP_CALLS or world_step_call(call)


def world_step_calls(fn_node: ast.AST, walks: dict) -> frozenset[int]:
    """The calls (by node id) of the world's steps a range makes inside it, as statements (`obs, r, d, i =
    env.step(action)` in the middle of a range that runs on to the next policy call): the action leaves the
    pipeline there as it does at a range's end, so the scan does not follow the step into the simulator.
    Kept in `walks` (the function's per-walk cache)."""
    found = walks.get("world steps")
    if found is None:
        found = walks["world steps"] = frozenset(
            id(stmt.value) for stmt in ast.walk(fn_node) if isinstance(stmt, ast.stmt) and world_step(stmt))
    return found
