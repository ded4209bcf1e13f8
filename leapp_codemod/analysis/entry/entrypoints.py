"""Rank candidate pipeline entrypoints, each with the reasons that put it there."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.entry.call_sites import CallSites, bind_selected, network_at, unbound_definers
from leapp_codemod.analysis.entry.callbacks import callers_of, driven_bodies, registered_callbacks
from leapp_codemod.analysis.entry.composers import above_their_parts, model_parts, wrapper_calls
from leapp_codemod.analysis.entry.cores import (below_deploy_steps, deploy_steps, harness_via, network_methods,
                                                range_around_step)
from leapp_codemod.analysis.entry.config_choice import chosen_at_run_time, favour_selected, selected_among
from leapp_codemod.analysis.entry.drivers import (DRIVER_DEPTH, MODULE_QUALNAME, driver_ids, evaluation_branch_calls,
                                                  in_tests, in_trainer, in_training_path, is_training_loop,
                                                  loops_of, name_words)
from leapp_codemod.analysis.entry.lookup import (NO_MODEL, TRAINING_CODE, VENDORED, below_model_signs,
                                                below_non_training, is_vendored)
from leapp_codemod.analysis.entry.loops import (InlinePipeline, inline_pipelines, loaded_models, model_call,
                                                offline_loop)
from leapp_codemod.analysis.entry.ordering import (below_parts, below_their_ranges, callbacks_first,
                                                   covers_body, outermost_ranges)
from leapp_codemod.analysis.entry.peers import (GENERIC_STEP_NAMES, below_delegated_models, built_count,
                                                favour_most_built)
from leapp_codemod.analysis.entry.receivers import (bound_targets, collect_bindings, local_receiver_types,
                                                    on_library_module)
from leapp_codemod.analysis.entry.served import dotted, is_project_call, served_models
from leapp_codemod.analysis.entry.served import served_locals as served_locals_of
from leapp_codemod.analysis.entry.signs import (ACTION_WORDS, ENV_BASE, IO_WORDS, POLICY_STEP_NAMES, STEP_VERBS,
                                                TRAINING_NAMES, calls_nn_module, computes_loss, decorated_no_grad,
                                                deploy_path, environment_or_optimizer, hands_a_model, is_step_name,
                                                module_items, non_torch, private_step, step_name, steps_simulator,
                                                unfollowed_policy_call, uses_non_torch)
from leapp_codemod.analysis.entry.steps import below_driven_steps, below_their_planners, below_their_steps, driven_steps
from leapp_codemod.analysis.entry.submodules import below_calling_networks, bound_forwards, hands_a_forward
from leapp_codemod.analysis.entry.ties import break_ties
from leapp_codemod.analysis.entry.uses import (ROLLOUT_DRIVEN, below_built_pipelines, below_driven_callbacks,
                                               fed_only_noise, only_logged, runs_rollout, simulated_ranges,
                                               simulator_loops)
from leapp_codemod.analysis.entry.vendored import below_any_copy, vendored_modules
from leapp_codemod.analysis.flow.dataflow import compute_env
from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.infer.lattice import Facts
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.leapp_support import LeappSupport
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.resolve_types import is_abstract, overrides
from leapp_codemod.model import Entrypoint

# A project network's method called in a driver loop amid this many statements of pipeline code (building
# the observation, scaling the action) is a model call of that range, not the policy step itself.
INLINE_NETWORK_STATEMENTS = 6


def _loop_call_nodes(fn: FunctionInfo):
    """Calls in the function's loops, except those in a loop over a dataset that sends nothing out (any depth)."""
    offline = {id(c) for loop in loops_of(fn) if offline_loop(loop) for c in ast.walk(loop)}
    for loop in loops_of(fn):
        for stmt in loop.body:
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.Call) and id(sub) not in offline:
                    yield sub


def _collect_call_sites(project: Project, support: LeappSupport) -> CallSites:
    sites = CallSites(served=served_models(project, support), vendored=vendored_modules(project))
    callbacks = sites.callbacks = registered_callbacks(project)
    by_getter: dict[str, list[str]] = {}
    getters_named: dict[str, list[str]] = {}
    for target_id, getter in sites.served.items():
        by_getter.setdefault(getter.id, []).append(target_id)
        if getter.id not in getters_named.get(getter.name, []):
            getters_named.setdefault(getter.name, []).append(getter.id)
    facts = Facts()
    roots, ignored, training, contexts = [], set(), [], []
    resolved, trainers, trained = [], {}, set()
    evaluating: dict[str, set[int]] = {}     # training code with an evaluation branch -> that branch's calls
    for fn, is_root in callers_of(project):
        sites.functions[fn.id] = fn
        trains = is_training_loop(fn) or in_trainer(fn, project, trainers)
        tests = in_tests(fn, project)
        if trains and not tests:
            evaluation = evaluation_branch_calls(fn)
            if evaluation:
                evaluating[fn.id] = evaluation
        if trains and fn.id not in evaluating:
            training.append(fn)
        if ((trains and fn.id not in evaluating) or tests or _is_module_method(fn, project)
                or fn.module in sites.vendored):    # a copied library's rollout loops are not the project's drivers
            ignored.add(fn.id)
        elif is_root or fn.id in callbacks or fn.id in evaluating:
            roots.append(fn)
        ctx = FunctionContext(fn, project.modules[fn.module], project, facts, support)
        compute_env(ctx)
        resolved.append((ctx, [(node, ctx.resolve_call(node)) for node in ast.walk(fn.node)
                               if isinstance(node, ast.Call)]))
    has_loop: dict[str, bool] = {}
    bindings = collect_bindings(resolved, lambda fn: has_loop.setdefault(fn.id, any(True for _ in loops_of(fn))))
    for ctx, calls in resolved:
        fn = ctx.fn
        bound = local_receiver_types(ctx, bindings)
        if bound:    # receivers the callers (or an assertion) bind: `Model=Agent`, `run(make_policy(cfg))`
            calls = [(node, targets or bound_targets(project, node, bound)) for node, targets in calls]
        served_locals = served_locals_of(fn, dict(calls), by_getter, getters_named) if by_getter else {}
        networks = {id(node): node for node, targets in calls if targets and all(_is_module_method(t, project)
                                                                                 for t in targets)}
        # a call every target of which only raises (`policy(obs)` on a base class a factory returns a subclass
        # of), or whose targets are several classes' methods no config narrows, runs what is chosen at run time:
        # it stays a model call of the loop (its range is offered), not one project function's
        contexts.append((ctx, served_locals, {id(node) for node, targets in calls
                                              if targets and not chosen_at_run_time(targets, project)} - set(networks),
                         {node.lineno: [t.id for t in dict(calls)[node]] for node in networks.values()}))
        loop_calls = {id(c) for c in _loop_call_nodes(fn)}
        offline = {id(c) for loop in loops_of(fn) if offline_loop(loop) for c in ast.walk(loop)}
        lambdas = {t.id for n in ast.walk(fn.node) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda)
                   for t in n.targets if isinstance(t, ast.Name)}
        if fn.id in callbacks:   # the framework calls it again and again: its calls are a loop body
            loop_calls |= {id(node) for node, _ in calls}
        evaluation = evaluating.get(fn.id)
        # `for layer in self.layers: x = layer(x)` in a policy class holding the layers (in a network's own method
        # its layers are its parts: the network is what a step calls)
        items = module_items(ctx, fn.node) if not _is_module_method(fn, project) else set()
        forwards = bound_forwards(fn)    # `sample_fn = self.net.forward`, handed to a sampler
        for node, targets in calls:
            if not targets and isinstance(node.func, ast.Name) and node.func.id in served_locals:
                targets = [project.lookup(dotted(t)) for t in served_locals[node.func.id]]
            if len(targets) > 1:     # the receiver's class is bound at run time: the configs may say which
                narrowed, where = selected_among(targets, project)
                if where is not None:
                    sites.selected_at.setdefault(narrowed[0].id, (len({t.id for t in targets}), where))
                    targets = narrowed
            if evaluation is not None and id(node) not in evaluation:
                trained.update(t.id for t in targets)   # the training part of a script that also evaluates
                continue
            if targets:
                sites.project_calls.setdefault(fn.id, []).append((node, [t.id for t in targets]))
            for target in targets:
                sites.delegates.setdefault(fn.id, set()).add(target.id)
                if id(node) not in offline:    # measured on recorded data: no caller in a pipeline
                    sites.callers.setdefault(target.id, set()).add(fn.id)
                sites.callees.setdefault(fn.id, set()).add(target.id)
                if id(node) in loop_calls:
                    sites.in_loops.setdefault(target.id, []).append((fn, node.lineno))
            closures = bool(targets) and all("<locals>" in t.id for t in targets)   # `self.policy = policy_act`
            if isinstance(node.func, ast.Name) and node.func.id in lambdas:
                continue    # `controller_error = lambda stats: ...`: the function's own expression, not a model
            if (calls_nn_module(ctx, node) or ((not targets or closures) and model_call(node, set()) is not None)
                    or (targets and hands_a_model(ctx, node, targets)) or hands_a_forward(node, forwards)
                    or (isinstance(node.func, ast.Name) and node.func.id in items)):
                sites.calls_module.add(fn.id)
                sites.model_lines.setdefault(fn.id, set()).add(node.lineno)
            elif not targets and unfollowed_policy_call(node, ctx.self_name):
                sites.calls_module.add(fn.id)
                sites.model_lines.setdefault(fn.id, set()).add(node.lineno)
                sites.policy_calls.setdefault(fn.id, ast.unparse(node.func))
            if (id(node) in loop_calls and not targets and isinstance(node.func, ast.Attribute)
                    and not on_library_module(node.func, ctx.module, project)):
                sites.by_name_in_loops.setdefault(node.func.attr, []).append((fn, node.lineno))
    sites.drivers = driver_ids(roots, sites.callees, DRIVER_DEPTH, blocked=ignored) - ignored
    # what training code calls (rollout collection, updates) is training code too, unless a driver calls it
    training += [sites.functions[fid] for fid in sorted(trained) if fid in sites.functions]
    sites.ignored = ignored | (driver_ids(training, sites.callees, 2) - sites.drivers)
    for table in (sites.in_loops, sites.by_name_in_loops):
        for key, found in table.items():
            table[key] = [(caller, line) for caller, line in found if caller.id not in sites.ignored]
    _find_parts(sites)
    # `policy.predict_action(obs)` on an object of unknown class: the project's methods of that name
    # are the candidates, not the loop.
    for fn in project.functions():
        if fn.class_name is not None and not is_abstract(fn):   # a method that only raises runs nothing
            sites.definers.setdefault(fn.name, []).append(fn.id)
    definers = {name: len(fids) for name, fids in sites.definers.items()}
    module_models: dict[str, set[str]] = {}
    nodes = {(where.module, where.class_name) for where, _ in callbacks.values() if where.class_name}
    # one call deeper than a driver, a loop's unbound call may still be bound to the class the configs select
    # (a rollout helper of an evaluation script); its inline ranges are no candidates (a sampler's loop is none)
    deeper = driver_ids(roots, sites.callees, DRIVER_DEPTH + 1, blocked=ignored) - ignored - sites.ignored
    for ctx, served_locals, project_calls, networks in contexts:
        if ctx.fn.id not in sites.drivers and ctx.fn.id not in deeper:
            continue
        bind_only = ctx.fn.id not in sites.drivers
        if ctx.module.name not in module_models:
            module_models[ctx.module.name] = loaded_models(ctx.module.tree.body)
        models = loaded_models(ctx.fn.node.body) | module_models[ctx.module.name]
        wrapped = wrapper_calls(sites, ctx.fn.id) if ctx.fn.class_name else []
        for loop in driven_bodies(ctx.fn, callbacks):
            if ctx.fn.id in evaluating and not _in_branch(loop, evaluating[ctx.fn.id]):
                continue    # a loop of the training part of a script that also evaluates
            if offline_loop(loop):
                continue
            # a model wrapper called in the loop of a node (a class that registers callbacks, which keep its
            # latest messages) marks the step like a network does: the loop builds the observation from those
            # messages and sends the action out (in a callback's own body the callback is the step: composers.py)
            own = ({id(n): n for n, _ in wrapped} if ctx.fn.id not in callbacks
                   and (ctx.fn.module, ctx.fn.class_name) in nodes else {})
            is_wrapper = (lambda call, own=own: id(call) in own)
            here = networks | {n.lineno: fids for n, fids in wrapped if id(n) in own}
            # `policy.predict_action(obs)` on an object of unknown class: one project class defines the method,
            # it is the candidate; several do, the inline range is (which class runs is decided at run time)
            pipelines = [p for p in inline_pipelines(loop, models, lambda call, names=served_locals, known=project_calls:
                                                     is_project_call(call, names, known), is_wrapper)
                         if network_at(p, here) or unbound_definers(p, models, definers) != 1]
            # ... unless the configs select one of those classes: its method is what the loop runs
            pipelines = [p for p in pipelines if network_at(p, here) or not bind_selected(sites, project, ctx.fn, loop, p,
                                                                                          models, definers)]
            if bind_only:
                continue
            step_range = (None if pipelines
                          else range_around_step(sites, ctx.fn, loop, models, INLINE_NETWORK_STATEMENTS))
            if step_range is not None:
                sites.inline.append((ctx.fn, step_range, 0))
                sites.step_ranges.add((ctx.fn.id, step_range.start))
            if pipelines:
                best = max(pipelines, key=lambda p: p.statements)
                network = network_at(best, here)
                sites.inline.append((ctx.fn, best, 0 if network else unbound_definers(best, models, definers)))
                if best.statements >= INLINE_NETWORK_STATEMENTS:   # a network called amid pipeline code
                    for fid in network:
                        sites.inline_networks.setdefault(fid, (ctx.fn, best))
    return sites


def _in_branch(loop: ast.AST, calls: set[int]) -> bool:
    """Is the loop inside the evaluation branch whose calls are `calls`?"""
    return bool(made := [id(n) for n in ast.walk(loop) if isinstance(n, ast.Call)]) and all(c in calls for c in made)


def _find_parts(sites: CallSites) -> None:
    """Model calls of the steps that callbacks and driver loops run (see composers.py)."""
    looped = {fid for fid, found in sites.in_loops.items() if any(c.id in sites.drivers for c, _ in found)}
    for fid in sorted((set(sites.callbacks) | looped) - sites.ignored):
        fn = sites.functions.get(fid)
        if fn is None:
            continue
        found = model_parts(fn, sites.project_calls.get(fid, []),
                            lambda t: t in sites.calls_module or sites.model_via(t) is not None, sites.functions)
        for part, composer in found.items():
            sites.parts.setdefault(part, composer)


def _is_module_method(fn: FunctionInfo, project: Project) -> bool:
    """Methods of nn.Modules call their layers, in loops too; they never drive the application."""
    cls = project.modules[fn.module].classes.get(fn.class_name) if fn.class_name else None
    return cls is not None and project.is_nn_module(cls)


def _returns_value(fn: FunctionInfo) -> bool:
    return any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(fn.node))


def _where(caller: FunctionInfo) -> str:
    return "the module's top-level code" if caller.qualname == MODULE_QUALNAME else caller.qualname


def _score(fn: FunctionInfo, project: Project, sites: CallSites, reach: set[str]) -> tuple[int, list[str]]:
    score, reasons = 0, []
    loops = [(caller, line) for caller, line in sites.in_loops.get(fn.id, []) if caller.id != fn.id]
    loops.sort(key=lambda site: site[0].id not in sites.drivers)
    if loops:
        caller, line = loops[0]
        same_module = caller.module == fn.module
        driven = caller.id in sites.drivers
        score += (3 if same_module else 6) if driven or not sites.drivers else (2 if same_module else 3)
        if caller.id in sites.callbacks:
            where, at = sites.callbacks[caller.id]
            score += 0 if not same_module else 3    # the framework's loop is elsewhere
            reasons.append(f"called by {_where(caller)} ({caller.path}:{line}), a callback registered in "
                           f"{_where(where)} ({where.path}:{at}) that the framework calls repeatedly")
        else:
            reasons.append(f"called in a loop by {_where(caller)} ({caller.path}:{line})")
        if driven:
            score += 2
            reasons.append("the loop is in a driver (a __main__ block or what it calls)")
        if fn.id in sites.selected_at:
            count, where = sites.selected_at[fn.id]
            reasons.append(f"of the {count} classes whose `{fn.name}` the call may run, the configs select this one "
                           f"({where})")
    elif sites.by_name_in_loops.get(fn.name) and fn.name not in GENERIC_STEP_NAMES:
        caller, line = min(sites.by_name_in_loops[fn.name], key=lambda site: site[0].id not in sites.drivers)
        if caller.module != fn.module:
            loops = [(caller, line)]
            score += 2
            reasons.append(f"`.{fn.name}(...)` called in a loop by {_where(caller)} ({caller.path}:{line})")
            if caller.id in sites.drivers:
                score += 2
                reasons.append("the loop is in a driver (a __main__ block or what it calls)")
    if not loops and fn.id in sites.callbacks:
        where, at = sites.callbacks[fn.id]
        loops = [(where, at)]
        score += 5
        reasons.append(f"registered in {_where(where)} ({where.path}:{at}) as a callback the framework calls "
                       f"repeatedly")
    if not loops and fn.id in sites.calls_module:
        feeder = _driven_caller(fn, sites)
        if feeder is not None:
            caller, (driver, line) = feeder
            loops = [(caller, line)]
            score += 5
            reasons.append(f"called by {_where(caller)}, which {_where(driver)} calls in a loop "
                           f"({driver.path}:{line}): the model call of the loop body")
    evidence = len(reasons)
    name = step_name(fn)
    words = name_words(name)
    if name in POLICY_STEP_NAMES:
        score += 3
        reasons.append(f"policy-step name `{fn.name}`")
    elif words & ACTION_WORDS and words & STEP_VERBS:
        score += 2
        reasons.append(f"named like a policy step (`{fn.name}`)")
    elif fn.name in GENERIC_STEP_NAMES:
        score += 1 if fn.name == "step" else 2  # simulators and environments step too
        reasons.append(f"named `{fn.name}`")
        # ... so `step` alone is no sign of a model, nor `forward`/`__call__` of a class that is no nn.Module
        evidence += fn.name == "step" or not _is_module_method(fn, project)
    if fn.id in sites.served:
        getter = sites.served[fn.id]
        first = next(t for t, g in sites.served.items() if g.id == getter.id)
        score += 4 if first == fn.id else 3  # a factory's first product is its default
        reasons.append(f"runs the model that {sites.served[fn.id].qualname} returns")
    if decorated_no_grad(fn, project):
        score += 2
        reasons.append("runs under torch.no_grad / inference_mode")
    if fn.id in sites.calls_module:
        score += 2
        reasons.append(f"runs a policy through `{sites.policy_calls[fn.id]}`, an object the scan does not follow"
                       if fn.id in sites.policy_calls else "calls an nn.Module or a loaded model")
    elif sites.model_via(fn.id):
        score += 2
        via = sites.functions.get(sites.model_via(fn.id))
        reasons.append(f"calls a model through {via.qualname if via else sites.model_via(fn.id)}")
    if len(reasons) == evidence:
        score -= 3
        reasons.append("no sign of a model (no policy-step name, nn.Module call or no_grad)" if fn.id not in reach
                       else "runs a model only deep in what it calls (no policy-step name, direct model call or "
                            "no_grad)")
    elif fn.id not in reach:
        reasons.append(f"{NO_MODEL} in its reach (nothing it calls, as far as the scan follows, runs an nn.Module, "
                       f"a loaded model or a policy)")
    deploy = deploy_path(fn.path, *(caller.path for caller, _ in loops[:1]))
    if deploy:
        score += 1
        reasons.append(f"run from deploy, play or evaluation code (`{deploy}`)")
    n_inputs = len(fn.params) - (1 if fn.is_method else 0)
    if n_inputs >= 1 and _returns_value(fn):
        score += 1
        reasons.append(f"takes {n_inputs} input(s) and returns a value")
    callers = sites.callers.get(fn.id, set()) - {fn.id} - sites.ignored
    if callers and not loops:
        score -= 2
        reasons.append("called by other project code (a callee, not the top of the pipeline)")
    if project.modules[fn.module].has_main_guard and not loops and fn.class_name is not None:
        score -= 1
    if fn.name in TRAINING_NAMES:
        score -= 5
        reasons.append(f"`{fn.name}` is a critic, value, loss or update function {TRAINING_CODE}")
    elif computes_loss(fn):
        score -= 4
        reasons.append(f"computes a loss or gradients {TRAINING_CODE}")
    logged = [(caller, line) for caller, line in loops if only_logged(caller, line, fn.name)]
    if loops and len(logged) == len(loops):
        score -= 4
        reasons.append(f"its result only reaches a logger ({logged[0][0].path}:{logged[0][1]}): it reports, it "
                       f"sends no action out")
    elif loops and all(fed_only_noise(caller, line, fn.name) for caller, line in loops):
        score -= 4
        reasons.append(f"its loop feeds it only random draws ({loops[0][0].path}:{loops[0][1]}): a probe or a "
                       f"check, no observation reaches it")
    if loops and all(runs_rollout(caller, {line}) is not None for caller, line in loops):
        reasons.append(f"{ROLLOUT_DRIVEN} (the loop at {loops[0][0].path}:{loops[0][1]} also steps or resets what "
                       f"the action drives)")
    rollout = runs_rollout(fn, _model_lines(fn, sites))
    via = _rollout_via(fn, sites) if rollout is None and fn.id not in sites.calls_module else None
    if rollout is not None:
        score -= 4
        reasons.append(f"runs the model and steps the environment in one loop of its own ({fn.path}:{rollout}): "
                       f"a rollout that drives the policy step")
    elif via is not None:
        helper, line = via
        score -= 4
        reasons.append(f"runs the model only through {helper.qualname}, whose loop also steps the environment "
                       f"({helper.path}:{line}): a rollout that drives the policy step")
    elif rollout is None and fn.id not in sites.calls_module:
        harness = harness_via(fn, sites)
        if harness is not None:
            helper, line, step = harness
            score -= 4
            reasons.append(f"runs the model only through {helper.qualname}, whose loop runs the policy step "
                           f"{step.qualname} again and again ({helper.path}:{line}): a harness around the step")
    if fn.name.lstrip("_").split("_")[0].lower() in IO_WORDS:
        score -= 4
        reasons.append(f"`{fn.name}` logs, draws or saves (I/O, not the policy step)")
    if fn.id in sites.inline_networks:
        driver, pipeline = sites.inline_networks[fn.id]
        score -= 4
        reasons.append(f"a network {_where(driver)} calls inline ({driver.path}:{pipeline.start}-{pipeline.end}): "
                       f"the range around it is the policy step")
    other = environment_or_optimizer(fn, project)
    runs_model = fn.id in sites.calls_module or sites.model_via(fn.id) and not steps_simulator(fn, project)
    if other and other != ENV_BASE and fn.name == "step" and (runs_model or decorated_no_grad(fn, project)):
        other = None    # a model wrapper's step (its `reset` clears an action buffer), not a simulator's
    if other:
        score -= 5
        reasons.append(other)
    cls = project.modules[fn.module].classes.get(fn.class_name) if fn.class_name else None
    if cls is not None and overrides(project, cls, fn.name):
        score -= 1
        reasons.append(f"a base class's `{fn.name}`: subclasses override it")
    if fn.module in sites.vendored:
        reasons.append(f"defined in {VENDORED} (`{fn.module.split('.')[0]}`): the project's own code goes first on "
                       f"equal scores")
    if non_torch(fn, project):
        score -= 4
        reasons.append("its module uses JAX/TensorFlow, not PyTorch (LEAPP traces PyTorch)")
    return score, reasons


def _rollout_via(fn: FunctionInfo, sites: CallSites) -> tuple[FunctionInfo, int] | None:
    """(helper, loop line) when `fn` reaches a model only through a helper it calls (`self._run_episodes()`), or
    the helper's own model helper (as far as `model_via` follows), that runs a rollout of its own: the model and
    an environment step in one loop."""
    seen, fid = {fn.id}, fn.id
    for _ in range(2):
        helper = sites.functions.get(sites.model_via(fid) or "")
        if helper is None or helper.id in seen:
            return None
        line = runs_rollout(helper, _model_lines(helper, sites))
        if line is not None:
            return helper, line
        if helper.id in sites.calls_module:
            return None      # the helper runs the model itself, outside a rollout
        seen.add(helper.id)
        fid = helper.id
    return None


def _model_lines(fn: FunctionInfo, sites: CallSites) -> set[int]:
    """Lines where `fn` runs a model: its own model calls and its calls of project functions that run one."""
    return sites.model_lines.get(fn.id, set()) | {
        node.lineno for node, tids in sites.project_calls.get(fn.id, [])
        if any(t in sites.calls_module or sites.model_via(t) for t in tids)}


def tie_order(candidate: Entrypoint, project: Project) -> tuple:
    """Sort key: the score first; on equal scores a file named like training code after the others (an
    evaluator under `train/` is not training code by that alone), an inline range before a function (the
    range is one step with its observation and action code; a function tied with it is the driver running
    its loop or a callee inside it), the longer range first, the project's own function before one of a
    library copied into it, the function whose class the project builds more often first (`PPO.act` before
    an example's `Shared.act`), then by path and line. `scan` chooses the same first candidate."""
    trains = in_training_path(candidate.path)
    if candidate.kind == "inline":
        return (-candidate.score, trains, 0, candidate.start - candidate.end, candidate.path, candidate.line)
    return (-candidate.score, trains, 1, is_vendored(candidate), -built_count(project, candidate), candidate.path,
            candidate.line)


def _driven_caller(fn: FunctionInfo, sites: CallSites):
    """A caller of `fn` that a driver calls in a loop (or a framework calls back) and that returns nothing (it
    sends the action out itself, so `fn` is where observations become an action): (caller, (driver, line))."""
    for caller_id in sorted(sites.callers.get(fn.id, set()) - sites.ignored - {fn.id}):
        for driver, line in sites.in_loops.get(caller_id, []):
            caller = _function(caller_id, driver, sites)
            if driver.id in sites.drivers and not _returns_value(caller):
                return caller, (driver, line)   # the loop body sends the action out itself
    return None


def _function(fid: str, fallback: FunctionInfo, sites: CallSites):
    return sites.functions.get(fid, fallback)


def _inline_candidate(fn: FunctionInfo, pipeline: InlinePipeline, definers: int, project: Project,
                      callback: bool = False) -> Entrypoint:
    score = 9
    where = "a callback the framework calls repeatedly" if callback else "a loop"
    reasons = [(f"calls the model `{pipeline.model}` inline in {where} ({fn.path}:{pipeline.loop_line}), "
                f"not through a project function; statements {pipeline.start}-{pipeline.end} build its "
                f"input and use its output"),
               f"the loop is in a driver ({_where(fn)})" if not callback else f"{_where(fn)} is registered "
               f"as a callback"]
    if definers:
        score += 1
        reasons.append(f"the model's class is bound at run time ({definers} project classes define "
                       f"`{pipeline.model.rpartition('.')[2]}`): the range is what runs")
    if pipeline.statements >= 3:
        score += 1
        reasons.append(f"{pipeline.statements} statements of pipeline code")
    deploy = deploy_path(fn.path)
    if deploy:
        score += 1
        reasons.append(f"run from deploy, play or evaluation code (`{deploy}`)")
    if uses_non_torch(fn, pipeline, project):
        score -= 4
        reasons.append("the range runs JAX/TensorFlow code (LEAPP traces PyTorch)")
    return Entrypoint(fn.module, f"{_where(fn)}@{pipeline.loop_line}", fn.path, pipeline.loop_line, score,
                      tuple(reasons), kind="inline", start=pipeline.start, end=pipeline.end)


def _looped_closures(sites: CallSites) -> list[FunctionInfo]:
    """Closures a helper returns that a loop calls (`get_action = build_get_action(agent)`, then
    `action = get_action(obs)` each step): candidates like any function (`--entry mod:build.<locals>.get_action`)."""
    return [fn for fid, fn in sorted(sites.functions.items()) if ".<locals>." in fid and sites.in_loops.get(fid)]


def rank_entrypoints(project: Project, support: LeappSupport, limit: int = 10) -> list[Entrypoint]:
    """Candidates best first; `limit` 0 keeps them all."""
    sites = _collect_call_sites(project, support)
    reach = sites.model_reach()
    functions = {fn.id: fn for fn in project.functions()} | sites.functions
    ranked: list[Entrypoint] = []
    for fn in [*project.functions(), *_looped_closures(sites)]:
        if fn.name.startswith("test_") or (fn.name.startswith("_") and fn.name != "__call__"
                                           and not private_step(fn, sites.in_loops.get(fn.id, []))):
            continue
        if in_tests(fn, project) or is_abstract(fn):
            continue
        score, reasons = _score(fn, project, sites, reach)
        if score >= 4:
            ranked.append(Entrypoint(fn.module, fn.qualname, fn.path, fn.node.lineno, score, tuple(reasons)))
    favour_most_built(ranked, project)
    favour_selected(ranked, project)
    outermost = outermost_ranges(sites.inline)
    registered = {(fn.id, p.start): fn.id in sites.callbacks and p.loop_line == fn.node.lineno for fn, p, _ in outermost}
    ranked += [_inline_candidate(fn, p, d, project, registered[fn.id, p.start]) for fn, p, d in outermost]
    ranked = callbacks_first(ranked, {f"{fn.path}:{p.start}-{p.end}": (fn.module, fn.qualname, fn.node.lineno)
                                      for fn, p, _ in outermost
                                      if registered[fn.id, p.start] and covers_body(fn.node, p.start, p.end)})
    ranked = below_delegated_models(below_non_training(below_parts(below_any_copy(ranked, project), project)), project)
    ranked = below_calling_networks(ranked, sites.callers, lambda fid: fid in functions and _is_module_method(
        functions[fid], project))
    ranked = above_their_parts(ranked, sites.parts)
    ranked = below_built_pipelines(ranked, {f"{fn.path}:{p.start}-{p.end}": p.statements for fn, p, _ in outermost
                                            if (fn.id, p.start) not in sites.step_ranges},   # offered, no demotion
                                   INLINE_NETWORK_STATEMENTS)
    ranked = below_driven_callbacks(ranked, {f for f in sites.callbacks if f in sites.calls_module or sites.model_via(f)},
                                    simulated_ranges(outermost))
    ranked = below_their_ranges(below_model_signs(ranked), {
        fid: f"{driver.path}:{pipeline.start}-{pipeline.end}" for fid, (driver, pipeline) in sites.inline_networks.items()})
    ranked = below_driven_steps(ranked, {
        c.id: driven_steps(functions[c.id], _model_lines(functions[c.id], sites), sites.project_calls.get(c.id, []),
                           sites.definers) for c in ranked if c.kind == "function" and c.id in functions})
    ranked = below_their_steps(ranked, {c.id for c in ranked if c.kind == "function" and c.id in functions
                                        and is_step_name(functions[c.id].name) and _returns_value(functions[c.id])},
                               sites.callees, lambda fid: fid in functions and is_step_name(functions[fid].name))
    ranked = below_their_planners(ranked, sites.in_loops, {f for f, at in sites.in_loops.items() if any(
        c.id in sites.drivers for c, _ in at)})
    ranked = below_deploy_steps(ranked, network_methods(ranked, functions, project, sites.vendored),
                                deploy_steps(ranked, functions, sites, project, INLINE_NETWORK_STATEMENTS))
    ranked = break_ties(sorted(ranked, key=lambda e: tie_order(e, project)), project,
                        simulator_loops(outermost, project))
    return ranked[:limit] if limit else ranked
