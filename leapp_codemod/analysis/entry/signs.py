"""Signs a candidate function carries besides its callers: how it is named, where it lives, what it runs under,
and whether it is an environment's or optimizer's step rather than a policy's."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from leapp_codemod.analysis.entry.bounds import final_name
from leapp_codemod.analysis.entry.composers import is_model_wrapper
from leapp_codemod.analysis.entry.drivers import name_words
from leapp_codemod.analysis.entry.loops import (
    MODEL_LOADERS, MODEL_METHODS, MODEL_WORDS, class_loader, is_model_name,
)
from leapp_codemod.analysis.model.runtime_bind import INSTANTIATE

if TYPE_CHECKING:
    from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.knowledge.actuation import SENDER_WORDS

# Names made of an action word and a step verb (besides the exact policy-step names): `get_policy_action`, `infer_actions`, `choose_action`.
ACTION_WORDS = frozenset({"action", "actions"})
STEP_VERBS = frozenset({"get", "compute", "select", "predict", "sample", "infer", "policy", "choose", "run"})
# Folders and scripts that deploy, play back or evaluate a trained policy: what they run is what users export.
DEPLOY_WORDS = frozenset({"deploy", "deployment", "sim2real", "sim2sim", "play", "inference", "enjoy", "eval",
                          "evaluation", "evaluator", "evaluate", "rollout"})
# Names real code gives the function that runs one policy step.
POLICY_STEP_NAMES = frozenset({"act", "predict", "policy", "get_action", "get_actions", "infer", "inference",
                               "compute_action", "compute_actions", "select_action", "select_actions", "control",
                               "run_policy", "act_inference", "control_step", "predict_action", "policy_step",
                               "sample_action", "sample_actions", "infer_action", "get_control"})
# ... of them, those that name a policy's step on any receiver (not `run`, `forward`, `control`).
UNFOLLOWED_POLICY_METHODS = POLICY_STEP_NAMES & MODEL_METHODS - {"predict", "infer", "inference"}
# Critics, value and loss functions, training updates: never the exported policy step.
TRAINING_NAMES = frozenset({"evaluate", "evaluate_actions", "get_value", "get_values", "value", "values",
                            "compute_loss", "compute_losses", "loss", "update", "train", "train_step",
                            "training_step", "learn", "backward", "compute_returns", "critic"})
# First words of helpers that log, draw or save: called in a driver loop, yet not the pipeline.
IO_WORDS = frozenset({"log", "plot", "print", "save", "render", "draw", "write", "record", "publish", "send",
                      "display", "show", "visualize", "dump", "export"})
ENV_METHODS = frozenset({"reset"})
# Physics-simulator libraries: a loop that calls one of their step functions (`mujoco.mj_step(m, d)`,
# `pybullet.stepSimulation()`) computes the observation in simulation. A twin of it that runs on the robot is
# what a user exports.
SIMULATOR_ROOTS = frozenset({"mujoco", "mujoco_py", "pybullet", "isaacgym", "dm_control", "genesis", "sapien",
                             "pydrake", "raisimpy", "brax", "mujoco_warp"})
SIMULATOR_STEP_WORDS = ("step", "simulate")
# Frameworks LEAPP does not trace: code that only uses them is no PyTorch policy step.
NON_TORCH_ROOTS = ("jax", "flax", "tensorflow", "keras", "mlx")
NO_GRAD = ("torch.no_grad", "torch.inference_mode", "torch.autograd.grad_mode.no_grad")


# Verbs that run what they name: `apply_policy`, `query_model`, `run_actor_net` run a model on their input (not
# `load_policy`, `evaluate_policy`, `train_model`).
RUN_VERBS = frozenset({"apply", "run", "query", "call", "invoke", "execute"})


def runs_named_model(name: str) -> bool:
    """`apply_policy`, `query_controller`: a run verb and a model word (loops.MODEL_WORDS)."""
    words = name_words(name)
    return bool(words & RUN_VERBS and words & MODEL_WORDS)


def is_step_name(name: str) -> bool:
    """`act`, `get_action`, `choose_actions`: a name real code gives the function that runs one policy step."""
    words = name_words(name)
    return name in POLICY_STEP_NAMES or bool(words & ACTION_WORDS and words & STEP_VERBS)


def simulator_step(call: ast.Call, module, project: Project) -> str | None:
    """`mujoco.mj_step` when `call` advances a physics simulator library (its function or method named with
    SIMULATOR_STEP_WORDS), else None."""
    name = project.qualify(call.func, module) if isinstance(call.func, ast.Attribute) else None
    if name is None:
        return None
    name = project.external_name(name)
    last = name.rpartition(".")[2].lower()
    if name.split(".")[0] in SIMULATOR_ROOTS and any(word in last for word in SIMULATOR_STEP_WORDS):
        return name
    return None


def steps_simulator(fn: FunctionInfo, project: Project) -> bool:
    """Does the function advance a physics simulator itself (`mujoco.mj_step(m, d)`)?"""
    module = project.modules[fn.module]
    return any(isinstance(n, ast.Call) and simulator_step(n, module, project) for n in ast.walk(fn.node))


def decorated_no_grad(fn: FunctionInfo, project: Project) -> bool:
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


def environment_or_optimizer(fn: FunctionInfo, project: Project) -> str | None:
    if fn.class_name is None or fn.name not in ("step", "__call__", "forward"):
        return None
    cls = project.modules[fn.module].classes.get(fn.class_name)
    if cls is None:
        return None
    mro_bases = [b for klass in project.mro(cls) for b in project.bases(klass) if isinstance(b, str)]
    if any(".optim." in f".{b}." or b.endswith("Optimizer") or "lr_scheduler" in b for b in mro_bases):
        return "an optimizer or scheduler step"
    project_bases = [klass.name for klass in project.mro(cls)[1:]]     # `class PickEnv(BaseEnv)`
    if fn.name == "step" and any(_is_env_base(b) for b in (*mro_bases, *project_bases)):
        return ENV_BASE
    if fn.name == "step" and any(project.find_method(cls, m) for m in ENV_METHODS):
        return "an environment's step (its class also has reset)"
    return None


ENV_BASE = "an environment's step (its class derives from an environment or environment wrapper)"


def _is_env_base(base: str) -> bool:
    """`gym.Env`, `gymnasium.Wrapper`, `gym_custom.Env`, `VecEnvWrapper`, a project `BaseEnv`."""
    last = base.rpartition(".")[2]
    return base.split(".")[0].startswith("gym") or last.endswith(("Env", "Wrapper"))


def computes_loss(fn: FunctionInfo) -> bool:
    """A loss or `.backward()` on the function's unconditional path (a policy whose training branch
    computes a loss, `if actions is not None: ...`, still serves inference)."""
    unconditional = [stmt for stmt in fn.node.body if not isinstance(stmt, (ast.If, ast.Try, ast.Match))]
    for node in (n for stmt in unconditional for n in ast.walk(stmt)):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name == "backward" or "loss" in name.lower():
                return True
    return False


def trains(fn: FunctionInfo) -> bool:
    """Does the function compute a loss, call `backward()` or step an optimizer anywhere in its body?"""
    for node in ast.walk(fn.node):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            receiver = final_name(func.value) if isinstance(func, ast.Attribute) else ""
            if name in ("backward", "zero_grad") or "loss" in name.lower() \
                    or (name == "step" and "optim" in (receiver or "").lower()):
                return True
    return False


def deploy_path(*paths: str) -> str | None:
    """The first folder or script name of `paths` that says it deploys, plays or evaluates a policy."""
    for path in paths:
        for part in path.replace("\\", "/").split("/"):
            if name_words(part.removesuffix(".py")) & DEPLOY_WORDS:
                return part
    return None


# Words of a script's file name that say it records, checks or shows data around a policy rather than running it
# for use: `record_sim2sim.py`, `diagnose_mujoco.py`, `data_logger_node.py`, `parallel_data_collection.py`.
SIDE_SCRIPT_WORDS = frozenset({"record", "recorder", "recording", "diagnose", "diagnostic", "diagnostics", "debug",
                               "logger", "collect", "collection", "collector", "benchmark", "profiling",
                               "visualize", "visualization", "calibrate", "calibration"})
SIDE_SCRIPT_PENALTY = 2


def side_script(path: str) -> str | None:
    """The file name of `path` when it says the script records, checks or shows data (SIDE_SCRIPT_WORDS)."""
    name = path.replace("\\", "/").rpartition("/")[2]
    return name if name_words(name.removesuffix(".py")) & SIDE_SCRIPT_WORDS else None


def calls_nn_module(ctx: FunctionContext, call: ast.Call) -> bool:
    func = call.func
    if ctx.cls is None:
        return False
    if isinstance(func, ast.Name):    # `dist = self(obs)` in a module's method runs the module's forward
        return (func.id == ctx.self_name and ctx.project.is_nn_module(ctx.cls)
                and not any(isinstance(d, ast.Name) and d.id in ("classmethod", "staticmethod")
                            for d in ctx.fn.node.decorator_list))    # `cls(...)` builds one
    if not isinstance(func, ast.Attribute):
        return False
    inner = func.value    # `self.sess.run(None, feeds)`: a model method on a loaded model
    if (func.attr in MODEL_METHODS and isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name)
            and inner.value.id == ctx.self_name):
        return built_as_model(ctx, inner.attr)
    if not (isinstance(inner, ast.Name) and inner.id == ctx.self_name):
        return False
    for type_name in ctx.attr_types(ctx.cls, func.attr):
        if type_name.startswith("torch.nn.") or type_name.startswith("nn."):
            return True
        cls = ctx.class_for_type(type_name)
        if cls is not None and ctx.project.is_nn_module(cls):
            return True
    return built_as_model(ctx, func.attr)


def module_items(ctx: FunctionContext, node: ast.AST) -> set[str]:
    """Loop names bound to the items of a module container the class holds (`for layer in self.layers:` with
    `self.layers = nn.ModuleList(...)`, `.values()` of an `nn.ModuleDict`): calling one runs the model."""
    names = set()
    for loop in ast.walk(node):
        if not (isinstance(loop, (ast.For, ast.comprehension)) and isinstance(loop.target, ast.Name)):
            continue
        held = loop.iter
        if isinstance(held, ast.Call) and isinstance(held.func, ast.Attribute) and held.func.attr in ("values",
                                                                                                    "children"):
            held = held.func.value
        if isinstance(held, ast.Attribute) and calls_nn_module(ctx, ast.Call(func=held, args=[], keywords=[])):
            names.add(loop.target.id)
    return names


def hands_a_model(ctx: FunctionContext, call: ast.Call, targets: list) -> bool:
    """`integrate(self.field_net, x0)`, `solver.run(self.net.forward, x)`: the call hands a model it holds to a
    project function that calls the parameter bound to it, so the model runs there on the caller's data."""
    for target in targets:
        params = target.positional_params[1:] if target.is_method else target.positional_params
        bound = {**dict(zip(params, call.args)), **{kw.arg: kw.value for kw in call.keywords if kw.arg}}
        called = {node.func.id for node in ast.walk(target.node)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
        if any(name in called and _model_reference(ctx, arg) for name, arg in bound.items()):
            return True
    return False


def _model_reference(ctx: FunctionContext, arg: ast.expr) -> bool:
    """Is `arg` a model the class holds (`self.net`) or its bound call (`self.net.forward`)?"""
    if isinstance(arg, ast.Attribute) and arg.attr in ("forward", "__call__"):
        arg = arg.value
    return isinstance(arg, ast.Attribute) and calls_nn_module(ctx, ast.Call(func=arg, args=[], keywords=[]))


def built_as_model(ctx: FunctionContext, attr: str) -> bool:
    """Is `self.<attr>` a loaded model (`self.sess = ort.InferenceSession(path)`, `torch.jit.load(path)`) or built
    by Hydra from a config's `_target_` (`self.backbone = instantiate(cfg.backbone)`)? Whatever its name, what
    the step calls through it is the model."""
    for klass in ctx.project.mro(ctx.cls):
        module = ctx.project.modules.get(klass.module, ctx.module)
        for _, value in klass.attr_values.get(attr, ()):
            if not (isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute))):
                continue
            name = ctx.project.qualify(value.func, module) or ast.unparse(value.func)
            if ctx.project.external_name(name) in INSTANTIATE or name.endswith(MODEL_LOADERS) \
                    or class_loader(value.func):   # `self.agent = SAC.load(path)`
                return True
    return False


def names_a_command(call: ast.Call) -> bool:
    """`client.act("init", payload)`: a command sent by name (a string literal first), a request to a server
    or a robot, not a policy fed an observation."""
    return bool(call.args) and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)


def uses_non_torch(fn: FunctionInfo, pipeline, project: Project) -> bool:
    """Does an inline range use a name the module imports from JAX/TensorFlow (`jax.device_get(actions)`)?"""
    imports = project.modules[fn.module].imports
    foreign = {name for name, target in imports.items() if target.split(".")[0] in NON_TORCH_ROOTS}
    if not foreign:
        return False
    return any(isinstance(node, ast.Name) and node.id in foreign and pipeline.start <= node.lineno <= pipeline.end
               for node in ast.walk(fn.node))


def non_torch(fn: FunctionInfo, project: Project) -> bool:
    """Does the function's module import JAX/TensorFlow and not torch?"""
    targets = project.modules[fn.module].imports.values()
    return any(t.split(".")[0] in NON_TORCH_ROOTS for t in targets) and not any(
        t.split(".")[0] == "torch" for t in targets)


def step_name(fn: FunctionInfo) -> str:
    """The name a function is judged by: `_get_action` as `get_action` (its underscore says who calls it, not
    what it does); dunder names as they are."""
    return fn.name if fn.name.endswith("__") else fn.name.lstrip("_")


def private_step(fn: FunctionInfo, loops: list) -> bool:
    """A private function named like a policy step (`_get_action`, `_act`) that project code runs in a loop
    (`loops`: its (caller, line) sites), doing pipeline work of its own beyond wrapping the model call: the step
    itself, whether its public caller only adds host work around it or a driver calls it directly. A thin
    private wrapper (`_infer` around `self.net(x)`) stays its caller's model call, and other private helpers
    stay out of the candidates."""
    return (fn.name.startswith("_") and is_step_name(step_name(fn))
            and any(caller.id != fn.id for caller, _ in loops) and not is_model_wrapper(fn))


def unfollowed_policy_call(call: ast.Call, self_name: str | None, project: Project | None = None,
                           cls=None) -> bool:
    """`self.player.get_action(obs)` on an object the scan cannot follow (built by a library's factory): a
    method named like a policy step, on something other than `self`, runs the policy; so does a method named like
    one (`predict_action_chunk`) on a model the class holds (`self.model`), and a policy-step method of `self`
    that no project class defines but a library base class of `cls` does (`self.get_action(obs)` in a subclass
    of an RL library's player)."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if isinstance(func.value, ast.Name) and func.value.id in (self_name, "super"):
        return (func.value.id == self_name and project is not None and cls is not None
                and func.attr in UNFOLLOWED_POLICY_METHODS and project.from_library_base([cls], func.attr))
    words = name_words(func.attr)
    held = isinstance(func.value, ast.Attribute) and is_model_name(func.value.attr)   # `self.model.predict_chunk(x)`
    receiver = func.value.attr if isinstance(func.value, ast.Attribute) else getattr(func.value, "id", "")
    if receiver.lower().split("_")[-1] in SENDER_WORDS:
        return False   # `self.controller_pub.run(control)`: a publisher hands the action on
    return ((func.attr in UNFOLLOWED_POLICY_METHODS or (held and words & ACTION_WORDS and words & STEP_VERBS))
            and not names_a_command(call))
