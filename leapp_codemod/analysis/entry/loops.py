"""A pipeline written inline in a driver loop: which statements build a model's input and use its output.

In a loop body, a call of a model that is not a project function (a TorchScript or ONNX model, a
policy passed in as a parameter, one returned by a runner) marks the step. Within the innermost
block holding that call, the statements it depends on (backward slice over local names) and the
statements that use its result (forward slice, ending before the statement that sends the action out)
give the range: whole statements, 1-based inclusive lines (where it starts and ends: bounds.py).

    obs[:3] = omega * scale                    # start: builds the model input
    action = policy(torch.from_numpy(obs))     # the model call
    target = action * action_scale + default   # end: the last statement computing what is sent
    d.ctrl[:] = target                         # the send: not part of the pipeline
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from leapp_codemod.analysis.entry.bounds import (
    NOT_STEPPED,
    computes_send,
    final_name,
    packing_tail,
    read_after_send,
    reads_result,
    reads_world,
    self_writes,
    sends,
)
from leapp_codemod.analysis.model.world_steps import world_step_call
from leapp_codemod.analysis.entry.slice_keys import ClassView, binding_targets, binds, field_reads, field_writes
from leapp_codemod.knowledge.vocab import CLASS_LOADERS, LOOP_MUTATORS, MODEL_LOADERS  # noqa: F401 (MODEL_LOADERS re-exported)
from leapp_codemod.knowledge.actuation import SENDER_WORDS

# A callee whose name contains one of these words is a model: `policy(obs)`, `self.actor(x)`, `loaded_net(x)`.
MODEL_WORDS = frozenset({"policy", "model", "actor", "net", "network", "agent", "pi", "controller", "session"})
# Methods that run a model held in a variable named like one: `model.predict(obs)`, `session.run(None, feeds)`.
MODEL_METHODS = frozenset({"predict", "act", "forward", "run", "infer", "inference", "predict_action",
                           "select_action", "compute_action", "compute_actions", "get_action", "get_actions",
                           "act_inference", "policy_step", "run_policy", "sample_actions"})
# ... and on a receiver named like a model only (`self.model.step(obs)`; `env.step(a)` steps a simulator).
MODEL_STEP = frozenset({"step"})
# Calls the forward slice does not take in: actuation, stepping a simulator, rendering, logging (only a send
# ends it: bounds.sends; a statement that only reports is skipped).
SINK_CALLS = frozenset({"step", "mj_step", "publish", "Write", "write", "send", "sendall", "sendto", "print",
                        "log", "info", "debug", "warning", "add_scalar", "render", "sync", "sleep", "imshow",
                        "set_data", "append_log"})


@dataclass(frozen=True)
class InlinePipeline:
    loop_line: int
    model: str          # how the model is called, e.g. "policy" or "session.run"
    start: int
    end: int
    statements: int     # statements in the slice (of the model call's own block: this ranks the range)
    carried: tuple[str, ...] = ()   # inputs the loop updates after the send, read by the next iteration's call
    updated_at: int = 0             # the last line of that update (the range runs through it)
    span: int = 0       # statements in the range offered (after widening a gated call to its enclosing block)

    @property
    def size(self) -> int:
        """Statements of the range as offered: what a network called in it is a part of."""
        return max(self.statements, self.span)


# A name with one of these words acts on a model or a simulator, it is not one: `create_actor`, `load_model`,
# `evaluate_policy(model, env)` (a harness that runs episodes with the model it is handed, not the model),
# `gym.refresh_actor_root_state_tensor(sim)` (a simulator's upkeep of its actors' state).
VERB_WORDS = frozenset({"create", "find", "get", "set", "load", "build", "make", "add", "init", "save", "reset",
                        "update", "compute", "register", "spawn", "remove", "print", "log", "apply", "to",
                        "evaluate", "train", "test", "validate", "benchmark", "visualize", "plot", "export",
                        "refresh", "fetch", "acquire", "prepare", "render", "draw", "destroy", "clear", "sync"})


def is_model_name(name: str) -> bool:
    """`policy`, `actor_net`, `nets`, `models` (a container of them); not `load_model`, `create_actor`, nor a
    sender named for what it carries (`controller_pub`, `policy_publisher`)."""
    words = name.lower().split("_")
    return (any(word in MODEL_WORDS or (word.endswith("s") and word[:-1] in MODEL_WORDS) for word in words)
            and not any(word in VERB_WORDS for word in words) and words[-1] not in SENDER_WORDS)


def loaded_models(stmts: list[ast.stmt]) -> set[str]:
    """Names assigned from a model loader anywhere in `stmts`."""
    out = set()
    for node in (n for stmt in stmts for n in ast.walk(stmt)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            callee = ast.unparse(node.value.func)
            if any(callee.endswith(loader) for loader in MODEL_LOADERS) or class_loader(node.value.func):
                out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return out


def class_loader(func: ast.expr) -> bool:
    """`PPO.load`, `sb3.SAC.load`, `ALGOS[name].load`: a loader called on a class or a table of classes."""
    if not isinstance(func, ast.Attribute) or func.attr not in CLASS_LOADERS:
        return False
    holder = func.value.value if isinstance(func.value, ast.Subscript) else func.value
    name = final_name(holder)
    return bool(name) and name[:1].isupper()


def model_call(call: ast.Call, models: set[str]) -> str | None:
    """How `call` names the model it runs, or None when it is not a model call."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id if func.id in models or is_model_name(func.id) else None
    if isinstance(func, ast.Subscript):   # `nets["policy_net"](obs)`, `self.models[name](obs)`
        container, key = final_name(func.value), func.slice
        named = isinstance(key, ast.Constant) and isinstance(key.value, str) and is_model_name(key.value)
        return ast.unparse(func) if named or (container and is_model_name(container)) else None
    if not isinstance(func, ast.Attribute):
        return None
    if ast.unparse(func) in models:     # `self.helm(x)`: an attribute of self known to hold a model
        return ast.unparse(func)
    receiver = final_name(func.value)
    if func.attr in MODEL_METHODS | MODEL_STEP and receiver and (receiver in models or is_model_name(receiver)):
        return f"{receiver}.{func.attr}"
    if ((isinstance(func.value, ast.Name) and func.value.id in models or ast.unparse(func.value) in models)
            and runs_the_model(func.attr)):
        return f"{receiver}.{func.attr}"   # `brain.decide(x)` on a name known to hold a model
    if func.attr not in MODEL_METHODS and is_model_name(func.attr) and not func.attr[:1].isupper():
        return ast.unparse(func)
    return None


# Methods every model has that do not run it: modes, devices, parameters, state.
# ... and a container's accessors: `torch.load` may give a checkpoint dict (`ckpt.get("policy")`).
MODEL_UPKEEP = frozenset({"eval", "train", "to", "cpu", "cuda", "half", "float", "double", "parameters",
                          "named_parameters", "buffers", "modules", "children", "state_dict", "load_state_dict",
                          "requires_grad_", "zero_grad", "share_memory", "get_inputs", "get_outputs", "get", "keys",
                          "values", "items", "pop", "setdefault", "copy"})


def runs_the_model(method: str) -> bool:
    """Does calling `method` on a known model run it (`decide`, `forward_actor`, `sample_actions`), rather than
    set it up (`eval`, `to`, `load_state_dict`, `reset_memory`, `get_inputs`)?"""
    return (not method.startswith("_") and method not in MODEL_UPKEEP
            and not set(method.lower().split("_")) & VERB_WORDS - {"compute", "get"})


def _root_name(expr: ast.expr) -> str | None:
    while isinstance(expr, (ast.Subscript, ast.Attribute, ast.Starred)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def defined_names(stmt: ast.stmt) -> set[str]:
    """Local names a statement (re)binds or mutates."""
    out: set[str] = set()
    for node in ast.walk(stmt):
        targets = binding_targets(node)
        if not targets and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in LOOP_MUTATORS:
            targets = [node.func.value]
        out.update(name for target in targets if (name := _root_name(target)))
    return out


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def used_names(stmt: ast.stmt) -> set[str]:
    """Names the statement reads; not those a comprehension in it binds and reads itself
    (`[agent.act(s) for agent in agents]` reads `agents`, not an `agent` of the loop)."""
    own: set[int] = set()
    for comp in (n for n in ast.walk(stmt) if isinstance(n, _COMPREHENSIONS)):
        targets = {t.id for gen in comp.generators for t in ast.walk(gen.target) if isinstance(t, ast.Name)}
        inside = [comp.elt] if not isinstance(comp, ast.DictComp) else [comp.key, comp.value]
        inside += [cond for gen in comp.generators for cond in gen.ifs]
        inside += [gen.iter for gen in comp.generators[1:]]
        own |= {id(n) for part in inside for n in ast.walk(part) if isinstance(n, ast.Name) and n.id in targets}
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and id(n) not in own}


def _is_sink(stmt: ast.stmt) -> bool:
    return any(isinstance(n, ast.Call) and final_name(n.func) in SINK_CALLS for n in ast.walk(stmt))


Parents = tuple[tuple[list[ast.stmt], int], ...]


def _reports(block: list[ast.stmt], at: int, after: set[str]) -> bool:
    """Does block[at] only report (print, log, render, write a log file, wait): a simple statement with such a
    call, or a block with one that binds nothing the rest of the block reads (`if i % 100 == 0:` writing a CSV
    log; not a fallback branch that prints and also picks the action). `after`: names read after the block in
    the blocks enclosing it."""
    stmt = block[at]
    if not _is_sink(stmt):
        return False
    if not any(isinstance(getattr(stmt, name, None), list) for name in ("body", "orelse", "finalbody")):
        return True
    later = set().union(after, *(used_names(s) for s in block[at + 1:]))
    return not (defined_names(stmt) - {"self"}) & later


def _blocks(stmts: list[ast.stmt], parents: Parents = ()):
    """(block, parents) for `stmts` and every statement list nested in it, loops and definitions excluded;
    `parents`: (enclosing block, index of the statement holding the block), innermost first."""
    yield stmts, parents
    for at, stmt in enumerate(stmts):
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        inside = ((stmts, at), *parents)
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _blocks(inner, inside)
        for handler in getattr(stmt, "handlers", ()):
            yield from _blocks(handler.body, inside)
        for case in getattr(stmt, "cases", ()):
            yield from _blocks(case.body, inside)


_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)


def _never(call: ast.Call) -> bool:
    return False


def _first_model_call(stmt: ast.stmt, models: set[str], is_project_call, wrapper_call=_never) -> str | None:
    """How the first model call of `stmt` names its model: a call of a model that is no project function, or
    a call for which `wrapper_call` holds (a project function that only wraps the model call)."""
    if isinstance(stmt, (ast.With, ast.AsyncWith)):   # `with torch.no_grad(): action = policy(obs)`: one statement
        return next(filter(None, (_first_model_call(inner, models, is_project_call, wrapper_call)
                                  for inner in stmt.body)), None)
    if isinstance(stmt, (ast.For, ast.AsyncFor)) and inner_model_loop(stmt):
        # `for k in timesteps: eps = net(x, k); x = sched.step(eps, k, x)`: a denoising or sampling loop runs the
        # model several times on one observation; it is the model call of the loop around it
        return next(filter(None, (_first_model_call(inner, models, is_project_call, wrapper_call)
                                  for inner in stmt.body)), None)
    if not isinstance(stmt, _SIMPLE) or _unused_world_step(stmt, models) or _discarded(stmt):
        return None
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and wrapper_call(node):
            return ast.unparse(node.func)
        if isinstance(node, ast.Call) and not is_project_call(node):
            label = model_call(node, models)
            if label:
                return label
    return None


def _discarded(stmt: ast.stmt) -> bool:
    """`_ = self.policy(dummy)`: a result bound only to throwaway names (a warm-up or timing loop), so nothing
    the loop goes on with comes from this call."""
    if not isinstance(stmt, ast.Assign):
        return False
    names = [n for target in stmt.targets for n in ast.walk(target) if isinstance(n, ast.Name)]
    return bool(names) and all(set(n.id) == {"_"} for n in names) \
        and all(isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Starred, ast.expr_context))
                for target in stmt.targets for n in ast.walk(target))


def _unused_world_step(stmt: ast.stmt, models: set[str]) -> bool:
    """`agent.step(a)` as a statement of its own, on a receiver not known to hold a model: an action handed to
    the world (a robot agent, a simulator); a model's step returns what the loop goes on with."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and world_step_call(call) \
        and ast.unparse(call.func.value) not in models


def inner_model_loop(loop: ast.For | ast.AsyncFor) -> bool:
    """May a `for` loop nested in a control loop be a model's own iteration (denoising, sampling, refining the
    action for one observation, over a count or a schedule)? It sends nothing out, steps no environment and never
    leaves early on a condition of the world (`break` on a message). A `while` loop runs until something changes
    (the clock, the world): a control loop, never one. Which statements of it call the model,
    `_first_model_call` decides."""
    body = ast.Module(body=loop.body, type_ignores=[])
    return not (any(sends(stmt) for stmt in loop.body) or steps_or_resets(body) or loop.orelse
                or any(isinstance(n, (ast.Break, ast.Return, ast.Yield, ast.Await)) for n in ast.walk(body)))


def steps_or_resets(node: ast.AST) -> bool:
    """Does `node` step or reset something other than a model, optimizer or scheduler (`env.step(a)`,
    `envs[i].reset()`)?"""
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        func = call.func
        # `env.step(a)`, `envs.reset()`, a vectorised environment's `step_async(a)` / `step_wait()`
        if isinstance(func, ast.Attribute) and func.attr in ("step", "reset", "step_async", "step_wait"):
            name = final_name(func.value) or final_name(getattr(func.value, "value", func.value)) or ""
            words = set(name.lower().split("_"))
            if name and not words & NOT_STEPPED:
                return True
    return False


@dataclass(frozen=True)
class _Cut:
    kept: tuple[int, ...]      # indices of the slice's statements in its block, ascending
    index: int                 # the model call's statement (or the block holding it)
    stop: ast.stmt | None      # the statement that sends the result out, when the slice reaches one
    count: int                 # statements in the slice (stepping or resetting an environment not counted)
    exposed: frozenset[str] = frozenset()   # keys the slice reads before it binds them (slice_keys.py)
    carried: tuple[str, ...] = ()           # inputs the loop updates after the send for the next iteration
    updated_at: int = -1                    # the last statement of that update (index in the block)

    @property
    def first(self) -> int:
        return self.kept[0]

    @property
    def last(self) -> int:
        return self.kept[-1]


def _slice(block: list[ast.stmt], index: int, after: frozenset[str] | set[str] = frozenset(),
           view: ClassView | None = None, needed: set[str] | None = None) -> _Cut:
    """The slice around block[index] (see bounds.py): backward over the statements that build its input (locals
    and fields of self, through the class's own methods one call away: slice_keys.py), not those taking the
    observation from a send or reset; forward over the statements that use its output, up to the statement
    that sends it out (reporting statements skipped), and past it over an update of the model's next input
    from what the send returned or a fresh read (bounds.read_after_send). `after`: names read after the block
    in the blocks enclosing it; `needed`: the keys block[index] is sliced for (default: all it reads)."""
    view = view or ClassView()
    needed = set(needed) if needed is not None else _keys_used(block[index], view)
    kept = [index]
    for j in range(index - 1, -1, -1):
        if binds(_keys_defined(block[j], view), needed) and not reads_world(block[j]) and not sends(block[j]):
            needed |= _keys_used(block[j], view)
            kept.insert(0, j)
    produced = defined_names(block[index])
    self_paths = self_writes(block[index])
    stop, carried, updated = None, (), -1
    for j in range(index + 1, len(block)):
        if not used_names(block[j]) & produced:
            continue
        if sends(block[j]) and reads_result(block[j], produced, self_paths):
            stop = block[j]
            if computes_send(stop):
                kept.append(j)
            else:
                chain, names = read_after_send(block, kept, j, produced, defined_names, used_names)
                kept.extend(chain)
                carried, updated = tuple(sorted(names)), (chain[-1] if chain else -1)
            break
        if not _reports(block, j, set(after)):
            produced |= defined_names(block[j])
            self_paths |= self_writes(block[j])
            kept.append(j)
    kept = packing_tail(block, kept, kept.index(index), stop, defined_names, used_names)
    count = sum(1 for j in kept if j == index or not steps_or_resets(block[j]))
    exposed = _exposed([block[j] for j in kept if j <= index], view)
    return _Cut(tuple(kept), index, stop, count, exposed, carried if updated in kept else (), updated)


def _keys_defined(stmt: ast.stmt, view: ClassView) -> set[str]:
    return (defined_names(stmt) - {"self"}) | field_writes(stmt, view) | _fed_object(stmt)


def _fed_object(stmt: ast.stmt) -> set[str]:
    """`history.update_history(obs)` as a statement of its own: a local object handed values for its effect keeps
    them (the `history.get_stacked_obs()` after it reads what it was fed)."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
            and (call.args or call.keywords) and call.func.value.id != "self":
        return {call.func.value.id}
    return set()


def _keys_used(stmt: ast.stmt, view: ClassView) -> set[str]:
    return (used_names(stmt) - {"self"}) | field_reads(stmt, view)


def _exposed(stmts: list[ast.stmt], view: ClassView) -> frozenset[str]:
    """Keys the statements read before they bind them (in order; a statement's own reads come first)."""
    bound: set[str] = set()
    out: set[str] = set()
    for stmt in stmts:
        out |= _keys_used(stmt, view) - bound
        bound |= _keys_defined(stmt, view)
    return frozenset(out)


def _bounds(block: list[ast.stmt], index: int, parents: Parents,
            view: ClassView | None = None) -> tuple[list[ast.stmt], _Cut, int]:
    """(block, slice, count) of the range around block[index], grown from the model call's block (an `if`, `try`
    or `with` body) to the block enclosing it when

    * the call is gated (`if t % k == 0:`) with no statement building its input there and its result leaves
      the block unsent (`action = chunk[t % k]` after it): the statement holding it is the anchor. The count
      stays that of the model call's own block: what surrounds a gated call is as often host-side selection
      among stored actions as pipeline work, so this widening changes the bounds offered, never the rank;
    * the enclosing block builds what the call's `try` or `with` block reads before it binds it
      (`obs = read(msg)` before a `try:` holding `action = policy(obs)`): the range starts at the first
      statement building it there, when those statements compute on what they read, not only read it
      (`obs = env.get_obs()` alone before a `with` converting it is the range's input); an `if` block keeps
      its range: the branch decides when the policy runs, a decimation gate's block is the step;
    * the call's block sends nothing and the enclosing block, after sending, updates the values the call's
      block reads for the next iteration (a recurrent latent, an observation history): the range covers the
      policy work and that update.

    The range is whole statements of one block: what the holding statement holds comes with it."""
    view = view or ClassView()
    cut = _slice(block, index, _read_after(parents), view)
    count = cut.count
    while parents:
        outer, at = parents[0]
        produced = set().union(*(defined_names(block[j]) for j in cut.kept))
        used_later = any(used_names(stmt) & produced for enclosing, held in parents for stmt in enclosing[held + 1:])
        if cut.first == cut.index and cut.stop is None and used_later:
            block, parents = outer, parents[1:]
            cut = _slice(block, at, _read_after(parents), view)
            continue
        wider = _slice(outer, at, _read_after(parents[1:]), view, needed=set(cut.exposed))
        # only out of a block that always runs with its surroundings (`try`, `with`) or an `if` on something other
        # than a tick count: a decimation gate (`if t % k == 0:`) decides when the policy runs, its block is the
        # step and what the loop reads outside it at every tick enters the range as input; a mode or a test on
        # the data (`if robot.mode == "walk":`) leaves the observation the loop computes before it to the step
        fed = (not isinstance(outer[at], ast.If) or _fallback_branches(outer[at])
               or not _decimation_gate(outer[at].test)) and _works(outer, [j for j in wider.kept if j < at], view)
        if not fed and not (cut.stop is None and wider.carried):
            break
        count += wider.count - 1
        block, parents, cut = outer, parents[1:], wider
    return block, cut, count


def _decimation_gate(test: ast.expr) -> bool:
    """`if t % decimation == 0:`, `if not step % 4:`: a test on a tick count, which decides when the policy runs."""
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(test))


def _fallback_branches(branch: ast.If) -> bool:
    """`if warming_up: action = zeros else: action = policy(obs)`: both arms bind the same value, one of them as a
    stand-in; the `if` picks what the step returns, not when the step runs, so the step is the block around it."""
    if not branch.orelse or isinstance(branch.orelse[0], ast.If) and len(branch.orelse) == 1:
        return False
    return bool(set().union(*map(defined_names, branch.body)) & set().union(*map(defined_names, branch.orelse)))


def _works(block: list[ast.stmt], kept: list[int], view: ClassView) -> bool:
    """Do the statements `kept` of `block` compute on what they read (one reads what another binds:
    `g = imu.linear_acceleration` then `obs[3:6] = g * 0.1`), rather than only read it (`obs = env.get_obs()`:
    the range's input, converted inside the block around the call)?"""
    bound: set[str] = set()
    for j in kept:
        if binds(bound, _keys_used(block[j], view)):
            return True
        bound |= _keys_defined(block[j], view)
    return False


def _read_after(parents: Parents) -> set[str]:
    """Names read after a block by the statements that follow it in the blocks enclosing it."""
    return set().union(set(), *(used_names(stmt) for enclosing, held in parents for stmt in enclosing[held + 1:]))


def _sends_after_call(block: list[ast.stmt], models: set[str], is_project_call, wrapper_call=_never) -> bool:
    """Does a statement after the block's first model call send the action out?"""
    for index, stmt in enumerate(block):
        if _first_model_call(stmt, models, is_project_call, wrapper_call) is not None:
            return any(sends(later) for later in block[index + 1:])
    return False


def _complete(block: list[ast.stmt], models: set[str], is_project_call, wrapper_call=_never) -> bool:
    """Does the block hold a model call with statements building its input before and using its output after?"""
    for index, stmt in enumerate(block):
        if _first_model_call(stmt, models, is_project_call, wrapper_call) is not None:
            cut = _slice(block, index)
            return cut.first < index < cut.last
    return False


def inline_pipelines(loop: ast.For | ast.AsyncFor | ast.While, models: set[str], is_project_call,
                     wrapper_call=_never, view: ClassView | None = None) -> list[InlinePipeline]:
    """The model calls written inline in `loop`'s body (not in loops nested in it), one per block.
    `wrapper_call(call)`: is the call one of a project function that only wraps a model call (see
    composers.is_model_wrapper)? Such a call marks the step like the model call itself. `view`: the loop's
    class (slice_keys.class_view): the fields its own methods write build the model's input too."""
    found = []
    for block, parents in _blocks(loop.body):
        for index, stmt in enumerate(block):
            label = _first_model_call(stmt, models, is_project_call, wrapper_call)
            if label is None:
                continue
            if isinstance(stmt, (ast.With, ast.AsyncWith)) and (
                    _complete(stmt.body, models, is_project_call, wrapper_call)
                    or _sends_after_call(stmt.body, models, is_project_call, wrapper_call)):
                # the `with` block builds the input and uses the output itself, or it also sends the action
                # (`with torch.no_grad(): a = agent.act(s); s2, r, *_ = env.step(a); log(...)`): its own range
                # stands, cut inside it, never the whole block with the send and what follows it
                break
            outer, cut, count = _bounds(block, index, parents, view)
            updated = outer[cut.updated_at].end_lineno or 0 if cut.carried else 0
            found.append(InlinePipeline(loop.lineno, label, outer[cut.first].lineno,
                                        outer[cut.last].end_lineno or outer[cut.last].lineno, count,
                                        cut.carried, updated, span=cut.count))
            break
    return found


# Words of a `for` loop's iterable or target that say it walks a recorded dataset: `for batch in loader`,
# `for i in range(0, n, batch_size)`, `for sample in tqdm(dataset)`.
DATASET_WORDS = frozenset({"loader", "dataloader", "dataset", "datasets", "batch", "batches", "minibatch",
                           "minibatches", "samples", "demos", "demonstrations", "trajectories", "split"})
# Sink calls that only report (the rest of SINK_CALLS send something out or step a simulator).
REPORT_CALLS = frozenset({"print", "log", "info", "debug", "warning", "add_scalar", "render", "imshow", "set_data",
                          "append_log"})


def offline_loop(loop: ast.AST) -> bool:
    """A `for` loop over a dataset or its batches (see DATASET_WORDS) that steps no environment and sends
    nothing out (no publish, send, write or simulator step in its body): an offline evaluation or analysis
    loop, not a control loop. Its model calls are measured against recorded data, never deployed."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    names = " ".join(_identifiers(loop.iter) + _identifiers(loop.target))
    if not set(re.split(r"[^a-z0-9]+", names.lower())) & DATASET_WORDS:
        return False
    body = ast.Module(body=loop.body, type_ignores=[])
    return not steps_or_resets(body) and not _restores(body) and not any(
        isinstance(n, ast.Call) and final_name(n.func) in SINK_CALLS - REPORT_CALLS for n in ast.walk(body))


def _restores(node: ast.AST) -> bool:
    """Does `node` reset or step something other than a model, optimizer or scheduler through a method named
    for it (`task.reset_to_demo(demo)`, `sim.step_physics()`)? A loop over recorded demos that restores a
    simulator to each one replays them live: it is an evaluation, not a pass over a dataset."""
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
        first = call.func.attr.split("_")[0]
        receiver = final_name(call.func.value) or ""
        if first in ("reset", "step") and call.func.attr not in ("reset", "step") and receiver and not (
                set(receiver.lower().split("_")) & NOT_STEPPED):
            return True
    return False


def _identifiers(expr: ast.AST) -> list[str]:
    return [n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(expr) if isinstance(n, (ast.Name, ast.Attribute))]
