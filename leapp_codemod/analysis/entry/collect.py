"""Collect where the project's functions are called, driven and served: the facts entry ranking reads."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.entry.forwarders import passes_packs_on, see_through_forwarders
from leapp_codemod.analysis.entry.call_sites import (
    CallSites,
    bind_selected,
    network_at,
    unbound_definers,
)
from leapp_codemod.analysis.entry.callbacks import (
    callers_of,
    driven_bodies,
    own_closure,
    registered_callbacks,
)
from leapp_codemod.analysis.entry.composers import model_parts, thin_body, wrapper_calls
from leapp_codemod.analysis.entry.config_choice import (
    chosen_at_run_time,
    selected_among,
)
from leapp_codemod.analysis.entry.cores import composed, range_around_step, short_range_around_step
from leapp_codemod.analysis.entry.drivers import (
    DRIVER_DEPTH,
    driver_ids,
    evaluation_branch_calls,
    in_tests,
    in_trainer,
    is_training_loop,
    loops_of,
)
from leapp_codemod.analysis.entry.factory_receivers import runs_no_model
from leapp_codemod.analysis.entry.loops import (
    inline_pipelines,
    loaded_models,
    model_call,
    offline_loop,
)
from leapp_codemod.analysis.entry.receivers import (
    bound_targets,
    collect_bindings,
    local_receiver_types,
    on_library_module,
)
from leapp_codemod.analysis.entry.model_fields import calls_declared_model
from leapp_codemod.analysis.entry.rollout_models import (
    episode_helpers,
    evaluation_rollout,
    held_models,
    model_params,
)
from leapp_codemod.analysis.entry.served import dotted, is_project_call, served_models
from leapp_codemod.analysis.entry.served import served_locals as served_locals_of
from leapp_codemod.analysis.entry.signs import (
    calls_nn_module,
    hands_a_model,
    module_items,
    unfollowed_policy_call,
)
from leapp_codemod.analysis.entry.slice_keys import ClassView, class_view
from leapp_codemod.analysis.entry.submodules import bound_forwards, hands_a_forward
from leapp_codemod.analysis.entry.vendored import vendored_modules
from leapp_codemod.analysis.flow.dataflow import compute_env
from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.infer.lattice import Facts
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.leapp_support import LeappSupport
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.resolve_types import is_abstract

# A project network's method called in a driver loop amid this many statements of pipeline code (building
# the observation, scaling the action) is a model call of that range, not the policy step itself.
INLINE_NETWORK_STATEMENTS = 6
ROLLOUT_NETWORK_STATEMENTS = 3


def loop_call_nodes(fn: FunctionInfo):
    """Calls in the function's loops, except those in a loop over a dataset that sends nothing out (any depth)."""
    offline = {id(c) for loop in loops_of(fn) if offline_loop(loop) for c in ast.walk(loop)}
    for loop in loops_of(fn):
        for stmt in loop.body:
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.Call) and id(sub) not in offline:
                    yield sub


def collect_call_sites(project: Project, support: LeappSupport) -> CallSites:
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
    callers = callers_of(project)
    episodes = _episodes(project, callers, sites.vendored)
    for fn, is_root in callers:
        sites.functions[fn.id] = fn
        tests = in_tests(fn, project)
        # an evaluation rollout (a trainer's `evaluate`, a library player's `rollout`) drives the policy on its
        # own, whoever calls it: its loops are candidates like a script's; so does the episode it repeats
        rollout = (not tests and fn.module not in sites.vendored and not is_module_method(fn, project)
                   and (evaluation_rollout(fn, _methods(project, fn)) or fn.id in episodes))
        trains = not rollout and (is_training_loop(fn) or in_trainer(fn, project, trainers))
        if rollout:
            sites.rollouts.add(fn.id)
        if trains and not tests:
            evaluation = evaluation_branch_calls(fn)
            if evaluation:
                evaluating[fn.id] = evaluation
        if trains and fn.id not in evaluating:
            training.append(fn)
            if not tests:
                sites.training.add(fn.id)
        if ((trains and fn.id not in evaluating) or tests or is_module_method(fn, project)
                or fn.module in sites.vendored):    # a copied library's rollout loops are not the project's drivers
            ignored.add(fn.id)
        elif is_root or fn.id in callbacks or fn.id in evaluating or rollout:
            roots.append(fn)
        ctx = FunctionContext(fn, project.modules[fn.module], project, facts, support)
        compute_env(ctx)
        resolved.append((ctx, [(node, ctx.resolve_call(node) or own_closure(project, fn, node))
                               for node in ast.walk(fn.node) if isinstance(node, ast.Call)]))
    has_loop: dict[str, bool] = {}
    looping = (lambda fn: has_loop.setdefault(fn.id, any(True for _ in loops_of(fn))))
    bindings = collect_bindings(resolved, looping)
    sites.model_params = model_params(resolved, project, looping)
    held: dict[str, set[str]] = {}
    for ctx, calls in resolved:
        fn = ctx.fn
        bound = local_receiver_types(ctx, bindings)
        held[fn.id] = held_models(ctx, calls, lambda node, ctx=ctx: calls_nn_module(ctx, node))
        if bound:    # receivers the callers (or an assertion) bind: `Model=Agent`, `run(make_policy(cfg))`
            calls = [(node, targets or bound_targets(project, node, bound)) for node, targets in calls]
        served_locals = served_locals_of(fn, dict(calls), by_getter, getters_named) if by_getter else {}
        networks = {id(node): node for node, targets in calls if targets and all(is_module_method(t, project)
                                                                                 for t in targets)}
        # `policy = make_policy(cfg)` then `policy(qpos, image)` where every model the factory serves is an
        # nn.Module called as such: a network the loop calls amid its own pipeline code, like one it names
        served_nets = {id(node): (node, served_locals[node.func.id]) for node, _ in calls
                       if isinstance(node.func, ast.Name) and _module_methods(served_locals.get(node.func.id), sites,
                                                                              project)}
        served_locals = {k: v for k, v in served_locals.items()
                         if k not in {node.func.id for node, _ in served_nets.values()}}
        # a call every target of which only raises (`policy(obs)` on a base class a factory returns a subclass
        # of), or whose targets are several classes' methods no config narrows, runs what is chosen at run time:
        # it stays a model call of the loop (its range is offered), not one project function's
        contexts.append((ctx, served_locals, {id(node) for node, targets in calls
                                              if targets and not chosen_at_run_time(targets, project)} - set(networks),
                         {**{node.lineno: [t.id for t in dict(calls)[node]] for node in networks.values()},
                          **{node.lineno: list(fids) for node, fids in served_nets.values()}},
                         {node.lineno for node, _ in served_nets.values()}))
        loop_calls = {id(c) for c in loop_call_nodes(fn)}
        offline = {id(c) for loop in loops_of(fn) if offline_loop(loop) for c in ast.walk(loop)}
        lambdas = {t.id for n in ast.walk(fn.node) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda)
                   for t in n.targets if isinstance(t, ast.Name)}
        if fn.id in callbacks:   # the framework calls it again and again: its calls are a loop body
            loop_calls |= {id(node) for node, _ in calls}
        evaluation = evaluating.get(fn.id)
        # `for layer in self.layers: x = layer(x)` in a policy class holding the layers (in a network's own method
        # its layers are its parts: the network is what a step calls)
        items = module_items(ctx, fn.node) if not is_module_method(fn, project) else set()
        outer_models = _enclosing_models(project, fn)   # `sess = ort.InferenceSession(...)` around a closure
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
                if passes_packs_on(fn, node):
                    sites.forwarded.setdefault(fn.id, set()).update(t.id for t in targets)
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
            if (calls_nn_module(ctx, node) or ((not targets or closures) and model_call(node, outer_models) is not None)
                    or (targets and hands_a_model(ctx, node, targets)) or hands_a_forward(node, forwards)
                    or (not targets and calls_declared_model(project, fn, node))
                    or (isinstance(node.func, ast.Name) and node.func.id in items)):
                sites.calls_module.add(fn.id)
                sites.model_lines.setdefault(fn.id, set()).add(node.lineno)
            elif not targets and unfollowed_policy_call(node, ctx.self_name, project, ctx.cls):
                sites.calls_module.add(fn.id)
                sites.model_lines.setdefault(fn.id, set()).add(node.lineno)
                sites.policy_calls.setdefault(fn.id, ast.unparse(node.func))
            if (id(node) in loop_calls and not targets and isinstance(node.func, ast.Attribute)
                    and not on_library_module(node.func, ctx.module, project)):
                sites.by_name_in_loops.setdefault(node.func.attr, []).append((fn, node.lineno))
    see_through_forwarders(sites)
    sites.drivers = driver_ids(roots, sites.callees, DRIVER_DEPTH, blocked=ignored) - ignored
    # what training code calls (rollout collection, updates) is training code too, unless a driver calls it
    training += [sites.functions[fid] for fid in sorted(trained) if fid in sites.functions]
    sites.ignored = ignored | (driver_ids(training, sites.callees, 2) - sites.drivers)
    for table in (sites.in_loops, sites.by_name_in_loops):
        for key, found in table.items():
            table[key] = [(caller, line) for caller, line in found if caller.id not in sites.ignored]
    find_parts(sites)
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
    reach = sites.model_reach()
    for ctx, served_locals, project_calls, networks, served_lines in contexts:
        if ctx.fn.id not in sites.drivers and ctx.fn.id not in deeper:
            continue
        bind_only = ctx.fn.id not in sites.drivers
        if ctx.module.name not in module_models:
            module_models[ctx.module.name] = loaded_models(ctx.module.tree.body)
        models = loaded_models(ctx.fn.node.body) | module_models[ctx.module.name] | held.get(ctx.fn.id, set())
        # parameters that carry a model mark their calls as model calls; they do not bind a method name to a
        # class (the configs or the callers may still say which class's method runs)
        with_params = models | set(sites.model_params.get(ctx.fn.id, {}))
        wrapped = wrapper_calls(sites, ctx.fn.id) if ctx.fn.class_name else []
        helpers = own_methods(project, ctx.fn)
        for loop in driven_bodies(ctx.fn, callbacks):
            if ctx.fn.id in evaluating and not in_branch(loop, evaluating[ctx.fn.id]):
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
            pipelines = [p for p in inline_pipelines(loop, with_params, lambda call, names=served_locals, known=project_calls:
                                                     is_project_call(call, names, known), is_wrapper, helpers)
                         if network_at(p, here) or (unbound_definers(p, models, definers) != 1
                                                    and runs_no_model(ctx.fn, p.model, project, reach) is None)]
            least = ROLLOUT_NETWORK_STATEMENTS if ctx.fn.id in sites.rollouts else INLINE_NETWORK_STATEMENTS
            # ... unless the configs select one of those classes: its method is what the loop runs, and amid
            # INLINE_NETWORK_STATEMENTS of pipeline code it is a part of the range, which stands
            pipelines = [p for p in pipelines if network_at(p, here) or _keeps_selected(
                sites, p, bind_selected(sites, project, ctx.fn, loop, p, models, definers), ctx.fn)]
            # a served network's call is a range of its own only amid that much pipeline code (else the served
            # model is the step, as when the loop only feeds it)
            pipelines = [p for p in pipelines if p.size >= least
                         or not any(p.start <= line <= p.end for line in served_lines)]
            if bind_only:
                continue
            around = (None if pipelines
                      else range_around_step(sites, ctx.fn, loop, models, INLINE_NETWORK_STATEMENTS, helpers))
            if around is not None:
                step_range, called = around
                sites.inline.append((ctx.fn, step_range, 0))
                sites.step_ranges.add((ctx.fn.id, step_range.start))
                for fid in called:
                    sites.ranged_steps.setdefault(fid, (ctx.fn, step_range))
            short = short_range_around_step(sites, ctx.fn, loop, models, helpers) \
                if around is None and not pipelines else None
            if short is not None:   # an evaluation loop's short range: a candidate below the function it calls
                step_range, called = short
                sites.inline.append((ctx.fn, step_range, 0))
                sites.step_ranges.add((ctx.fn.id, step_range.start))
                sites.short_ranges[f"{ctx.fn.path}:{step_range.start}-{step_range.end}"] = called
            if pipelines:
                best = max(pipelines, key=lambda p: p.statements)
                network = network_at(best, here)
                sites.inline.append((ctx.fn, best, 0 if network else unbound_definers(best, models, definers)))
                # a network called amid pipeline code; in an evaluation rollout the loop is the only place its
                # input is built and its output used, so a shorter range around it is the step. A gated call
                # (`if t % k == 0: chunk = policy(x)`) counts the block its range is widened to: the statements
                # there build the network's input and turn its chunk into the action
                bare = bool(network) and all(fid in sites.functions and thin_body(sites.functions[fid])
                                             for fid in network)
                if best.size >= (ROLLOUT_NETWORK_STATEMENTS if bare else least):   # a bare network: less will do
                    for fid in network:
                        sites.inline_networks.setdefault(fid, (ctx.fn, best))
    return sites


def _enclosing_models(project: Project, fn: FunctionInfo) -> set[str]:
    """Names the function enclosing a closure binds from a model loader (`sess = ort.InferenceSession(path)` in
    `main`, read by `def run_policy_step(): sess.run(...)`); empty for other functions."""
    outer, sep, _ = fn.qualname.rpartition(".<locals>.")
    enclosing = project.modules[fn.module].functions.get(outer) if sep else None
    return loaded_models(enclosing.node.body) if enclosing is not None else set()


def _keeps_selected(sites: CallSites, pipeline, selected: FunctionInfo | None, driver: FunctionInfo) -> bool:
    """Does an inline range stand when its model call is bound to `selected` (the class the configs select, or
    None)? It does when nothing is selected, and when the loop builds the call's input and uses its output in
    INLINE_NETWORK_STATEMENTS statements or more: the selected method is then a part of the range."""
    if selected is None:
        return True
    if pipeline.size < INLINE_NETWORK_STATEMENTS and not composed(sites, driver, pipeline):
        return False
    sites.ranged_steps.setdefault(selected.id, (driver, pipeline))
    return True


def _methods(project: Project, fn: FunctionInfo) -> dict:
    """The methods `fn`'s class defines in its own body, by name (empty for a function)."""
    cls = project.modules[fn.module].classes.get(fn.class_name) if fn.class_name else None
    return {s.name: s for s in cls.node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))} if cls else {}


def _episodes(project: Project, callers, vendored: set[str]) -> set[str]:
    """Ids of the methods an evaluator's loop repeats as its episode (rollout_models.episode_helpers)."""
    out = set()
    for fn, _ in callers:
        if fn.class_name and fn.module not in vendored:
            methods = _methods(project, fn)
            out |= {f"{fn.module}:{fn.class_name}.{name}" for name in episode_helpers(fn, methods)}
    return out


def in_branch(loop: ast.AST, calls: set[int]) -> bool:
    """Is the loop inside the evaluation branch whose calls are `calls`?"""
    return bool(made := [id(n) for n in ast.walk(loop) if isinstance(n, ast.Call)]) and all(c in calls for c in made)


def find_parts(sites: CallSites) -> None:
    """Model calls of the steps that callbacks and driver loops run (see composers.py)."""
    looped = {fid for fid, found in sites.in_loops.items() if any(c.id in sites.drivers for c, _ in found)}
    for fid in sorted((set(sites.callbacks) | looped) - sites.ignored - set(sites.forwarded)):   # a forwarder
        # composes nothing: its caller chooses what it runs
        fn = sites.functions.get(fid)
        if fn is None:
            continue
        found = model_parts(fn, sites.project_calls.get(fid, []),
                            lambda t: t in sites.calls_module or sites.model_via(t) is not None, sites.functions)
        for part, composer in found.items():
            sites.parts.setdefault(part, composer)


def own_methods(project: Project, fn: FunctionInfo) -> ClassView:
    """`fn`'s class as slicing its loops needs it (slice_keys.class_view; empty for a function)."""
    cls = project.modules[fn.module].classes.get(fn.class_name) if fn.class_name else None
    return class_view(cls.node if cls is not None else None)


def _module_methods(fids: list[str] | None, sites: CallSites, project: Project) -> bool:
    """Is every served model's call target the `forward` / `__call__` of an nn.Module (a network called as such,
    not a policy API method like `act_inference`, which is a step of its own)?"""
    return bool(fids) and all(fid in sites.functions and sites.functions[fid].name in ("forward", "__call__")
                              and is_module_method(sites.functions[fid], project) for fid in fids)


def is_module_method(fn: FunctionInfo, project: Project) -> bool:
    """Methods of nn.Modules call their layers, in loops too; they never drive the application."""
    cls = project.modules[fn.module].classes.get(fn.class_name) if fn.class_name else None
    return cls is not None and project.is_nn_module(cls)

