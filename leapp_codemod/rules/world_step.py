import ast

from leapp_codemod.analysis.infer.context import advances_world, receiver_words
from leapp_codemod.knowledge.actuation import WORLD_WORDS
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def check(node: ast.Call, ctx):
    if not advances_world(node) or ctx.in_error_handler(node) or ctx.in_bail_out(node) or ctx.runs_once():
        return
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("step", "step_async") and not ctx.args_data(node) \
            and not receiver_words(func) & WORLD_WORDS:
        return   # `self.motion_manager.step()`: a clock or a player moved on, handed nothing of the pipeline
    if ctx.resolve_call(node):
        return   # the project's own step, followed: its engine step inside is the finding
    if isinstance(func, ast.Attribute) and func.attr in ("step", "step_async") and not ctx.in_range() \
            and not ctx.types_of(func.value):
        return   # `self.env.step(a)` on an object of unknown class: listed as not followed, no world claimed
    yield Hit(node, f"`{show(node)}` advances the world (a simulator or the robot) inside the pipeline; the "
                    f"exported model cannot contain it and drops the call",
              "end the pipeline before the world's step: what the step is handed is the pipeline's output, what "
              "it returns the next call's input (an inline entry ending before it, or a step function that "
              "returns the action)")


RULE = Rule(
    code="LCM904", name="world-step", category="io-in-pipeline", severity="warning",
    summary="the world's step (an environment's `step`, a physics engine's step) inside the exported step",
    what="Flags a call that advances the world inside the pipeline's code: an environment's `step(action)` or "
         "`step_async` handed pipeline data, or a `step` of an object named as the world (`self.scene.step()`, "
         "`space.step(dt)`), not that of an optimizer, a scheduler, a model or the object itself, `mujoco.mj_step`, "
         "a simulator's `simulate`, `stepSimulation`, `do_simulation` and the like, when it runs no project "
         "code the scan follows (a project environment's own `step` is followed, and the engine step inside it "
         "is the finding). Outside an inline range, a `step` counts only on an object of a known library class "
         "(`robosuite.make(...)`, `pymunk.Space()`): on one of unknown class (`self.env` handed in by no scanned caller) "
         "it is listed as not followed, never claimed as the world. An inline range that ends in the world's step "
         "is cut before it (its note says so) and is not flagged; a step in an `except` block or a bail-out guard "
         "is not flagged either.",
    why="LEAPP traces tensor operations between the declared inputs and outputs. The physics step runs in the "
        "simulator's native code (or on the robot), so none of it is in the graph: the exported model drops the "
        "call, and whatever the pipeline computes after it from the new state is computed from the state seen "
        "while tracing, frozen.",
    fix="End the pipeline before the world's step: the action it is handed is the pipeline's output, the "
        "observation it returns is the next call's input. Give an inline entry that stops before the step, or "
        "export the function that returns the action.",
    example="for _ in range(n):\n    action = policy(obs)\n    mujoco.mj_step(model, data)\n    obs = read(data)",
    fixed_example="for _ in range(n):\n    action = policy(obs)   # the pipeline: obs -> action\n"
                  "    mujoco.mj_step(model, data)\n    obs = read(data)",
    node_types=(ast.Call,), check=check,
    valid=(
        "import torch\ndef step(obs, optimizer, scheduler):\n    loss = (obs ** 2).sum()\n    optimizer.step()\n"
        "    scheduler.step()\n    return loss\n",
        "import mujoco\ndef step(obs, model, data):\n    try:\n        return obs * 2\n    except RuntimeError:\n"
        "        mujoco.mj_step(model, data)\n        raise\n",
        # a reference-motion player moved on by one frame: handed nothing of the pipeline, named as no world
        "def step(obs, motion_player):\n    motion_player.step()\n    return obs - motion_player.frame\n",
        # an object of unknown class (handed in by no scanned caller): listed as not followed, no world claimed
        "class Wrapper:\n    def __init__(self, env):\n        self.env = env\n\n    def step(self, obs):\n"
        "        return self.env.step(obs * 2)\n",
    ),
    invalid=(
        "import mujoco\ndef step(obs, model, data):\n    data.ctrl[:] = obs * 2\n"
        "    mujoco.mj_step(model, data)  # error\n    return data.qpos * 1.0\n",
        "import robosuite\nenv = robosuite.make('Lift', robots='Panda')\ndef step(obs):\n    action = obs * 0.5\n"
        "    obs2, reward, done, info = env.step(action)  # error\n    return obs2 + 1.0\n",
        "import pymunk\nclass Rig:\n    def __init__(self):\n        self.space = pymunk.Space()\n\n    def step(self, obs):\n"
        "        self.space.gravity = (0.0, float(obs.sum()))\n        self.space.step(0.01)  # error\n"
        "        return obs * 2\n",
    ),
)
