"""Evaluation rollouts wherever they are written, and the models that reach them through parameters.

Script loops are not the only place a trained policy is run against an environment. The same loop sits in
a method of an agent or trainer class (`def evaluate(self): ... act = self.net(x); obs = env.step(act)`),
in a library's player that no file of the project calls, or in a helper a script hands the model to
(`score_run(load_scorer(path), belt)`). Two facts make such loops candidates like a script's:

- `evaluation_rollout(fn)`: a function or method named for evaluating or playing (`evaluate`, `_eval_agent`,
  `rollout`, `play_episode`), that trains nothing itself and whose own loop steps or resets an environment,
  drives the pipeline on its own, whoever calls it (a training loop's periodic evaluation, or nobody).
- `model_params(...)`: a parameter carries a model when a call site hands it one (a `torch.load` /
  `torch.jit.load` result, an instance of a project `nn.Module`, what a project loader returns, a model
  parameter of the caller passed on), or, a weaker sign, when the function uses it as one
  (`param.eval()`, `param(x)` under `torch.no_grad()`). Its calls in a loop are then model calls.

Example: `def score_run(brain, belt): ... logits = brain(feats)` called as `score_run(load_scorer(p), belt)`
where `load_scorer` returns `torch.jit.load(p)`: the loop's range around `brain(feats)` is offered.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.entry.drivers import (
    EVALUATION_FLAG_WORDS,
    loops_of,
    name_words,
    training_operation,
)
from leapp_codemod.analysis.entry.loops import MODEL_LOADERS, class_loader, loaded_models, steps_or_resets
from leapp_codemod.analysis.entry.receivers import is_bound, param_pairs, passes_on
from leapp_codemod.analysis.model.index import FunctionInfo

# Words of a function's name that say it runs a trained policy against an environment (besides the evaluation
# flag words of drivers.py): `_eval_agent`, `run_episode`, `rollout`, `play_games`.
ROLLOUT_WORDS = EVALUATION_FLAG_WORDS - {"deploy", "inference", "infer"} | {"rollout", "rollouts", "episode",
                                                                           "episodes", "evaluator"}
# ... and words that say it trains, whatever else it does (`train_and_evaluate`).
_TRAINING_NAME_WORDS = frozenset({"train", "training", "learn", "fit", "update", "optimize", "finetune", "collect"})
# Words of methods that store transitions into a buffer or draw from it (`self.buffer.add(o, a, r)`,
# `model_pool.push_batch(...)`, `env_pool.sample_all_batch(n)`): a loop around them gathers training data.
_STORE_WORDS = frozenset({"add", "store", "push", "insert", "append", "extend", "put", "sample"})
_BUFFER_WORDS = frozenset({"buffer", "replay", "memory", "storage", "rb", "rollouts", "dataset", "batch", "transitions",
                           "trajectories", "pool"})
NO_GRAD_CALLS = ("no_grad", "inference_mode")

CALLER = "a call site hands it one"
USAGE = "the function uses it as one (eval mode, a call under no_grad)"


def evaluation_rollout(fn: FunctionInfo, methods: dict | None = None) -> bool:
    """Is `fn` named for evaluating or playing a policy, free of training operations, with a loop of its own
    that steps or resets an environment, itself or through one of its class's own methods it calls in the loop
    (`methods`: name -> node; see `episode_helpers`)?"""
    if not _evaluator(fn):
        return False
    return any(steps_or_resets(ast.Module(body=loop.body, type_ignores=[])) for loop in loops_of(fn)) or bool(
        episode_helpers(fn, methods or {}))


def _evaluator(fn: FunctionInfo) -> bool:
    words = name_words(fn.name)
    if not words & ROLLOUT_WORDS or words & _TRAINING_NAME_WORDS or fn.name == "__init__":
        return False
    return not _trains(fn.nodes)


def _trains(nodes) -> bool:
    return any(isinstance(node, ast.Call) and (training_operation(node) and not _mode_switch(node) or _stores(node))
               for node in nodes)


def episode_helpers(fn: FunctionInfo, methods: dict) -> set[str]:
    """Names of the class's own methods (`methods`: name -> node) that an evaluator's loop calls
    (`for i in range(n): results = self.run_policy(env)`) and whose own loop steps or resets an environment,
    training nothing: the episode the evaluation repeats. Its loop is the rollout, whatever the method is named
    (`inference`, `run_policy`), and the evaluator drives it."""
    if not methods or not _evaluator(fn):
        return set()
    out = set()
    for loop in loops_of(fn):
        for call in (n for n in ast.walk(loop) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
            if not (isinstance(call.func.value, ast.Name) and call.func.value.id == "self"):
                continue
            node = methods.get(call.func.attr)
            if (node is None or node is fn.node or name_words(node.name) & _TRAINING_NAME_WORDS
                    or _trains(ast.walk(node))):
                continue
            if any(steps_or_resets(ast.Module(body=n.body, type_ignores=[])) for n in ast.walk(node)
                   if isinstance(n, (ast.For, ast.AsyncFor, ast.While))):
                out.add(node.name)
    return out


def _stores(call: ast.Call) -> bool:
    """`self.replay_buffer.add(obs, act, rew)`, `memory.push(t)`: a transition stored for training."""
    func = call.func
    if not isinstance(func, ast.Attribute) or not name_words(func.attr) & _STORE_WORDS:
        return False
    receiver = func.value.attr if isinstance(func.value, ast.Attribute) else getattr(func.value, "id", "")
    return bool(name_words(receiver) & _BUFFER_WORDS)


def _mode_switch(call: ast.Call) -> bool:
    """`self.net.train()` / `.train(False)`: the module's mode put back after evaluating, no training."""
    return (isinstance(call.func, ast.Attribute) and call.func.attr == "train" and not call.keywords
            and (not call.args or isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, bool)))


# Annotations that say a parameter holds data or settings, never a model (`obj: dict`, `path: str`).
_NOT_MODELS = frozenset({"dict", "Dict", "list", "List", "tuple", "Tuple", "str", "int", "float", "bool", "bytes",
                         "Path", "Mapping", "Sequence", "Any"})


def _params(fn: FunctionInfo) -> list[str]:
    """The parameters that may hold a model: not `self`, not annotated with a container, a number or text."""
    args = fn.node.args
    found = [a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    found = found[1:] if fn.is_method and found else found
    return [a.arg for a in found if a.annotation is None
            or ast.unparse(a.annotation).split("[")[0].rpartition(".")[2] not in _NOT_MODELS]


def model_holders(fn: FunctionInfo) -> set[str]:
    return set(_params(fn))


def returns_model(fn: FunctionInfo, project) -> bool:
    """Does `fn` return a loaded model or a project `nn.Module` it builds (`return torch.jit.load(p)`,
    `net = Net(); net.load_state_dict(...); return net`)?"""
    loaded = loaded_models(fn.node.body)
    module = project.modules.get(fn.module)
    for node in fn.nodes:
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in loaded:
            return True
        if isinstance(value, ast.Call) and _loader_call(value):
            return True
        if module is not None and _builds_network(value, fn, project, module):
            return True
    return False


def _loader_call(call: ast.Call) -> bool:
    callee = ast.unparse(call.func)
    return any(callee.endswith(loader) for loader in MODEL_LOADERS) or class_loader(call.func)


def _builds_network(value: ast.expr, fn: FunctionInfo, project, module) -> bool:
    """`Net(...)` or a name bound to `Net(...)` in `fn`, where `Net` is a project nn.Module."""
    if isinstance(value, ast.Name):
        built = [n.value for n in fn.nodes if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                 and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)]
        return any(_builds_network(b, fn, project, module) for b in built)
    if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
        return False
    cls = project.class_of(project.qualify(value.func, module) or "")
    return cls is not None and project.is_nn_module(cls)


def _model_valued(ctx, arg: ast.expr, local_models: set[str], loaders: set[str]) -> bool:
    """Does the caller hand a model as `arg`?"""
    if isinstance(arg, ast.Name) and arg.id in local_models:
        return True
    if isinstance(arg, ast.Call) and (_loader_call(arg) or _calls_loader(ctx, arg, loaders)):
        return True
    for type_name in ctx.types_of(arg):
        cls = ctx.project.class_of(type_name) if ":" in type_name else None
        if cls is not None and ctx.project.is_nn_module(cls):
            return True
    return False


def _calls_loader(ctx, call: ast.Call, loaders: set[str]) -> bool:
    target = ctx.resolve_call(call)
    return bool(target) and all(t.id in loaders for t in target)


def _local_models(ctx, calls, loaders: set[str], by_module: dict[str, set[str]]) -> set[str]:
    """Names the caller binds to a model: from a model loader, or from a project function that returns one.
    `by_module` caches each module's own loader bindings."""
    if ctx.module.name not in by_module:
        by_module[ctx.module.name] = loaded_models(ctx.module.tree.body)
    out = loaded_models(ctx.fn.node.body) | by_module[ctx.module.name]
    by_node = {id(node): targets for node, targets in calls}
    for node in ctx.fn.nodes:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            targets = by_node.get(id(node.value))
            if targets and all(t.id in loaders for t in targets):
                out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return out


def model_params(resolved, project, wanted) -> dict[str, dict[str, str]]:
    """fid -> {parameter: why it carries a model (CALLER or USAGE)} for every function some call site hands a
    model to, or that uses a parameter as one. `resolved` is [(ctx, [(call, targets), ...])]; only callees for
    which `wanted(callee)` holds (those with a loop) or that pass a parameter on are looked at."""
    loaders = {ctx.fn.id for ctx, _ in resolved if returns_model(ctx.fn, project)}
    out: dict[str, dict[str, str]] = {}
    forwarded: list[tuple[str, str, str, str]] = []
    by_module: dict[str, set[str]] = {}
    looked: dict[str, bool] = {}
    for ctx, calls in resolved:
        own = set(_params(ctx.fn))
        local = None
        for call, targets in calls:
            for callee in targets:
                if callee.name == "__init__" or callee.id == ctx.fn.id:
                    continue
                if callee.id not in looked:
                    looked[callee.id] = wanted(callee) or passes_on(callee)
                if not looked[callee.id]:
                    continue
                if local is None:
                    local = _local_models(ctx, calls, loaders, by_module)
                for param, arg in param_pairs(callee, call, is_bound(callee, call, ctx)):
                    if isinstance(arg, ast.Name) and arg.id in own:
                        forwarded.append((ctx.fn.id, arg.id, callee.id, param))
                    if param in model_holders(callee) and _model_valued(ctx, arg, local, loaders):
                        out.setdefault(callee.id, {})[param] = CALLER
    changed = True
    while changed:      # a model parameter passed on as it is carries the model to the callee
        changed = False
        for caller, name, callee, param in forwarded:
            if out.get(caller, {}).get(name) == CALLER and out.get(callee, {}).get(param) != CALLER:
                out.setdefault(callee, {})[param] = CALLER
                changed = True
    for ctx, _ in resolved:
        for param in used_as_model(ctx.fn):
            out.setdefault(ctx.fn.id, {}).setdefault(param, USAGE)
    return out


def used_as_model(fn: FunctionInfo) -> set[str]:
    """Parameters the function puts in eval mode (`p.eval()`) or calls under `torch.no_grad()`."""
    params = set(_params(fn))
    out = set()
    for node in fn.nodes:
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "eval"
                and not node.args and isinstance(node.func.value, ast.Name) and node.func.value.id in params):
            out.add(node.func.value.id)
        elif isinstance(node, (ast.With, ast.AsyncWith)) and any(
                isinstance(item.context_expr, ast.Call)
                and ast.unparse(item.context_expr.func).endswith(NO_GRAD_CALLS) for item in node.items):
            out |= {call.func.id for stmt in node.body for call in ast.walk(stmt)
                    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in params}
    return out


def held_models(ctx, calls, is_model_call) -> set[str]:
    """`self.helm` spelled as the loop calls it, for attributes of `self` whose calls run a model
    (`is_model_call(call)`: an nn.Module, a loaded model): a method's loop names its model through `self`."""
    out = set()
    for node, _ in calls:
        func = node.func
        if not isinstance(func, ast.Attribute) or not is_model_call(node):
            continue
        held = func if isinstance(func.value, ast.Name) else func.value   # `self.helm(x)`, `self.sess.run(...)`
        if isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name) and held.value.id == ctx.self_name:
            out.add(ast.unparse(held))
    return out


def rollout_reasons(fn: FunctionInfo, pipeline, sites) -> list[str]:
    """What an inline range owes to this module: the evaluation rollout it sits in, the parameter that carries
    its model."""
    out = []
    if fn.id in sites.rollouts and not _evaluator(fn):
        out.append(f"{fn.qualname} is the episode an evaluation repeats (an evaluator's loop calls it; it trains "
                   f"nothing and steps an environment in its loop): it drives the policy whoever calls it")
    elif fn.id in sites.rollouts:
        out.append(f"{fn.qualname} is an evaluation rollout (named for it, trains nothing, steps an environment "
                   f"in its loop): it drives the policy whoever calls it")
    root = pipeline.model.split(".")[0].split("[")[0]
    why = sites.model_params.get(fn.id, {}).get(root)
    if why is not None:
        out.append(f"`{root}` is a parameter that carries a model: {why}")
    return out
