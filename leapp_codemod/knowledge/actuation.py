"""How a control loop sends an action out of the computation: the calls and writes that end an inline range.

Readers: the inline range bounds of entry discovery (`analysis/entry/bounds.py`) and the world step a given
range ends in (`analysis/inline/world_step.py`).
"""
from __future__ import annotations

import re

from leapp_codemod.knowledge.io import SEND_METHODS

# Calls that hand the action to a simulator, a robot or middleware, or advance the world with it, whatever
# their result is used for (`obs, r, done, info = env.step(a)`, `mujoco.mj_step(m, d)`, `pub.publish(msg)`).
# A `step` on a model, an optimizer or a scheduler is none (NOT_STEPPED).
WORLD_STEP_CALLS = frozenset({"step", "step_async", "mj_step", "mj_step1", "mj_step2", "simulate"})
SEND_CALLS = SEND_METHODS | WORLD_STEP_CALLS
# Words of a receiver that hold the world itself (`self.scene.step()`, `space.step(dt)`): its `step` advances the
# world even when it is handed no action.
WORLD_WORDS = frozenset({"env", "envs", "environment", "sim", "simulator", "simulation", "scene", "world",
                         "physics", "space", "engine", "gym", "plant"})
# Words of a receiver whose `step` advances no world: a model, an optimizer, a scheduler, the object itself.
NOT_STEPPED = frozenset({"optimizer", "optim", "opt", "scheduler", "sched", "lr", "model", "policy", "net", "self"})
# Calls inside a project environment's `step` that hand the world over to a simulator engine (besides
# WORLD_STEP_CALLS on another object): the project's `step` around them is a wrapper whose action processing and
# observation building are pipeline code (`analysis/inline/wrapped_world.py`).
ENGINE_STEP_CALLS = frozenset({"stepSimulation", "do_simulation", "step_simulation", "simulate",
                               "step_physics", "physics_step"})
# A method called for its effect (its result unused) whose first word is one of these verbs and whose other
# words name what a controller sends (`robot.set_joint_command(q)`, `arm.send_target(pose)`,
# `p.setJointMotorControlArray(...)`, `env.exec_actions(a)`, `client.move_to_pose(p)`, a controller's
# `robot.schedule_waypoint(pose, t)`) sends the action out.
SEND_VERBS = frozenset({"send", "set", "apply", "publish", "write", "exec", "execute", "command", "move", "servo",
                        "actuate", "drive", "act", "schedule", "queue", "enqueue"})
ACTION_WORDS = frozenset({"action", "actions", "cmd", "cmds", "command", "commands", "control", "controls", "ctrl",
                          "target", "targets", "torque", "torques", "position", "positions", "pos", "velocity",
                          "velocities", "vel", "joint", "joints", "motor", "motors", "effort", "efforts", "pose",
                          "poses", "gripper", "twist", "goal", "setpoint", "setpoints", "thrust", "speed",
                          "speeds", "steering", "throttle", "dof", "dofs", "to", "waypoint", "waypoints",
                          "trajectory", "trajectories"})
# Calls that allocate a fresh array or tensor: a buffer allocated after the last computation, filled with the
# result and handed to the send (`ctrl = np.zeros(model.nu); ctrl[ids] = target; data.ctrl[:] = ctrl`) is
# the send's packaging, not pipeline code.
ALLOCATORS = frozenset({"zeros", "zeros_like", "empty", "empty_like", "ones", "ones_like", "full", "full_like"})


def words(name: str) -> list[str]:
    """`setJointMotorControlArray` -> set, joint, motor, control, array; `exec_actions` -> exec, actions."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w for w in spaced.lower().split("_") if w]


# Verbs that say a value leaves for a device or a peer whatever follows them (`Move`, `publishPose`); the other
# SEND_VERBS (`set`, `apply`, `act`, `exec`) also name computations (`filter.apply(x)`) unless an action word follows.
SENDING_VERBS = frozenset({"send", "publish", "write", "command", "move", "servo", "actuate", "drive"})


def named_as_send(method: str) -> bool:
    """`send`, `Move`, `publishPose`, `set_joint_targets`: a method whose name says it hands a value on."""
    parts = words(method)
    return method in SEND_METHODS or bool(parts) and (parts[0] in SENDING_VERBS or parts[0] in SEND_VERBS
                                                      and bool(set(parts[1:]) & ACTION_WORDS))


# Words of a held object that hands values on (`self.controller_pub`, `cmd_publisher`, `udp_sender`): its
# generic method (`run`, `step`, `__call__`) sends, it does not run a model.
SENDER_WORDS = frozenset({"pub", "publisher", "sender", "writer", "transmitter", "tx", "emitter"})

# Words of a client class that shows things to a person (`ViewportCameraState`, `MeshcatVisualizer`): a
# send-named method of one (`set_position_world`) moves a view, not the robot.
DISPLAY_WORDS = frozenset({"viewport", "viewer", "visualizer", "visualiser", "gui", "render", "renderer", "window",
                           "display", "dashboard", "plot", "plotter", "canvas"})


def shows_to_a_person(type_name: str) -> bool:
    """Is `type_name` (dotted) a display client's class: a word of its last part is a DISPLAY_WORD?"""
    return bool(set(words(type_name.rpartition(".")[2])) & DISPLAY_WORDS)

