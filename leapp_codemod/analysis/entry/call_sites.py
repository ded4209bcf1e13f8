"""What the entry ranking collects about call sites (`CallSites`), and how an inline range's model call on a
receiver of unknown class is bound to the class the configs select."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.entry.composers import Composer
from leapp_codemod.analysis.entry.config_choice import selected_among, where_selected
from leapp_codemod.analysis.entry.loops import InlinePipeline
from leapp_codemod.analysis.entry.signs import environment_or_optimizer
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.project import Project


@dataclass
class CallSites:
    in_loops: dict[str, list[tuple[FunctionInfo, int]]] = field(default_factory=dict)   # fid -> callers in loops
    by_name_in_loops: dict[str, list[tuple[FunctionInfo, int]]] = field(default_factory=dict)
    callers: dict[str, set[str]] = field(default_factory=dict)
    callees: dict[str, set[str]] = field(default_factory=dict)
    calls_module: set[str] = field(default_factory=set)
    drivers: set[str] = field(default_factory=set)          # driver roots and what they call
    ignored: set[str] = field(default_factory=set)          # tests, training code, nn.Module methods
    training: set[str] = field(default_factory=set)         # judged training code by what it is or does
    inline: list[tuple[FunctionInfo, InlinePipeline, int]] = field(default_factory=list)  # (+ definers of its method)
    served: dict[str, FunctionInfo] = field(default_factory=dict)   # a model's call target -> its getter
    functions: dict[str, FunctionInfo] = field(default_factory=dict)  # fid -> function (callers included)
    callbacks: dict[str, tuple[FunctionInfo, int]] = field(default_factory=dict)  # registered -> (where, line)
    # fid -> the project functions it calls, through which it may run a model: a private helper
    # (`self._compute_action(obs)`), the policy it holds (`self.policy.act(obs)`), a call dispatched at
    # run time among several classes (`self.cur_policy.run()`)
    delegates: dict[str, set[str]] = field(default_factory=dict)
    # project network methods a driver loop calls inline, with pipeline code around -> (driver, range)
    inline_networks: dict[str, tuple[FunctionInfo, InlinePipeline]] = field(default_factory=dict)
    step_ranges: set[tuple[str, int]] = field(default_factory=set)   # (fn id, start) of ranges around a step
    composed: set[str] = field(default_factory=set)   # ranges (path:start-end) composed around a project helper (cores)
    # short evaluation or deploy loop ranges (path:start-end) -> the project functions running a model they call
    short_ranges: dict[str, list[str]] = field(default_factory=dict)
    # project functions running a model that a driver loop calls amid its pipeline code -> (driver, range)
    ranged_steps: dict[str, tuple[FunctionInfo, InlinePipeline]] = field(default_factory=dict)
    project_calls: dict[str, list[tuple[ast.Call, list[str]]]] = field(default_factory=dict)  # fid -> its calls
    policy_calls: dict[str, str] = field(default_factory=dict)   # fid -> `self.player.get_action` it calls
    parts: dict[str, Composer] = field(default_factory=dict)   # a model call's function -> the step composing it
    model_lines: dict[str, set[int]] = field(default_factory=dict)   # fid -> lines of its own model calls
    definers: dict[str, list[str]] = field(default_factory=dict)   # method name -> project methods, not abstract
    # fid -> (classes a call's receiver may hold, where the configs select this one's): `self.agent.act(obs)`
    selected_at: dict[str, tuple[int, str]] = field(default_factory=dict)
    vendored: set[str] = field(default_factory=set)   # modules of third-party code copied into the project
    rollouts: set[str] = field(default_factory=set)   # evaluation rollouts: drivers wherever they are written
    # fid -> {parameter: why it carries a model}: what call sites hand it, or how the function uses it
    model_params: dict[str, dict[str, str]] = field(default_factory=dict)
    # fid -> the functions it runs only as a callable its caller hands it, passing its packs on
    # (`timed(walker.act, obs)` with `call(*args, **kwargs)` inside): see `entry/forwarders.py`
    forwarded: dict[str, set[str]] = field(default_factory=dict)

    def model_via(self, fid: str, depth: int = 2) -> str | None:
        """The callee through which `fid` calls a model (two delegations deep), when it does not itself."""
        for callee in sorted(self.delegates.get(fid, set()) - {fid}):
            if callee in self.calls_module or (depth > 1 and self.model_via(callee, depth - 1)):
                return callee
        return None

    def model_reach(self) -> set[str]:
        """Every function whose reach runs a model: those that call one themselves (an nn.Module, a loaded
        model, a policy the scan cannot follow) and, transitively, every function that calls one of them, as far
        as the scan follows calls (a lambda handed to a scheduler is part of the function that writes it)."""
        callers: dict[str, set[str]] = {}
        for fid, targets in self.delegates.items():
            for target in targets - {fid}:
                callers.setdefault(target, set()).add(fid)
                outer = target.rpartition(".<locals>.")[0]
                if outer and target not in self.delegates:   # a closure's calls are its enclosing function's
                    callers.setdefault(outer, set()).add(target)
        reach, todo = set(self.calls_module), list(self.calls_module)
        while todo:
            for caller in callers.get(todo.pop(), ()):
                if caller not in reach:
                    reach.add(caller)
                    todo.append(caller)
        return reach


def network_at(pipeline: InlinePipeline, networks: dict[int, list[str]]) -> list[str]:
    """The project nn.Module methods an inline range calls as its model (`model.act(obs)`)."""
    return [fid for line, fids in networks.items() if pipeline.start <= line <= pipeline.end for fid in fids]


def unbound_definers(pipeline: InlinePipeline, models: set[str], definers: dict[str, int]) -> int:
    """How many project classes define the method an inline range calls its model with (0 for a loaded
    model, `session.run(...)`, or a model called directly)."""
    receiver, dot, method = pipeline.model.rpartition(".")
    return definers.get(method, 0) if dot and receiver not in models else 0


def bind_selected(sites: CallSites, project: Project, fn: FunctionInfo, loop: ast.AST, pipeline: InlinePipeline,
                   models: set[str], definers: dict[str, int]) -> FunctionInfo | None:
    """`model.step(obs, goal)` in a driver loop on a receiver of unknown class that several project classes
    could be: when the project's configs select exactly one of those classes (config_choice.selected_among),
    record the call as a loop call of that class's method (it is a candidate, with where it is selected)
    and return that method; otherwise None."""
    if unbound_definers(pipeline, models, definers) < 2:
        return None
    receiver, _, method = pipeline.model.rpartition(".")
    fns = [sites.functions[fid] for fid in sites.definers.get(method, []) if fid in sites.functions]
    models_only = [f for f in fns if not environment_or_optimizer(f, project)     # `env.step` runs no model
                   or f.id in sites.calls_module or sites.model_via(f.id)]
    narrowed, where = selected_among(models_only, project) if len(models_only) > 1 else (
        models_only, where_selected(models_only[0], project) if models_only else None)
    if where is None:
        return None
    line = next((node.lineno for node in ast.walk(loop) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Attribute) and node.func.attr == method
                 and ast.unparse(node.func.value).rpartition(".")[2] == receiver), pipeline.start)
    target = narrowed[0]
    sites.in_loops.setdefault(target.id, []).append((fn, line))
    sites.callers.setdefault(target.id, set()).add(fn.id)
    sites.selected_at.setdefault(target.id, (len(fns), where))
    return target
