"""The function that composes the policy step ranks above the model calls it makes.

A callback the framework calls again and again, or a function a driver calls in its loop, is the policy
step when what it calls is only a part of it:
- it runs models through two or more project functions on one path (an image encoder, then the policy on
  the encoded latent): each is a part, the function that chains them is the step;
- it calls a thin model wrapper (a function of at most WRAPPER_ASSIGNMENTS assignments or
  WRAPPER_STATEMENTS statements around the model call: `get_action(obs)` around `model.predict`, a policy
  closure a loader returns) after statements that build the wrapper's input and before a call that sends
  the result out (`publisher.Write(cmd)`, `self.sendCommand()`) or a `return` of a value: the function
  feeds observation-derived data to the model and sends out or returns what comes back; the wrapper is
  its model call.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.knowledge.io import SEND_METHODS
from leapp_codemod.knowledge.vocab import NAME_KEEPING_CONVERSIONS
from leapp_codemod.model import Entrypoint

WRAPPER_ASSIGNMENTS = 3
WRAPPER_STATEMENTS = 6
# ... or computes at most this many values besides moving them (`_plumbing`): the model call and one more.
WRAPPER_WORK = 2
# Methods and torch constructors that only move values between devices, dtypes and containers.
PLUMBING_METHODS = NAME_KEEPING_CONVERSIONS - {"item", "tolist"} | {"cpu", "cuda", "float", "double", "half", "type"}
TENSOR_FROM_ARRAY = frozenset({"from_numpy", "as_tensor", "tensor", "asarray"})
# A function of at most this many statements is only its model call (and the return); its caller builds the input
# when at least THIN_CALLER_STATEMENTS statements come before the call.
THIN_STATEMENTS = 2
THIN_CALLER_STATEMENTS = 3
# A function of the step's own class whose name starts with one of these sends the action out.
SEND_WORDS = frozenset({"publish", "send", "write", "command", "actuate", "apply"})
# Pipeline statements around a model wrapper's call: building its input (reading the message, filling the
# observation; one at least) and using its result before the send (clipping it, keeping it for the next call).
MIN_STATEMENTS_BEFORE = 2


@dataclass(frozen=True)
class Composer:
    fn: FunctionInfo
    reason: str


def _branches(fn_node: ast.AST, target: ast.AST) -> list[tuple[int, str]]:
    """(id of an `if`/`try`, which branch) for every conditional `target` sits in."""
    path: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> bool:
        if node is target:
            return True
        for name, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for child in children:
                if isinstance(child, ast.AST):
                    if isinstance(node, (ast.If, ast.Try, ast.IfExp)) and name != "test":
                        path.append((id(node), name))
                        if visit(child):
                            return True
                        path.pop()
                    elif visit(child):
                        return True
        return False

    visit(fn_node)
    return path


def _exclusive(fn_node: ast.AST, a: ast.AST, b: ast.AST) -> bool:
    """Do `a` and `b` sit in different branches of one conditional (never both on one path)?"""
    branches_a = dict(_branches(fn_node, a))
    return any(node in branches_a and branches_a[node] != branch for node, branch in _branches(fn_node, b))


def _assignments(fn: FunctionInfo) -> int:
    return sum(isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) for n in fn.nodes)


def _statements(fn: FunctionInfo) -> int:
    """Statements of the function's body (nested ones included), its docstring not counted."""
    body = fn.node.body[1:] if (fn.node.body and isinstance(fn.node.body[0], ast.Expr)
                                and isinstance(fn.node.body[0].value, ast.Constant)) else fn.node.body
    return sum(1 for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.stmt))


def _plumbing(value: ast.expr) -> bool:
    """Does the value only move what it is handed between containers, devices and dtypes (`torch.from_numpy(obs)
    .to(dev).float()`, `{"obs": t, "rnn_states": None}`, `out["mus"]`, `a.cpu().numpy()`)? Such a line computes
    nothing of the pipeline: an adapter around a model call is still a wrapper."""
    if isinstance(value, (ast.Name, ast.Constant)):
        return True
    if isinstance(value, (ast.Tuple, ast.List)):
        return all(_plumbing(e) for e in value.elts)
    if isinstance(value, ast.Dict):
        return all(_plumbing(v) for v in value.values)
    if isinstance(value, ast.Subscript):
        return isinstance(value.slice, ast.Constant) and _plumbing(value.value)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        if value.func.attr in PLUMBING_METHODS:
            return _plumbing(value.func.value) and all(_setting(a) for a in (*value.args, *(k.value for k in
                                                                                         value.keywords)))
        return value.func.attr in TENSOR_FROM_ARRAY and len(value.args) == 1 and _plumbing(value.args[0])
    return False


def _setting(arg: ast.expr) -> bool:
    """A device, a dtype or a shape handed to a conversion (`"cuda:0"`, `torch.float32`, `dev`, `-1`)."""
    while isinstance(arg, ast.Attribute):
        arg = arg.value
    return isinstance(arg, (ast.Name, ast.Constant)) or isinstance(arg, ast.UnaryOp) and _setting(arg.operand)


def _work(fn: FunctionInfo) -> int:
    """Assignments that compute something (not `_plumbing`)."""
    return sum(isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and not (
        n.value is not None and _plumbing(n.value)) for n in fn.nodes)


def thin_body(fn: FunctionInfo) -> bool:
    """A body of at most THIN_STATEMENTS statements (`return torch.tanh(self.body(obs))`): a bare network."""
    return _statements(fn) <= THIN_STATEMENTS


def is_model_wrapper(fn: FunctionInfo) -> bool:
    """Is `fn` small enough to be only a wrapper around a model call (the caller checks that it runs one)?"""
    return _assignments(fn) <= WRAPPER_ASSIGNMENTS or _statements(fn) <= WRAPPER_STATEMENTS \
        or _work(fn) <= WRAPPER_WORK


def builds_for_thin_wrapper(fn: FunctionInfo, caller: FunctionInfo) -> bool:
    """Is `fn` only a model call and its return (`actions, _ = model.predict(obs); return actions`) that `caller`
    runs after statements of its own that build the input: the caller is where observations become an action."""
    if _statements(fn) > THIN_STATEMENTS:
        return False
    lines = [n.lineno for n in caller.nodes if isinstance(n, ast.Call) and
             (n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)) == fn.name]
    return bool(lines) and _statements_before(caller, min(lines)) >= THIN_CALLER_STATEMENTS


def _statements_before(fn: FunctionInfo, line: int) -> int:
    body = fn.node.body[1:] if (fn.node.body and isinstance(fn.node.body[0], ast.Expr)
                                and isinstance(fn.node.body[0].value, ast.Constant)) else fn.node.body
    return sum(1 for stmt in body for n in ast.walk(stmt)
               if isinstance(n, ast.stmt) and not isinstance(n, (ast.If, ast.Try, ast.With, ast.For, ast.While))
               and n.lineno < line)


def send_after(fn: FunctionInfo, line: int) -> int | None:
    """The line of the first call after `line` that sends something out, or None."""
    for node in sorted((n for n in fn.nodes if isinstance(n, ast.Call) and n.lineno > line),
                       key=lambda n: n.lineno):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        first = first_word(name)     # `send_command`, `sendCommand`
        if name in SEND_METHODS or first in SEND_WORDS:
            return node.lineno
    return None


def first_word(name: str) -> str:
    """The first word of a snake_case or camelCase name, lower case: `sendCommand` -> "send"."""
    return re.split(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])", name.lstrip("_"))[0].lower()


def _returned_after(fn: FunctionInfo, line: int) -> int | None:
    """The line of the first `return` of a value after `line`, or None."""
    found = [n.lineno for n in fn.nodes if isinstance(n, ast.Return) and n.value is not None and n.lineno > line]
    return min(found) if found else None


def model_parts(fn: FunctionInfo, calls: list[tuple[ast.Call, list[str]]], runs_model, functions: dict
                ) -> dict[str, Composer]:
    """Project functions `fn` calls that are parts of its policy step: callee id -> why.

    `calls`: (call node, ids of the project functions it may run); `runs_model(fid)`: does that function run
    a model, itself or through its callees; `functions`: fid -> FunctionInfo."""
    looped = [(loop.lineno, loop.end_lineno or loop.lineno) for loop in ast.walk(fn.node)
              if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))]
    runners = [(node, tid) for node, tids in calls for tid in tids if tid != fn.id and runs_model(tid)
               and not any(start <= node.lineno <= end for start, end in looped)]   # fn's own loop: a driver
    out: dict[str, Composer] = {}
    for node, tid in runners:
        others = [(other, oid) for other, oid in runners
                  if oid != tid and other is not node and not _exclusive(fn.node, node, other)]
        if others:
            names = sorted({oid.partition(":")[2] for _, oid in others})
            out.setdefault(tid, Composer(fn, f"runs a model together with {', '.join(names)} on one path of "
                                             f"{fn.qualname} ({fn.path}:{node.lineno}): a part of that step"))
    for node, tid in runners:
        callee = functions.get(tid)
        if tid in out or callee is None or not is_model_wrapper(callee):
            continue
        sent = send_after(fn, node.lineno)
        returned = _returned_after(fn, node.lineno) if sent is None else None
        before = _statements_before(fn, node.lineno)
        after = _statements_before(fn, sent if sent is not None else returned or 0) - before - 1
        if (sent or returned) is not None and before >= 1 and before + after >= MIN_STATEMENTS_BEFORE:
            what = f"a send of the result (line {sent})" if sent is not None else f"a return (line {returned})"
            out[tid] = Composer(fn, f"a model wrapper {fn.qualname} calls ({fn.path}:{node.lineno}) between "
                                    f"statements that build its input and {what}")
    return out


def wrapper_calls(sites, fid: str) -> list[tuple[ast.Call, list[str]]]:
    """Calls `fid` makes of project functions that only wrap a model call (`self.player.get_action(obs)`
    around `model.predict`, a policy closure a loader returns): each target runs a model and is no bigger
    than a wrapper (composers.is_model_wrapper); nn.Module methods are networks already."""
    out = []
    for node, tids in sites.project_calls.get(fid, []):
        fns = [sites.functions.get(t) for t in tids]
        if tids and fid not in tids and all(
                fn is not None and (t in sites.calls_module or sites.model_via(t)) and is_model_wrapper(fn)
                for t, fn in zip(tids, fns)):
            out.append((node, tids))
    return out


def above_their_parts(ranked: list[Entrypoint], parts: dict[str, Composer]) -> list[Entrypoint]:
    """Each composer scored one point above the best of its parts (added when it was no candidate), each
    part saying whose step it is part of."""
    out = list(ranked)
    by_id = {c.id: i for i, c in enumerate(out) if c.kind == "function"}
    best: dict[str, int] = {}
    for i, c in enumerate(out):
        composer = parts.get(c.id) if c.kind == "function" else None
        if composer is not None:
            out[i] = replace(c, reasons=(*c.reasons, composer.reason))
            best[composer.fn.id] = max(best.get(composer.fn.id, c.score), c.score)
    for fid, score in best.items():
        fn = next(p.fn for p in parts.values() if p.fn.id == fid)
        names = ", ".join(sorted(part.partition(":")[2] for part, p in parts.items() if p.fn.id == fid))
        note = (f"the policy step: feeds observation-derived data to the models it runs through {names} and "
                f"sends out or returns the result")
        if fid in by_id:
            own = out[by_id[fid]]
            if own.score <= score:
                out[by_id[fid]] = replace(own, score=score + 1, reasons=(*own.reasons, note))
        else:
            out.append(Entrypoint(fn.module, fn.qualname, fn.path, fn.node.lineno, score + 1, (note,)))
    return out
