"""A copied training library's network ranks below the project's deploy step; a harness ranks below its step.

A method of an nn.Module of a library copied into the project (`ActorCritic.act_inference` of a vendored RL
library) takes tensors something else has already built: in a training simulator's play loop the vectorised
environment hands them over. A project function outside any network that a driver runs in a loop, and that
builds the input of the model it calls in several statements before the call and uses the result after it,
is the pipeline a user deploys. So when the project holds such a step, each copied network method scored at
or above it is put one point below it (whatever loop runs the network), with the reason. The project's own
networks are left alone: their `predict_action` is often the very step a runner calls.
"""
from __future__ import annotations

import ast
from dataclasses import replace

from leapp_codemod.analysis.entry.bounds import sends
from leapp_codemod.analysis.entry.call_sites import CallSites
from leapp_codemod.analysis.entry.drivers import loops_of, name_words
from leapp_codemod.analysis.entry.loops import InlinePipeline, defined_names, inline_pipelines, offline_loop, used_names
from leapp_codemod.analysis.entry.peers import GENERIC_STEP_NAMES
from leapp_codemod.analysis.entry.signs import IO_WORDS, TRAINING_NAMES, is_step_name, step_name
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.walk import self_name_of
from leapp_codemod.knowledge.vocab import PERCEPTION_METHOD_WORDS
from leapp_codemod.model import Entrypoint


def _simple_statements(fn: FunctionInfo) -> list[ast.stmt]:
    """The function's statements that are not compound (nested ones included), its docstring left out."""
    body = fn.node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    compound = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While,
                ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, getattr(ast, "Match", ast.If))
    return [n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.stmt) and not isinstance(n, compound)]


def builds_and_uses(fn: FunctionInfo, model_lines: set[int], least: int) -> bool:
    """Does `fn` run a model after at least `least` statements (building its input) and use what comes back
    in a statement after the call?"""
    if not model_lines:
        return False
    first = min(model_lines)
    statements = _simple_statements(fn)
    return (sum(s.lineno < first for s in statements) >= least
            and any(s.lineno > (max(model_lines)) for s in statements))


def below_deploy_steps(ranked: list[Entrypoint], networks: set[str], steps: set[str]) -> list[Entrypoint]:
    """`networks`: ids of candidates that are methods of an nn.Module; `steps`: ids of deploy steps (see the
    module docstring). Each network method scored at or above the best step goes one point below it."""
    best = max((c for c in ranked if c.kind == "function" and c.id in steps), key=lambda c: c.score, default=None)
    if best is None:
        return list(ranked)
    return [replace(c, score=best.score - 1, reasons=(
        *c.reasons, f"a network of a library copied into the project: ranked below {best.qualname}, which builds "
                    f"a model's input, runs it in a driver loop and uses the result ({best.path}:{best.line})"))
            if c.kind == "function" and c.id in networks and c.score >= best.score else c for c in ranked]


def _network_method(fn: FunctionInfo, project: Project) -> bool:
    cls = project.modules[fn.module].classes.get(fn.class_name) if fn.class_name else None
    return cls is not None and project.is_nn_module(cls)


def network_methods(ranked: list[Entrypoint], functions: dict[str, FunctionInfo], project: Project,
                    copied: set[str]) -> set[str]:
    """Ids of the function candidates that are methods of an nn.Module of a library copied into the project
    (`copied`: its module names): the training stack's network, which the project's deploy code does not run
    through its own step."""
    return {c.id for c in ranked if c.kind == "function" and c.id in functions
            and functions[c.id].module in copied and _network_method(functions[c.id], project)}


def deploy_steps(ranked: list[Entrypoint], functions: dict[str, FunctionInfo], sites: CallSites, project: Project,
                 least: int) -> set[str]:
    """Candidates outside any network that a driver runs in a loop and that build a model's input in at
    least `least` statements before calling it, then use the result."""
    out = set()
    for c in ranked:
        fn = functions.get(c.id) if c.kind == "function" else None
        if (fn is None or fn.id in sites.ignored or fn.module in sites.vendored or _network_method(fn, project)
                or not any(caller.id in sites.drivers for caller, _ in sites.in_loops.get(fn.id, []))):
            continue
        if builds_and_uses(fn, sites.model_lines.get(fn.id, set()), least):
            out.add(fn.id)
    return out


def harness_via(fn: FunctionInfo, sites: CallSites):
    """(helper, loop line, step) when `fn` reaches a model only through a helper it calls whose own loop calls
    a project function named like a policy step that runs a model (`for demo ...: for t ...: actioner.predict(x)`):
    `fn` runs episodes of that step, a harness around it, not the step."""
    functions = sites.functions
    helper = functions.get(sites.model_via(fn.id) or "")
    if helper is None or helper.id == fn.id or helper.id in sites.calls_module:
        return None
    loops = [loop for loop in loops_of(helper) if not offline_loop(loop)]
    for node, tids in sites.project_calls.get(helper.id, []):
        for tid in tids:
            step = functions.get(tid)
            if (step is not None and tid != helper.id and is_step_name(step.name.lstrip("_"))
                    and (tid in sites.calls_module or sites.model_via(tid))):
                line = next((loop.lineno for loop in loops if loop.lineno < node.lineno <= (loop.end_lineno or 0)),
                            None)
                if line is not None:
                    return helper, line, step
    return None


def _runs_model(sites: CallSites, fid: str) -> bool:
    """A project function outside training code that runs a model: itself (a wrapper of a session or a network,
    whatever its name), or through what it calls (two delegations deep) when it is named like a policy step,
    called as the object itself (`__call__`, `forward`), or runs that call once rather than in a loop of its own
    (`Environment.run` stepping a controller in a loop runs episodes, it is no part of one step)."""
    fn = sites.functions.get(fid)
    if fn is None or fid in sites.ignored or name_words(fn.name) & PERCEPTION_METHOD_WORDS:
        return False    # a detector's `detect()` feeds the policy, it is not the policy
    if fid in sites.calls_module:
        return True
    if sites.model_via(fid) is None:
        return False
    return (is_step_name(step_name(fn)) or fn.name in GENERIC_STEP_NAMES - {"step"}
            or not _loops_over_models(sites, fn))


def _loops_over_models(sites: CallSites, fn: FunctionInfo, depth: int = 2) -> bool:
    """Does a loop of `fn`, or of a function it hands the work to (`depth` delegations deep, as far as
    `model_via` looks), call a project function that runs a model (`Environment.run` calling `simulate`, whose
    loop steps the controller)?"""
    spans = [(loop.lineno, loop.end_lineno or loop.lineno) for loop in loops_of(fn)]
    for node, tids in sites.project_calls.get(fn.id, []):
        reaching = [t for t in tids if t != fn.id and (t in sites.calls_module or sites.model_via(t))]
        if reaching and any(first <= node.lineno <= last for first, last in spans):
            return True
        if depth > 1 and any(t in sites.functions and _loops_over_models(sites, sites.functions[t], depth - 1)
                             for t in reaching):
            return True
    return False


# Words of a helper's name that act on the world or report, not on the pipeline's data (`env.step`, `log_info`).
_NOT_PROCESSING = IO_WORDS | {"step", "reset", "apply", "set", "sleep", "wait", "sync", "update"}


def processes_around(sites: CallSites, fn: FunctionInfo, pipeline: InlinePipeline) -> str | None:
    """A project helper, in `fn`'s inline range `pipeline`, that turns observation data handed to it into the
    model's input (`data = raw_obs_to_tensor(obs, cfg)` before `policy.get_action(data)`), or the model's output
    alone into the action (`actions = post_process(raw)` after it), and runs no model itself: the range then
    composes the pipeline out of the project's own steps, more of it than the model function alone. Its
    qualname, or None. Helpers are plain functions or methods of the step's own object: a method of another
    object (`rig.divert(chute)`, `robot.read(port)`) acts on or reads the world. A getter called with nothing, a
    helper that mixes the action with other readings (`pd_control(target, qpos, ...)`: the low-level
    controller), world steps, resets, I/O and training helpers are no such step either."""
    inside = [(node, tids) for node, tids in sites.project_calls.get(fn.id, [])
              if pipeline.start <= node.lineno <= pipeline.end and tids]
    model_lines = [node.lineno for node, tids in inside if any(_runs_model(sites, t) for t in tids)]
    model_lines += [line for line in sites.model_lines.get(fn.id, ()) if pipeline.start <= line <= pipeline.end]
    if not model_lines:
        return None
    derived = _derived_names(fn, pipeline, max(model_lines))
    for node, tids in inside:
        if node.lineno < min(model_lines):
            fits = bool(node.args or node.keywords)
        elif node.lineno > max(model_lines):
            read = {n.id for arg in [*node.args, *(k.value for k in node.keywords)] for n in ast.walk(arg)
                    if isinstance(n, ast.Name)}
            fits = bool(read) and read <= derived
        else:
            continue
        helpers = [sites.functions.get(tid) for tid in tids]
        own = isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
            and node.func.value.id == self_name_of(fn)
        if fits and all(h is not None and (h.class_name is None or own) and _processes(sites, h, fn) for h in helpers):
            return helpers[0].qualname
    return None


def _derived_names(fn: FunctionInfo, pipeline: InlinePipeline, model_line: int) -> set[str]:
    """Names the range binds from the model call's result at `model_line`, directly or through statements after
    it that read only such names (and attributes, constants)."""
    statements = sorted((s for s in _simple_statements(fn) if pipeline.start <= s.lineno <= pipeline.end),
                        key=lambda s: s.lineno)
    out: set[str] = set()
    for stmt in statements:
        if stmt.lineno <= model_line <= (stmt.end_lineno or stmt.lineno):
            out |= defined_names(stmt)
        elif stmt.lineno > model_line and (read := used_names(stmt) - {"self"}) and read <= out:
            out |= defined_names(stmt)
    return out


def composed(sites: CallSites, fn: FunctionInfo, pipeline: InlinePipeline) -> bool:
    """Is the short range `pipeline` composed around its model step by a project helper (processes_around)?
    Recorded: such a range carries the step's evidence (ordering.below_their_ranges)."""
    if processes_around(sites, fn, pipeline) is None:
        return False
    sites.composed.add(f"{fn.path}:{pipeline.start}-{pipeline.end}")
    return True


def _processes(sites: CallSites, helper: FunctionInfo, caller: FunctionInfo) -> bool:
    tid = helper.id
    return not (tid == caller.id or tid in sites.ignored or helper.module in sites.vendored
                or _runs_model(sites, tid) or sites.model_via(tid) is not None or tid in sites.calls_module
                or helper.name in TRAINING_NAMES or helper.name.startswith("__")
                or name_words(helper.name) & _NOT_PROCESSING or not returns_value(helper))


def returns_value(fn: FunctionInfo) -> bool:
    """Does some `return` of the function hand back a value?"""
    return any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(fn.node))


def range_around_step(sites: CallSites, fn: FunctionInfo, loop: ast.AST, models: set[str],
                      least: int, view=None) -> tuple[InlinePipeline, list[str]] | None:
    """A driver loop (at any depth below `__main__`) that builds, in at least `least` statements, the input of a
    project function running a model (`actioner.predict(rgbs, pcds, grippers)`, `self.actor(history)` on a
    wrapper of an ONNX session) and uses its output: the loop body is offered as an inline range (the
    observation code lives in the loop, not in the function), with the ids of the functions its call runs."""
    steps = _model_steps(sites, fn)
    found = [p for p in inline_pipelines(loop, models, lambda call: True, lambda call: id(call) in steps, view)
             if p.statements >= least or composed(sites, fn, p)] if steps else []
    return _widest(sites, fn, steps, found)


def short_range_around_step(sites: CallSites, fn: FunctionInfo, loop: ast.AST, models: set[str],
                            view=None) -> tuple[InlinePipeline, list[str]] | None:
    """A driver loop that hands what a project function running a model returns to the world in the same pass
    (`obs = obs[None]`, `action = agent.act(obs)`, then `env.step(action)`), in fewer statements than
    `range_around_step` asks but more than the call alone: an evaluation or deploy loop, a candidate of its own
    that ranks right below the function it calls (`ordering.below_called_steps`), with the ids of the functions
    its call runs."""
    steps = _model_steps(sites, fn)
    found = [p for p in inline_pipelines(loop, models, lambda call: True, lambda call: id(call) in steps, view)
             if p.statements >= 2 and any(sends(stmt) for stmt in loop.body if stmt.lineno > p.end)] \
        if steps else []   # more than the call, and a send after it
    return _widest(sites, fn, steps, found)


def _model_steps(sites: CallSites, fn: FunctionInfo) -> dict[int, list[str]]:
    """id(call) -> the ids it runs, for `fn`'s calls of project functions that all run a model."""
    return {id(node): tids for node, tids in sites.project_calls.get(fn.id, [])
            if tids and all(_runs_model(sites, t) for t in tids)}


def _widest(sites: CallSites, fn: FunctionInfo, steps: dict[int, list[str]],
            found: list[InlinePipeline]) -> tuple[InlinePipeline, list[str]] | None:
    """The range of the most statements, with the ids of the model-running functions its calls run."""
    if not found:
        return None
    best = max(found, key=lambda p: p.statements)
    called = [tid for node, tids in sites.project_calls.get(fn.id, []) if id(node) in steps
              and best.start <= node.lineno <= best.end for tid in tids]
    return best, called
