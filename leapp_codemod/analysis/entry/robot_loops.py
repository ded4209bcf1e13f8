"""Which candidates run on the robot: what a step's loop does with the action it computes.

A repository that trains in simulation often holds two loops that feed the same policy: a play or evaluation
script whose loop steps a simulated environment or a physics library (`env.step(a)`, `mujoco.mj_step(m, d)`),
and a deploy script whose loop hands the action to the hardware (an SDK or serial write, a publish, a command
message, `hand.write_targets(q)`), paced by the wall clock. The deploy is what a user exports: the play script
checks the policy, the deploy runs it. Folder and file names say little (`play.py` next to `deploy/`, a
`sim2real` folder holding a sim check); the send does.

A loop *runs on the robot* when a statement of its body sends something out through a call (`bounds.send_call`:
`bus.write(...)`, `pub.publish(msg)`, `arm.set_joint_targets(q)`), and neither its
body nor the class's own methods it calls (one call away) step or reset an environment or advance a physics
simulator. A candidate runs on the robot when it is an inline range of such a loop, or a function that calls a
model and that a driver calls in such a loop. When the project has one, every simulation candidate (an inline
range whose loop steps an environment, a function that holds such a loop, or one drivers call only in loops that
step an environment or a simulator) scored at or above the best robot candidate goes one point below it, with the reason.

    while True:                                  # the deploy: ranks first
        a = self.step_policy(self.read_state())
        self.bus.write_goal_positions(a)
        time.sleep(dt)

    for _ in range(steps):                       # the simulator check: one point below it
        a = policy(obs)
        obs, *_ = env.step(a)
"""
from __future__ import annotations

import ast
from dataclasses import replace

from leapp_codemod.analysis.entry.bounds import final_name, send_call, walk_here
from leapp_codemod.analysis.entry.drivers import loops_of
from leapp_codemod.analysis.entry.loops import steps_or_resets
from leapp_codemod.analysis.entry.signs import simulator_step
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.model import Entrypoint

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _own_methods(fn: FunctionInfo, project) -> dict:
    cls = project.modules[fn.module].classes.get(fn.class_name) if fn.class_name else None
    return {s.name: s for s in cls.node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))} if cls else {}


def _simulates(nodes: list[ast.AST], module, project, skip: str | None = None) -> bool:
    """Do the statements step or reset an environment or advance a physics simulator? `skip`: the name of a
    method whose calls do not count (the candidate's own `planner.step(x)`)."""
    calls = [n for node in nodes for n in ast.walk(node) if isinstance(n, ast.Call)
             and not (skip and isinstance(n.func, ast.Attribute) and n.func.attr == skip)]
    # each call on its own (`print(planner.step(x))`: the print steps nothing, the skipped call is inside it)
    return any(steps_or_resets(ast.Call(func=call.func, args=[], keywords=[]))
               or simulator_step(call, module, project) is not None for call in calls)


def robot_send(fn: FunctionInfo, loop: ast.AST, project, runs_model=lambda fid: False) -> int | None:
    """The line of the statement by which the loop of `fn` sends its action out, when the loop runs on the
    robot (see the module's docstring), else None. `runs_model(fid)`: does the function run a model? Such an
    own method is the policy step, not the world (`self.player.step(obs)` steps a model)."""
    module = project.modules.get(fn.module)
    if module is None:
        return None
    methods = _own_methods(fn, project)
    called = [methods[c.func.attr] for c in ast.walk(loop) if isinstance(c, ast.Call)
              and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)
              and c.func.value.id == "self" and c.func.attr in methods and methods[c.func.attr] is not fn.node
              and not runs_model(f"{fn.module}:{fn.class_name}.{c.func.attr}")]
    if _simulates(list(loop.body), module, project) or _simulates(called, module, project):
        return None
    files = _file_handles(fn.node)
    sending = {id(node) for node in called if any(_sends_out(stmt, _file_handles(node)) for stmt in node.body)}
    sent = next((stmt for stmt in loop.body if _sends_out(stmt, files) or any(
        isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and id(methods.get(c.func.attr)) in sending
        for c in ast.walk(stmt))), None)
    return sent.lineno if sent is not None else None


# Receivers whose writes are reports: files, logs, consoles, tables (`f.write(line)`, `writer.writerow(r)`).
REPORT_RECEIVERS = frozenset({"f", "fp", "fh", "file", "files", "csv", "stdout", "stderr", "log", "logs", "logger",
                              "writer", "summary", "tb", "wandb", "recorder", "video", "out"})


def _file_handles(node: ast.AST) -> set[str]:
    """Names bound to an opened file in a function (`with open(p) as f`, `f = open(p, "w")`)."""
    def opened(expr):
        return isinstance(expr, ast.Call) and final_name(expr.func) == "open"
    out = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.With, ast.AsyncWith)):
            out |= {item.optional_vars.id for item in n.items if opened(item.context_expr)
                    and isinstance(item.optional_vars, ast.Name)}
        elif isinstance(n, ast.Assign) and opened(n.value):
            out |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    return out


def _reports_to(call: ast.Call, files: set[str]) -> bool:
    """Is the call made on a file, a log or a console (`f.write(...)`, `sys.stdout.write(...)`)?"""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    name = final_name(receiver) if receiver is not None else None
    return bool(name) and (name in files or bool(set(name.lower().split("_")) & REPORT_RECEIVERS))


def _sends_out(stmt: ast.stmt, files: set[str] = frozenset()) -> bool:
    """Does the statement send something out on the control path (a send call, `bounds.send_call`)? What an
    `except` handler does (an error log) and writes into files and logs (`files`: names of opened files) are
    reports, not sends."""
    if isinstance(stmt, ast.Try):
        return any(_sends_out(s, files) for s in (*stmt.body, *stmt.orelse, *stmt.finalbody))
    if isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
        return any(_sends_out(s, files) for s in (*stmt.body, *getattr(stmt, "orelse", ())))
    # a send call (a write into another object's field alone may be a simulator's array or a model's flag,
    # `param.requires_grad = False`: a robot's command message goes out through a call)
    discarded = {id(stmt.value)} if isinstance(stmt, ast.Expr) else set()
    return any(isinstance(n, ast.Call) and send_call(n, id(n) in discarded) and not _reports_to(n, files)
               for n in walk_here(stmt))


def _loop_at(fn: FunctionInfo, line: int) -> ast.AST | None:
    """The innermost loop of `fn` holding `line`."""
    found = [n for n in fn.nodes if isinstance(n, _LOOPS) and n.lineno <= line <= (n.end_lineno or n.lineno)]
    return max(found, key=lambda n: n.lineno) if found else None


def robot_candidates(ranked: list[Entrypoint], outermost, sites, functions: dict, project) -> dict[str, str]:
    """Candidate id -> `path:line` of the send, for the candidates that run on the robot: inline ranges of such a
    loop (`outermost`: (fn, pipeline, _) triples), functions that run a model and that a driver calls in one."""
    out: dict[str, str] = {}
    runs_model = (lambda fid: fid in sites.calls_module or bool(sites.model_via(fid)))
    for fn, pipeline, _ in outermost:
        loop = next((n for n in fn.nodes if isinstance(n, _LOOPS) and n.lineno == pipeline.loop_line), None)
        line = robot_send(fn, loop, project, runs_model) if loop is not None else None
        if line is not None:
            out[f"{fn.path}:{pipeline.start}-{pipeline.end}"] = f"{fn.path}:{line}"
    for c in ranked:
        fn = functions.get(c.id) if c.kind == "function" else None
        module = project.modules.get(fn.module) if fn is not None else None
        if fn is None or module is None or not runs_model(c.id) or any(
                _simulates(list(loop.body), module, project) for loop in loops_of(fn)):
            continue    # a rollout whose own loop steps a world is no step of a robot's loop
        for caller, at in sites.in_loops.get(c.id, []):
            loop = _loop_at(caller, at) if caller.id in sites.drivers else None
            line = robot_send(caller, loop, project, runs_model) if loop is not None else None
            if line is None and loop is not None:   # `while True: controller.run()`: the step sends itself
                own = robot_send(fn, fn.node, project, runs_model)
                line, caller = (own, fn) if own is not None else (None, caller)
            if line is not None:
                out[c.id] = f"{caller.path}:{line}"
                break
    return out


def simulated_functions(ranked: list[Entrypoint], sites, functions: dict, project) -> set[str]:
    """Ids of the function candidates that drivers call only in loops that step an environment or a simulator
    (calls of the candidate's own name aside: `planner.step(x)` runs the candidate, it steps no world)."""
    out = set()
    for c in ranked:
        fn = functions.get(c.id) if c.kind == "function" else None
        sites_in = [(caller, at) for caller, at in sites.in_loops.get(c.id, []) if caller.id in sites.drivers]
        if fn is None or not sites_in:
            continue
        loops = [(caller, _loop_at(caller, at)) for caller, at in sites_in]
        if all(loop is not None and project.modules.get(caller.module) is not None and _simulates(
                list(loop.body), project.modules[caller.module], project, fn.name) for caller, loop in loops):
            out.add(c.id)
    return out


def below_robot_steps(ranked: list[Entrypoint], robot: dict[str, str], simulated: set[str]) -> list[Entrypoint]:
    """Simulation candidates (`simulated` ids: inline ranges, functions holding their loops or run only in
    simulation loops) scored at or above the best candidate that runs on the robot (`robot`: id -> where it
    sends) go one point below it."""
    leaders = [c for c in ranked if c.id in robot]
    if not leaders:
        return list(ranked)
    leader = max(leaders, key=lambda c: c.score)
    out = []
    for c in ranked:
        if c.id not in robot and c.id in simulated and c.score >= leader.score:
            note = (f"its loop runs in simulation (it steps an environment or a simulator): ranked below "
                    f"{leader.id}, whose loop sends the action to the robot ({robot[leader.id]})")
            c = replace(c, score=leader.score - 1, reasons=(*c.reasons, note))
        out.append(c)
    return out
