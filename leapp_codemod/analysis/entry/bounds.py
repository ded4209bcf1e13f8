"""Where an inline range starts and ends: the part of a control loop a user exports.

The range runs from the first statement that works on this iteration's observation to the last statement
computing what the loop sends out:

* it ends with the last statement computing what is sent, before the statement that sends the action
  (`env.step(a)`, `data.ctrl[:] = u`, `pub.publish(msg)`, `robot.set_joint_command(q)`, a block holding one);
  a write that computes what it sends (`d.ctrl[:] = kp * (target - q) - kd * dq`) is that last statement and
  ends the range inside it. What follows the send (drawing, logging, frame recording, bookkeeping for the
  next iteration) is never part of the range, and neither is a buffer allocated only to carry the result into
  the send (`ctrl = np.zeros(nu); ctrl[ids] = target`);
* it starts where this iteration's observation is read (`obs = env.get_obs()`, `q = d.qpos[7:]`, a
  subscriber's copy, a serial or socket read, a helper computing the observation from the simulator state),
  after a statement that takes it from a send or a reset (`obs, r, done, info = env.step(a)` sends the
  previous action): the first statement of the backward slice of the model call's inputs, over locals and
  fields of self, through the class's own methods one call away (slice_keys.py) and out of the `try`, `with`
  or `if` block holding the call when the block around it builds the input (loops._bounds);
* when the loop updates the model's next input after the send (a recurrent latent from the step's result, an
  observation read after the send), the range runs from the model call through that update and names the
  values that enter from the previous iteration (read_after_send);
* a model call gated by a condition (`if t % k == 0: chunk = policy(obs)`) whose block does no input work and
  whose result is used after the block (`action = chunk[t % k]`) is widened to the enclosing block: the
  statements there build its input and turn its result into the action.

    obs, r, done, info = env.step(action)    # the previous send: the range's input
    x = normalize(obs)                       # start
    if t % k == 0:
        chunk = policy(x)
    action = chunk[t % k] * scale            # end: the last statement computing what is sent
    env.step(action)                         # the send: not part of the range
"""
from __future__ import annotations

import ast

from leapp_codemod.knowledge.actuation import (
    ACTION_WORDS,
    ALLOCATORS,
    NOT_STEPPED,  # noqa: F401 (re-exported: loops)
    SEND_CALLS,
    SEND_VERBS,
    words,
)
from leapp_codemod.knowledge.vocab import LOOP_MUTATORS

# Receivers whose `step()` is no simulator's or robot's: optimizers, schedulers, the model itself.
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def final_name(expr: ast.expr) -> str | None:
    """The last name of `a.b.c` or `c`; None for other expressions."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return None


def walk_here(node: ast.AST):
    """The nodes of `node`, not those of functions or classes defined in it (they do not run here)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(c for c in ast.iter_child_nodes(current) if not isinstance(c, _FUNCTIONS))


def _world_receiver(func: ast.Attribute) -> bool:
    """Is the receiver of `func` no model, optimizer or scheduler (`env`, `envs[i]`; not `self.model`)?"""
    receiver = final_name(func.value) or final_name(getattr(func.value, "value", func.value)) or ""
    return bool(receiver) and not set(receiver.lower().split("_")) & NOT_STEPPED


def _stepped(func: ast.expr) -> bool:
    """`env.step`, `mujoco.mj_step`; not `self.model.step` or `optimizer.step`."""
    if not isinstance(func, ast.Attribute) or func.attr not in ("step", "step_async"):
        return True
    return _world_receiver(func)


def send_call(call: ast.Call, discarded: bool) -> bool:
    """Does the call send an action out or advance the world with it? `discarded`: its result is unused."""
    name = final_name(call.func)
    if not name:
        return False
    if name in SEND_CALLS:
        return _stepped(call.func)
    if not discarded or not isinstance(call.func, ast.Attribute) or name in LOOP_MUTATORS:
        return False
    parts = words(name)
    return bool(parts) and parts[0] in SEND_VERBS and bool(set(parts[1:]) & ACTION_WORDS)


def actuation_store(target: ast.expr) -> str | None:
    """The object an assignment target writes into when it is another object's field (`d.ctrl[:]`, `data.ctrl`,
    `self.cmd.motor_cmd[i].q`, `msg.data`), not a local buffer (`obs[3:6]`) or the loop's own state
    (`self.last_action`, `self.hist[:, 0]`)."""
    while isinstance(target, ast.Subscript):
        target = target.value
    if not isinstance(target, ast.Attribute):
        return None
    if isinstance(target.value, ast.Name) and target.value.id == "self":
        return None
    return ast.unparse(target.value)


def _store_targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return [e for t in node.targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    return []


def sends(stmt: ast.stmt) -> bool:
    """Does the statement (or a block in it) send an action out: a send call, or a write into another object's
    field (the simulator's control array, a command message)?"""
    for node in walk_here(stmt):
        if isinstance(node, ast.Call) and send_call(node, discarded=False):
            return True
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and send_call(node.value, True):
            return True
        if any(actuation_store(t) for t in _store_targets(node)):
            return True
    return False


def computes_send(stmt: ast.stmt) -> bool:
    """Is the sending statement also the last one computing what is sent: a write into another object's field of
    a value it computes (`d.ctrl[:] = kp * (target - q) - kd * dq`)? It ends the range, inside it. A write that
    hands a value over (`d.ctrl[:] = ctrl`) and a send call (`env.step(a)`, `pub.publish(msg)`) stay outside."""
    if not isinstance(stmt, (ast.Assign, ast.AugAssign)) or not all(actuation_store(t) for t in _store_targets(stmt)):
        return False
    value = stmt.value
    while isinstance(value, (ast.Subscript, ast.Attribute)):
        value = value.value
    return not isinstance(value, (ast.Name, ast.Constant)) and not any(
        isinstance(n, ast.Call) and send_call(n, discarded=False) for n in walk_here(stmt))


def reads_world(stmt: ast.stmt) -> bool:
    """Does the statement take the observation from a send or a reset (`obs, r, done, info = env.step(a)`,
    `obs = env.reset()`)? Such a statement is the range's input boundary: it sends the previous action. A read
    that sends nothing (`obs = env.get_obs()`, `q = d.qpos[7:]`, a subscriber's copy, a serial or socket read)
    starts the range."""
    for node in walk_here(stmt):
        if not isinstance(node, ast.Call):
            continue
        if send_call(node, discarded=False):
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("reset", "step_wait") and _world_receiver(
                node.func):
            return True
    return False


def packing_tail(block: list[ast.stmt], kept: list[int], anchor: int, stop: ast.stmt | None, defined,
                 used) -> list[int]:
    """`kept` (slice indices, ascending; kept[anchor] is the model call) without the trailing statements that only
    lay the result into a buffer allocated for the send that follows (`ctrl = np.zeros(nu); ctrl[ids] = target`
    before `d.ctrl[:] = ctrl`). `defined`, `used`: the names a statement binds and reads."""
    if stop is None:
        return kept
    sent, trimmed = used(stop), len(kept)
    for position in range(len(kept) - 1, anchor, -1):
        at = kept[position]
        names = defined(block[at])
        if len(names) != 1 or not names <= sent:
            break
        allocated = _allocates(block[at]) or _fills(block[at]) and any(
            _allocates(block[i]) and defined(block[i]) == names for i in range(kept[anchor] + 1, at))
        if not allocated:
            break
        trimmed = position
    buffers = {n for at in kept[trimmed:] for n in defined(block[at])}
    if any(buffers & used(block[at]) for at in kept[:trimmed]):
        return kept
    return kept[:trimmed]


def _allocates(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call) and final_name(stmt.value.func) in ALLOCATORS)


def _fills(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)
            and isinstance(stmt.targets[0].value, ast.Name))


def self_writes(stmt: ast.stmt) -> set[str]:
    """`self.x` paths the statement writes (`self.last = a`, `self.buf[:, 0] = a`)."""
    out = set()
    for node in walk_here(stmt):
        for target in _store_targets(node):
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                out.add(ast.unparse(target))
    return out


def reads_result(stmt: ast.stmt, produced: set[str], self_paths: set[str]) -> bool:
    """Does the statement read what the range computed: a produced local, or a `self.x` the range wrote (not any
    read of `self` because the range wrote one of its fields)?"""
    for node in walk_here(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id != "self" and node.id in produced:
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and ast.unparse(node) in self_paths:
            return True
    return False


# Calls that look a value up or copy it (`infos.get("shared_states")`, `obs.copy()`): no work on what a send
# returned, like a rename.
ACCESSORS = frozenset({"get", "pop", "copy", "keys", "values", "items", "setdefault", "clone", "detach"})


def read_after_send(block: list[ast.stmt], kept: list[int], sent_at: int, produced: set[str], defined,
                    used) -> tuple[list[int], set[str]]:
    """In a loop that updates the model's next input after it sends, the statements after the send that do it,
    and the names they update that the range reads (they enter the next iteration's call from this one):

    * a fresh read after the send (`robot.set_action(cmd)`, then `obs = robot.get_observation()` and the
      history the model reads next): the observation code of such a loop is at its end;
    * work on what the send returned (`next_obs, r, done, info = env.step(a)`, then `emb = encoder(next_obs)`
      and `h, z = rssm(emb, a, h, z)`: the latent the next policy call reads), when some statement of it
      computes (a call that neither sends nor resets); a rename (`obs = next_obs`) or a look-up
      (`shared = infos.get("shared")`, ACCESSORS) is no such work.

    The range keeps them. ([], set()) when what follows the send only derives from the range's results
    (`last = np.clip(action, -1, 1)`: state carried to the next iteration, not an observation), and when every
    statement after the send that binds an input the range reads takes it from the world (`if done: log(...);
    replay_moves(env); obs = env.reset()`): the scripted and logging work beside such a reset is no observation
    code, whatever it calls."""
    stmts = [block[j] for j in kept]
    reads = set().union(*(used(s) for s in stmts)) - {"self"}
    post = range(sent_at + 1, len(block))
    want = reads & set().union(set(), *(defined(block[j]) for j in post))
    carried = set(want)
    if carried and all(reads_world(b) for j in post for b in _binders(block[j], carried, defined)):
        return [], set()    # `if done: ...; obs = env.reset()`: the next input is the world's, whatever runs beside it
    chain = []
    for j in reversed(post):
        if defined(block[j]) & want:
            chain.append(j)
            want |= used(block[j]) - {"self"}
    # a reset (`if done: obs = env.reset()`) takes the observation from a send or reset: no observation code
    working = [j for j in chain if not reads_world(block[j]) and any(
        isinstance(n, ast.Call) and final_name(n.func) not in ACCESSORS for n in walk_here(block[j]))]
    fresh = any(not (used(block[j]) - {"self"}) & produced for j in working)
    returned = defined(block[sent_at]) if reads_world(block[sent_at]) else set()
    worked = bool(working)
    if not (fresh or want & returned and worked):
        return [], set()
    bound: set[str] = set()
    exposed: set[str] = set()
    for stmt in stmts:      # what the range reads before it binds it: the values that enter from the update
        exposed |= used(stmt) - bound
        bound |= defined(stmt)
    return sorted(chain), (carried & exposed) or carried


def _binders(stmt: ast.stmt, names: set[str], defined) -> list[ast.stmt]:
    """The simple statements in `stmt` (itself, or inside its blocks: an episode-end `if`) that bind one of
    `names`. A branch that resets the world beside other work binds the input only through the reset."""
    if not defined(stmt) & names:
        return []
    inner = [s for field in ("body", "orelse", "finalbody") for s in getattr(stmt, field, None) or ()
             if isinstance(s, ast.stmt)] + [s for handler in getattr(stmt, "handlers", None) or () for s in handler.body]
    if not inner or isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt]
    found = [b for s in inner for b in _binders(s, names, defined)]
    return found or [stmt]    # bound by the compound statement itself (`for obs in ...`, `with ... as obs`)
