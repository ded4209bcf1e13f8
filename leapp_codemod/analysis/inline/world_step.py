"""A given inline range that ends in the world's step (`obs, r, done, info = env.step(action)`,
`mujoco.mj_step(m, d)`): the step is where the action leaves the pipeline, not pipeline code.

Scanned as written, the step's callee (a project's own simulator or environment) would be analysed as part of
the pipeline and what it returns taken for state the pipeline carries; exported as written, the simulator
would be traced with the policy. The range is taken up to the statement before the step, and its note says so.
Only whole statements at the range's end count, and at least one statement stays.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.world_steps import world_step


def end_before_world_step(statements: tuple[ast.stmt, ...]) -> tuple[int, ast.stmt] | None:
    """(the last line before the trailing world steps, the first of them) when the range ends in one and
    something else is left; None otherwise."""
    kept = len(statements)
    while kept > 1 and world_step(statements[kept - 1]):
        kept -= 1
    if kept == len(statements):
        return None
    return statements[kept - 1].end_lineno, statements[kept]


def step_note(start: int, end: int, cut: int, step: ast.stmt) -> str:
    return (f"lines {start}-{end} end in the world's step at line {step.lineno} (`{ast.unparse(step.value)[:60]}`): "
            f"taken as {start}-{cut}; what the step is handed is the range's output, what it returns the next "
            "observation")
