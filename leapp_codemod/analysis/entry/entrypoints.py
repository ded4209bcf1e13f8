"""Rank candidate pipeline entrypoints, each with the reasons that put it there."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.entry.call_sites import CallSites
from leapp_codemod.analysis.entry.collect import (
    INLINE_NETWORK_STATEMENTS,
    collect_call_sites,
    is_module_method,
)
from leapp_codemod.analysis.entry.composers import above_their_parts, builds_for_thin_wrapper
from leapp_codemod.analysis.entry.built_overrides import to_built_overrides
from leapp_codemod.analysis.entry.config_choice import favour_selected
from leapp_codemod.analysis.entry.deep_steps import deep_driver
from leapp_codemod.analysis.entry.cores import (
    below_deploy_steps,
    deploy_steps,
    harness_via,
    network_methods,
    returns_value,
)
from leapp_codemod.analysis.entry.drivers import (
    MODULE_QUALNAME,
    in_tests,
    in_training_path,
    name_words,
)
from leapp_codemod.analysis.entry.lookup import (
    NO_MODEL,
    TRAINING_CODE,
    VENDORED,
    below_model_signs,
    below_non_training,
    is_vendored,
)
from leapp_codemod.analysis.entry.loops import InlinePipeline
from leapp_codemod.analysis.entry.representations import (
    REPRESENTATION_PENALTY,
    representation_at,
    representation_output,
)
from leapp_codemod.analysis.entry.robot_loops import below_robot_steps, robot_candidates, simulated_functions
from leapp_codemod.analysis.entry.rollout_models import rollout_reasons
from leapp_codemod.analysis.entry.ordering import (
    below_called_steps,
    below_parts,
    below_their_ranges,
    built_before,
    callbacks_first,
    covers_body,
    outermost_ranges,
)
from leapp_codemod.analysis.entry.peers import (
    GENERIC_STEP_NAMES,
    below_delegated_models,
    built_count,
    favour_most_built,
)
from leapp_codemod.analysis.entry.signs import (
    ACTION_WORDS,
    ENV_BASE,
    IO_WORDS,
    POLICY_STEP_NAMES,
    SIDE_SCRIPT_PENALTY,
    STEP_VERBS,
    TRAINING_NAMES,
    computes_loss,
    decorated_no_grad,
    deploy_path,
    environment_or_optimizer,
    is_step_name,
    non_torch,
    private_step,
    side_script,
    step_name,
    steps_simulator,
    trains,
    uses_non_torch,
)
from leapp_codemod.analysis.entry.steps import (
    below_driven_steps,
    below_their_planners,
    below_their_steps,
    driven_steps,
)
from leapp_codemod.analysis.entry.submodules import below_calling_networks, same_class_line
from leapp_codemod.analysis.entry.ties import break_ties
from leapp_codemod.analysis.entry.uses import (
    ROLLOUT_DRIVEN,
    below_built_pipelines,
    below_driven_callbacks,
    fed_only_noise,
    only_logged,
    runs_rollout,
    simulated_ranges,
    simulator_loops,
)
from leapp_codemod.analysis.entry.unsent import unsent_ranges
from leapp_codemod.analysis.entry.vendored import below_any_copy
from leapp_codemod.analysis.entry.wrapping_steps import (
    above_their_models,
    wrapping_edges,
)
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.leapp_support import LeappSupport
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.resolve_types import is_abstract, overrides
from leapp_codemod.model import Entrypoint


def _where(caller: FunctionInfo) -> str:
    return "the module's top-level code" if caller.qualname == MODULE_QUALNAME else caller.qualname


def _score(fn: FunctionInfo, project: Project, sites: CallSites, reach: set[str]) -> tuple[int, list[str]]:
    score, reasons = 0, []
    loops = [(caller, line) for caller, line in sites.in_loops.get(fn.id, []) if caller.id != fn.id]
    loops.sort(key=lambda site: site[0].id not in sites.drivers)
    if loops:   # a framework's callback or a driver's loop says more than another loop that calls it
        caller, line = max(loops, key=lambda site: (site[0].id in sites.callbacks, site[0].id in sites.drivers))
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
            if builds_for_thin_wrapper(fn, caller):
                score += 1
                reasons.append(f"called by {_where(caller)}, which {_where(driver)} calls in a loop "
                               f"({driver.path}:{line}), and only wraps its model call: {_where(caller)} builds "
                               "the input")
            else:
                score += 5
                reasons.append(f"called by {_where(caller)}, which {_where(driver)} calls in a loop "
                               f"({driver.path}:{line}): the model call of the loop body")
    if not loops and not is_module_method(fn, project) and (deep := deep_driver(fn, sites)) is not None:
        looped, driver, line, chain = deep
        loops = [(looped, line)]
        score += 4
        reasons.append(f"reached from {_where(looped)}, which {_where(driver)} runs repeatedly ({driver.path}:{line}), "
                       f"through {', '.join(chain)}: where the loop's data meets the model")
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
        evidence += fn.name == "step" or not is_module_method(fn, project)
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
    elif fn.id in sites.callbacks and fn.id in reach and (via := _reaching_callee(fn.id, sites, reach)):
        score += 2   # the framework's repeated call is the loop; what it calls on runs the model
        reasons.append(f"a registered callback that runs a model through {via}")
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
    score -= _side_script(fn.path, reasons)
    n_inputs = len(fn.params) - (1 if fn.is_method else 0)
    if n_inputs >= 1 and returns_value(fn):
        score += 1
        reasons.append(f"takes {n_inputs} input(s) and returns a value")
    callers = sites.callers.get(fn.id, set()) - {fn.id} - sites.ignored
    scripts = sorted(c for c in callers if c.endswith(f":{MODULE_QUALNAME}") and c in sites.functions
                     and c not in sites.drivers)   # a usage script that is no driver (no loop, no `__main__`)
    if callers and not loops and scripts and len(scripts) == len(callers) and fn.id in reach:
        score += 2   # `ctl = Controller(); cmd = ctl.run(state)` in a deploy script: a usage the user's loop repeats
        reasons.append(f"run by the top-level code of {sites.functions[scripts[0]].path} (a script, no other "
                       "project code calls it)")
    elif callers and not loops:
        score -= 2
        reasons.append("called by other project code (a callee, not the top of the pipeline)")
    if project.modules[fn.module].has_main_guard and not loops and fn.class_name is not None:
        score -= 1
    if fn.name in TRAINING_NAMES and not _control_tick(fn, loops, sites):
        score -= 5
        reasons.append(f"`{fn.name}` is a critic, value, loss or update function {TRAINING_CODE}")
    elif computes_loss(fn):
        score -= 4
        reasons.append(f"computes a loss or gradients {TRAINING_CODE}")
    elif fn.id in sites.training and fn.id in sites.callbacks:
        score -= 4   # `TrainNode._control_step`: a node's tick that collects transitions and updates the policy
        reasons.append(f"a callback of training code (its name or its class's says it trains, or it runs a training "
                       f"step) {TRAINING_CODE}")
    logged = [(caller, line) for caller, line in loops if only_logged(caller, line, fn.name)]
    if loops and len(logged) == len(loops):
        score -= 4
        reasons.append(f"its result only reaches a logger ({logged[0][0].path}:{logged[0][1]}): it reports, it "
                       f"sends no action out")
    elif loops and all(fed_only_noise(caller, line, fn.name) for caller, line in loops):
        score -= 4
        reasons.append(f"its loop feeds it only random draws ({loops[0][0].path}:{loops[0][1]}): a probe or a "
                       f"check, no observation reaches it")
    held = [representation_at(caller.node, line) for caller, line in loops]
    if loops and all(held):
        score -= REPRESENTATION_PENALTY
        reasons.append(f"its loop keeps what it returns as `{held[0]}` ({loops[0][0].path}:{loops[0][1]}), a "
                       f"representation (an embedding, features, a latent) for another model: a perception or "
                       f"pre-compute stage, not the step that acts (-{REPRESENTATION_PENALTY})")
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


def _whole_callback(fn: FunctionInfo, pipeline) -> str:
    """Why a registered callback is offered above its inline range ("" when it is not): the range is its whole
    body, or the range reads a value the callback builds before it."""
    range_id = f"{fn.path}:{pipeline.start}-{pipeline.end}"
    if covers_body(fn.node, pipeline.start, pipeline.end):
        return f"its body is the inline range {range_id}: the callback is offered as the entry"
    found = built_before(fn.node, pipeline.start, pipeline.end)
    if found is None:
        return ""
    return (f"its inline range {range_id} reads `{found[0]}`, which the callback builds before it (line {found[1]}): "
            "the callback is offered as the entry")


def _registered_step(fn: FunctionInfo, sites: CallSites) -> bool:
    """A private method a framework calls back (`create_timer(dt, self._rl_loop)`) that runs a model: the step,
    whatever its name."""
    return fn.id in sites.callbacks and (fn.id in sites.calls_module or sites.model_via(fn.id) is not None)


def _driven_caller(fn: FunctionInfo, sites: CallSites):
    """A caller of `fn` that a driver calls in a loop (or a framework calls back) and that returns nothing (it
    sends the action out itself, so `fn` is where observations become an action): (caller, (driver, line))."""
    for caller_id in sorted(sites.callers.get(fn.id, set()) - sites.ignored - {fn.id}):
        for driver, line in sites.in_loops.get(caller_id, []):
            caller = _function(caller_id, driver, sites)
            if driver.id in sites.drivers and not returns_value(caller):
                return caller, (driver, line)   # the loop body sends the action out itself
    return None


def _function(fid: str, fallback: FunctionInfo, sites: CallSites):
    return sites.functions.get(fid, fallback)


SCRIPTED_PENALTY = 4


# Training names that control code also gives its per-tick method (`update()` of a controller a loop runs).
TICK_NAMES = frozenset({"update"})


def _control_tick(fn: FunctionInfo, loops: list, sites: CallSites) -> bool:
    """`update()` a driver loop calls every tick that runs a model through what it calls and neither it nor its
    callees compute a loss, step an optimizer or call `backward()`: a controller's tick, not a learner's update."""
    if fn.name not in TICK_NAMES or not any(caller.id in sites.drivers for caller, _ in loops) \
            or sites.model_via(fn.id) is None:
        return False
    bodies = [fn, *(sites.functions[t] for t in sites.delegates.get(fn.id, set()) if t in sites.functions)]
    return not any(trains(body) for body in bodies)


def _side_script(path: str, reasons: list[str]) -> int:
    """The penalty of a candidate written in a script named for recording, checking or showing data (with the
    reason appended), else 0."""
    name = side_script(path)
    if name is None:
        return 0
    reasons.append(f"written in `{name}`, a script named for recording, checking or showing data, not for running "
                   f"the policy (-{SIDE_SCRIPT_PENALTY})")
    return SIDE_SCRIPT_PENALTY


def _scripted_definers(pipeline: InlinePipeline, definers: int, sites: CallSites | None,
                       reach: frozenset[str] | set[str]) -> str:
    """`controller.get_action(state)` on a receiver bound at run time whose every project definer (a gamepad, a VR
    rig, a waypoint script) runs no model in the scan's reach: their names, else ""."""
    if not definers or sites is None:
        return ""
    method = pipeline.model.rpartition(".")[2]
    fids = [fid for fid in sites.definers.get(method, []) if fid in sites.functions]
    if not fids or any(fid in reach for fid in fids):
        return ""
    return ", ".join(sites.functions[fid].qualname.rpartition(".")[0] or sites.functions[fid].qualname
                     for fid in fids)


def _inline_candidate(fn: FunctionInfo, pipeline: InlinePipeline, definers: int, project: Project,
                      callback: bool = False, sites: CallSites | None = None,
                      reach: frozenset[str] | set[str] = frozenset()) -> Entrypoint:
    score = 9
    where = "a callback the framework calls repeatedly" if callback else "a loop"
    around_step = sites is not None and (fn.id, pipeline.start) in sites.step_ranges
    how = ("calls `{}`, a project function that runs a model," if around_step
           else "calls the model `{}` inline, not through a project function,").format(pipeline.model)
    reasons = [(f"{how} in {where} ({fn.path}:{pipeline.loop_line}); statements {pipeline.start}-{pipeline.end} "
                f"build its input and use its output"),
               f"the loop is in a driver ({_where(fn)})" if not callback else f"{_where(fn)} is registered "
               f"as a callback"]
    reasons += rollout_reasons(fn, pipeline, sites) if sites is not None else []
    if pipeline.carried:
        names = ", ".join(f"`{n}`" for n in pipeline.carried)
        reasons.append(f"{names} enter{'s' if len(pipeline.carried) == 1 else ''} from the previous iteration: the "
                       f"loop updates {'it' if len(pipeline.carried) == 1 else 'them'} after the send (through line "
                       f"{pipeline.updated_at}) for the next policy call, so the range runs through that update")
    scripted = _scripted_definers(pipeline, definers, sites, reach)
    if scripted:
        score -= SCRIPTED_PENALTY
        reasons.append(f"the project classes that define `{pipeline.model.rpartition('.')[2]}` ({scripted}) run no "
                       f"model, as far as the scan follows: a scripted or teleoperation controller "
                       f"(-{SCRIPTED_PENALTY})")
    elif definers:
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
    score -= _side_script(fn.path, reasons)
    representation = representation_output(fn.node, pipeline.start, pipeline.end, pipeline.model)
    if representation is not None:
        score -= REPRESENTATION_PENALTY
        reasons.append(f"its model computes `{representation}`, a representation (an embedding, features, a latent) "
                       f"for another model, and it binds no action: a perception or pre-compute stage "
                       f"(-{REPRESENTATION_PENALTY})")
    if uses_non_torch(fn, pipeline, project):
        score -= 4
        reasons.append("the range runs JAX/TensorFlow code (LEAPP traces PyTorch)")
    return Entrypoint(fn.module, f"{_where(fn)}@{pipeline.loop_line}", fn.path, pipeline.loop_line, score,
                      tuple(reasons), kind="inline", start=pipeline.start, end=pipeline.end)


def _looped_closures(sites: CallSites) -> list[FunctionInfo]:
    """Closures a helper returns that a loop calls (`get_action = build_get_action(agent)`, then
    `action = get_action(obs)` each step): candidates like any function (`--entry mod:build.<locals>.get_action`)."""
    return [fn for fid, fn in sorted(sites.functions.items()) if ".<locals>." in fid and sites.in_loops.get(fid)]


def _reaching_callee(fid: str, sites, reach: set[str]) -> str | None:
    """The qualname of the first project function `fid` hands its data to whose reach runs a model."""
    callee = next((c for c in sorted(sites.delegates.get(fid, set()) - {fid}) if c in reach), None)
    if callee is None:
        return None
    fn = sites.functions.get(callee)
    return fn.qualname if fn is not None else callee


def rank_entrypoints(project: Project, support: LeappSupport, limit: int = 10) -> list[Entrypoint]:
    """Candidates best first; `limit` 0 keeps them all."""
    sites = collect_call_sites(project, support)
    reach = sites.model_reach()
    functions = {fn.id: fn for fn in project.functions()} | sites.functions
    ranked: list[Entrypoint] = []
    for fn in [*project.functions(), *_looped_closures(sites)]:
        if fn.name.startswith("test_") or (fn.name.startswith("_") and fn.name != "__call__"
                                           and not private_step(fn, sites.in_loops.get(fn.id, []))
                                           and not _registered_step(fn, sites)):
            continue
        if in_tests(fn, project) or is_abstract(fn) or fn.id in sites.forwarded:
            continue   # a forwarder runs what its caller hands it (`entry/forwarders.py`)
        score, reasons = _score(fn, project, sites, reach)
        if score >= 4:
            ranked.append(Entrypoint(fn.module, fn.qualname, fn.path, fn.node.lineno, score, tuple(reasons)))
    favour_most_built(ranked, project)
    favour_selected(ranked, project)
    ranked = to_built_overrides(ranked, project)
    outermost = outermost_ranges(sites.inline)
    registered = {(fn.id, p.start): fn.id in sites.callbacks and p.loop_line == fn.node.lineno for fn, p, _ in outermost}
    ranked += [_inline_candidate(fn, p, d, project, registered[fn.id, p.start], sites, reach)
               for fn, p, d in outermost]
    ranked = callbacks_first(ranked, {f"{fn.path}:{p.start}-{p.end}": (fn.module, fn.qualname, fn.node.lineno, why)
                                      for fn, p, _ in outermost if registered[fn.id, p.start]
                                      and (why := _whole_callback(fn, p))})
    ranked = below_delegated_models(below_non_training(below_parts(below_any_copy(ranked, project), project)), project)
    ranked = below_calling_networks(ranked, sites.callers, lambda fid: fid in functions and is_module_method(
        functions[fid], project), lambda caller, callee: same_class_line(caller, callee, functions, project))
    ranked = above_their_parts(ranked, sites.parts)
    edges = wrapping_edges(functions, sites, project, {c.id for c in ranked if c.kind == "function"}, reach)
    ranked = above_their_models(ranked, edges, functions)
    ranked = below_built_pipelines(ranked, {f"{fn.path}:{p.start}-{p.end}": p.statements for fn, p, _ in outermost
                                            if (fn.id, p.start) not in sites.step_ranges},   # offered, no demotion
                                   INLINE_NETWORK_STATEMENTS)
    ranked = below_driven_callbacks(ranked, {f for f in sites.callbacks if f in sites.calls_module or sites.model_via(f)},
                                    simulated_ranges(outermost))
    ranked = below_robot_steps(ranked, robot_candidates(ranked, outermost, sites, functions, project),
                               simulated_ranges(outermost) | simulated_functions(ranked, sites, functions, project))
    ranked = below_their_ranges(below_model_signs(ranked), {
        fid: f"{driver.path}:{pipeline.start}-{pipeline.end}"
        for fid, (driver, pipeline) in {**sites.ranged_steps, **sites.inline_networks}.items()},
        frozenset(sites.composed))
    ranked = below_driven_steps(ranked, {
        c.id: driven_steps(functions[c.id], _model_lines(functions[c.id], sites), sites.project_calls.get(c.id, []),
                           sites.definers) for c in ranked if c.kind == "function" and c.id in functions})
    ranked = below_their_steps(ranked, {c.id for c in ranked if c.kind == "function" and c.id in functions
                                        and is_step_name(functions[c.id].name) and returns_value(functions[c.id])},
                               sites.callees, lambda fid: fid in functions and is_step_name(functions[fid].name))
    ranked = below_their_planners(ranked, sites.in_loops, {f for f, at in sites.in_loops.items() if any(
        c.id in sites.drivers for c, _ in at)})
    ranked = below_deploy_steps(ranked, network_methods(ranked, functions, project, sites.vendored),
                                deploy_steps(ranked, functions, sites, project, INLINE_NETWORK_STATEMENTS))
    ranked = below_non_training(ranked)   # again: the moves above may have lifted training code past the floor
    ranked = break_ties(sorted(ranked, key=lambda e: tie_order(e, project)), project,
                        simulator_loops(outermost, project), unsent_ranges(outermost))
    ranked = below_called_steps(ranked, sites.short_ranges)
    return ranked[:limit] if limit else ranked
