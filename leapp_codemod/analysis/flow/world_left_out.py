"""A step of the world inside an inline range (`obs, r, d, i = env.step(a)` with statements after it) is cut on
purpose: the action leaves the pipeline there. When that step runs project code (the project's environment, or
a project environment whose `step` comes from a library base and runs the class's hooks), the scan says it left
that code out: code there that computes the next observation is pipeline work outside the range."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.context import FunctionContext


def world_step_left_out(ctx: FunctionContext, call: ast.Call) -> str | None:
    """Why a range's step of the world that runs project code (`self.env.step(a)` of the project's robot or
    simulator environment) is left out: the scan stops there on purpose, and says so, since code in that step
    that computes the next observation is pipeline work outside the range. None for a library's step (a gym
    environment)."""
    targets = ctx.world_step_targets(call)
    if not targets:
        return _inherited_world_step(ctx, call)
    names = ", ".join(f"`{t.qualname}` ({t.path}:{t.node.lineno})" for t in targets[:3])
    return (f"the range's step of the world runs the project's {names}: the action leaves the range here and the "
            f"scan does not follow it; if that step computes the next observation, that code is pipeline work "
            f"outside the range (check it with `--entry {targets[0].id}`)")


# Words of a method name that say an environment's step calls it to act or to observe (`apply_action`,
# `get_observations`, `_pre_physics_step`): the project's hooks a library environment's `step` runs.
_HOOK_WORDS = frozenset({"action", "actions", "observation", "observations", "obs", "physics"})


def _inherited_world_step(ctx: FunctionContext, call: ast.Call) -> str | None:
    """A range's step of the world on a project environment whose `step` comes from a base class the scan does
    not have (`PandaRobotSupervisor(RobotSupervisorEnv)` of a library neither scanned nor installed): that
    step runs the project's own hooks (`apply_action`, `get_observations`), which the scan cannot see it call."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    for type_name in sorted(ctx.types_of(func.value)):
        cls = ctx.class_for_type(type_name)
        if cls is None or not cls.base_exprs or ctx.project.find_method(cls, func.attr) is not None:
            continue
        hooks = sorted(name for klass in ctx.project.mro(cls) for name in klass.methods
                       if set(name.lower().strip("_").split("_")) & _HOOK_WORDS)
        bases = ", ".join(f"`{ast.unparse(b)}`" for b in cls.base_exprs)
        return (f"`{ast.unparse(func.value)}` is a project `{cls.name}` whose `{func.attr}` comes from a base the scan "
                f"does not have ({bases}); that step may run the class's own hooks "
                f"({', '.join(f'`{h}`' for h in hooks[:6]) or 'none found'}), which compute the next observation "
                f"and apply the action outside the range's trace")
    return None
